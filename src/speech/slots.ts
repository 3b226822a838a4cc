/**
 * A counting gate: at most `size` holders at once, the rest wait in arrival order. The system
 * voice runs one child process per utterance, and a burst of simulations must not start more
 * synthesisers than the machine has cores (they would slow every live call's audio pacing).
 */
export interface Slots {
  /** Resolves with a release function once a slot is free; rejects if `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<() => void>;
  /** Rejects every waiter with `reason`; later acquires reject too. */
  close(reason: Error): void;
}

interface Waiter {
  grant: () => void;
  fail: (reason: Error) => void;
}

export function createSlots(size: number): Slots {
  let free = Math.max(1, Math.floor(size));
  let closed: Error | null = null;
  const waiting: Waiter[] = [];

  const release = (): void => {
    const next = waiting.shift();
    if (next) next.grant();
    else free++;
  };

  // A release that runs twice would hand out a slot that does not exist.
  const once = (): (() => void) => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      release();
    };
  };

  return {
    acquire(signal) {
      if (closed) return Promise.reject(closed);
      if (signal?.aborted) return Promise.reject(signal.reason as Error);
      if (free > 0) {
        free--;
        return Promise.resolve(once());
      }
      return new Promise((resolve, reject) => {
        const onAbort = (): void => {
          const at = waiting.indexOf(waiter);
          if (at >= 0) waiting.splice(at, 1);
          reject(signal?.reason as Error);
        };
        const waiter: Waiter = {
          grant: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve(once());
          },
          fail: (reason) => {
            signal?.removeEventListener('abort', onAbort);
            reject(reason);
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        waiting.push(waiter);
      });
    },
    close(reason) {
      closed = reason;
      for (const waiter of waiting.splice(0)) waiter.fail(reason);
    },
  };
}
