import type { Store } from '../store/index.js';

/**
 * Which executions are cancelled, and one abort signal per execution with simulations running.
 * Cancels made through this engine are seen at once; the store is read at most every second per
 * execution (another process may have cancelled), not at every turn of every simulation.
 */
export function createCancellations(store: Store) {
  const cancelled = new Set<string>();
  const checkedAt = new Map<string, number>();
  const aborts = new Map<string, { controller: AbortController; running: number }>();
  const cancel = (executionId: string): void => {
    cancelled.add(executionId);
    aborts.get(executionId)?.controller.abort();
  };
  return {
    /** The execution's simulations stop now: their turns in flight are aborted. */
    cancel,
    isCancelled(executionId: string): boolean {
      if (cancelled.has(executionId)) return true;
      const now = Date.now();
      if (now - (checkedAt.get(executionId) ?? 0) < 1_000) return false;
      checkedAt.set(executionId, now);
      if (checkedAt.size > 1_000) checkedAt.clear();
      // Asked at every turn, answered now: a cancel found in the store aborts the turns in flight
      // when the read comes back. A failed read is only retried at the next check.
      store.simulations.isCancelled(executionId).then(
        (yes) => yes && cancel(executionId),
        () => checkedAt.delete(executionId),
      );
      return false;
    },
    /** The execution's abort signal, held while one simulation runs; release() when it ends. */
    holdSignal(executionId: string) {
      let entry = aborts.get(executionId);
      if (!entry)
        aborts.set(executionId, (entry = { controller: new AbortController(), running: 0 }));
      entry.running++;
      if (cancelled.has(executionId)) entry.controller.abort();
      const held = entry;
      return {
        signal: held.controller.signal,
        release: () => {
          if (--held.running === 0 && aborts.get(executionId) === held) aborts.delete(executionId);
        },
      };
    },
  };
}
