import { isoNow, type Clock } from '../clock.js';
import { createComparison } from '../compare/service.js';
import { judgeFromSettings } from '../compare/judge-source.js';
import type { EventBus } from '../events.js';
import type { SecretBox } from '../kernel/secret-box.js';
import type { ModelClient, ModelConnection } from '../llm/types.js';
import type { ExperimentPatch, ExperimentRecord } from '../store/experiments.js';
import type { Store } from '../store/index.js';
import { executionStatuses } from './experiments.js';

/**
 * An experiment's last step, once both sides' executions have ended: their comparison. It is
 * driven by the simulations' endings (`simulation.finished`, `execution.cancelled`), checked at
 * start for what ended while the engine was down, and every half minute for endings no event
 * tells (skipped by the cost cap, another server's). The stored state makes it run once: the
 * server that moves an experiment from `running` to `comparing` compares it.
 */

export interface CompletionDeps {
  store: Store;
  events: EventBus;
  clock: Clock;
  secrets: SecretBox;
  llmDefault: ModelConnection | null;
  runner: { modelClient: (connection: ModelConnection) => ModelClient };
}

const ENDED = new Set(['completed', 'failed', 'cancelled', 'skipped']);

/** Compares a claimed experiment and records how that went. */
async function compare(deps: CompletionDeps, id: string): Promise<void> {
  const e = (await deps.store.experiments.find(id))!;
  const statuses = await executionStatuses(deps.store, e);
  const patch: Ending = statuses.includes('cancelled')
    ? await cancelRest(deps, e)
    : await comparisonOf(deps, e);
  await deps.store.experiments.update(id, patch, isoNow(deps.clock));
  deps.events.emit('experiment.finished', { experimentId: id, status: patch.state });
}

/**
 * A side cancelled: the experiment cannot be compared, so it is cancelled, and so are its
 * executions still queued or running (they would spend for nothing).
 */
async function cancelRest(deps: CompletionDeps, e: ExperimentRecord): Promise<Ending> {
  const at = isoNow(deps.clock);
  for (const id of [...e.baseline_execution_ids, ...e.candidate_execution_ids]) {
    const execution = await deps.store.simulations.execution(e.workspace_id, id);
    if (!execution || ENDED.has(execution.status)) continue;
    await deps.store.simulations.cancel(e.workspace_id, id, at);
    deps.events.emit('execution.cancelled', { executionId: id });
  }
  return { state: 'cancelled', error: 'an execution of it was cancelled' };
}

/** How a compared experiment ends: its comparison stored, or why that failed. */
type Ending = ExperimentPatch & { state: 'completed' | 'failed' | 'cancelled' };

/** The comparison of both sides, stored, as the experiment records it (or why it failed). */
async function comparisonOf(deps: CompletionDeps, e: ExperimentRecord): Promise<Ending> {
  try {
    const comparison = await createComparison(
      { store: deps.store, clock: deps.clock, judge: judgeFromSettings(deps) },
      {
        workspaceId: e.workspace_id,
        baseline: e.baseline_execution_ids,
        candidate: e.candidate_execution_ids,
      },
    );
    return {
      state: 'completed',
      comparison_id: comparison.id,
      verdict: comparison.overall.verdict,
    };
  } catch (err) {
    return { state: 'failed', error: `the comparison failed: ${(err as Error).message}` };
  }
}

/** Compares the experiment when both sides have ended and no other server has begun to. */
export async function settleExperiment(
  deps: CompletionDeps,
  id: string,
  /** A simulation ended: nothing to do while others still run (most endings, one count). */
  quick = false,
): Promise<void> {
  const e = await deps.store.experiments.find(id);
  if (!e || e.state !== 'running') return;
  if (quick && (await deps.store.experiments.unended(id)) > 0) return;
  const statuses = await executionStatuses(deps.store, e);
  // A cancelled side ends it at once; otherwise every execution must have ended.
  if (!statuses.includes('cancelled') && !statuses.every((s) => ENDED.has(s))) return;
  if (!(await deps.store.experiments.claim(id, 'running', 'comparing', isoNow(deps.clock)))) return;
  await compare(deps, id);
}

const SWEEP_MS = 30_000;
/**
 * A comparison takes a second or so: one still `comparing` this long after it was claimed was
 * being made by a server that stopped or died, and is made again. Only then: resetting a
 * comparison another server is making would have it made twice.
 */
export const STALE_COMPARING_MS = 5 * 60_000;

/** Claimed for comparing long enough ago that whoever claimed it is gone. */
const staleComparing = (e: { state: string; updated_at: string }, nowMs: number): boolean =>
  e.state === 'comparing' && nowMs - Date.parse(e.updated_at) > STALE_COMPARING_MS;

/**
 * Settles experiments as their simulations end; answers how to stop. One settle at a time per
 * experiment (a burst of endings asks again once, after the one under way).
 */
export function watchExperiments(deps: CompletionDeps, log: (message: string) => void): () => void {
  const busy = new Map<string, boolean>();
  const settle = (id: string, quick = false): void => {
    if (busy.has(id)) {
      busy.set(id, true);
      return;
    }
    busy.set(id, false);
    void settleExperiment(deps, id, quick)
      .catch((err: unknown) => log(`experiment ${id}: ${(err as Error).message}`))
      .finally(() => {
        const again = busy.get(id);
        busy.delete(id);
        if (again) settle(id);
      });
  };
  const sweep = () =>
    void deps.store.experiments
      .unfinished()
      .then(async (list) => {
        for (const e of list) {
          // A comparison its server never finished is made again, by whichever server sweeps.
          if (staleComparing(e, deps.clock.now()))
            await deps.store.experiments.claim(e.id, 'comparing', 'running', isoNow(deps.clock));
          settle(e.id);
        }
      })
      .catch((err: unknown) => log(`experiments: ${(err as Error).message}`));
  const off = deps.events.subscribe((event) => {
    if (event.type !== 'simulation.finished' && event.type !== 'execution.cancelled') return;
    void deps.store.experiments
      .ofExecution(event.data.executionId)
      .then((id) => id && settle(id, event.type === 'simulation.finished'))
      .catch((err: unknown) => log(`experiments: ${(err as Error).message}`));
  });
  sweep();
  const timer = setInterval(sweep, SWEEP_MS);
  timer.unref();
  return () => {
    off();
    clearInterval(timer);
  };
}
