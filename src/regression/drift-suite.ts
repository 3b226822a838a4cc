import { isoNow, type Clock } from '../clock.js';
import { createComparison, type ComparisonDeps } from '../compare/service.js';
import { ENDED_EXECUTION_STATUSES } from '../domain/executions.js';
import type { SuiteRun } from '../domain/regression.js';
import type { EventBus } from '../events.js';
import { newId } from '../ids.js';
import type { Store } from '../store/index.js';
import type { SuiteRunEnd } from '../store/regression-suites.js';
import { startExecution, type ExecutionDeps } from '../simulations/start.js';

/**
 * The drift suite: when a sync records a new version of an agent that has a suite, its scenarios
 * run once on that agent alone (on its channel, each in its scenario's mode), and once they have
 * all ended the run is compared with the previous version's. It runs on one instance at a time
 * (the engine starts it with the other singletons: on a team server, the leader); the store's
 * unique (agent, version) row is what makes a run happen once even while two instances overlap.
 */

export interface DriftSuiteDeps {
  store: Store;
  clock: Clock;
  events: EventBus;
  /** Starting the suite's executions. */
  execution: ExecutionDeps;
  /** Comparing a run with the previous version's. */
  comparison: ComparisonDeps;
  log: (message: string) => void;
}

/** A run that claimed its row but has no executions after this long never will: it failed. */
const START_GRACE_MS = 60_000;

/** Starts one execution per scenario of the suite, on this agent only; answers ids and refusals. */
async function startSuiteExecutions(
  deps: DriftSuiteDeps,
  run: Pick<SuiteRun, 'agent_id' | 'workspace_id'>,
  suite: { scenarioIds: string[]; runs: number },
): Promise<{ executionIds: string[]; errors: string[] }> {
  const executionIds: string[] = [];
  const errors: string[] = [];
  for (const scenarioId of suite.scenarioIds) {
    try {
      const started = await startExecution(deps.execution, run.workspace_id, scenarioId, {
        variables: {},
        runs: suite.runs,
        agentIds: [run.agent_id],
      });
      executionIds.push(started.id);
    } catch (err) {
      // A scenario that cannot run (deleted, no persona) is said; the others still run.
      errors.push(`scenario ${scenarioId}: ${(err as Error).message}`);
    }
  }
  return { executionIds, errors };
}

/**
 * Runs the agent's suite for its newest version, unless that version has a run already (here or
 * on another instance). Answers the run started, or null.
 */
async function runForNewestVersion(
  deps: DriftSuiteDeps,
  agentId: string,
  starting: Set<string>,
): Promise<SuiteRun | null> {
  const { store, clock } = deps;
  const agent = await store.agents.get(agentId);
  const suite = agent?.regressionSuite;
  const latest = await store.agents.latestVersion(agentId);
  if (!suite || !latest) return null;
  const id = newId('rsr', clock.now());
  const at = isoNow(clock);
  starting.add(id);
  try {
    const claimed = await store.regressionSuites.claim({
      id,
      agent_id: agentId,
      version: latest.version,
      workspace_id: suite.workspaceId,
      created_at: at,
    });
    if (!claimed) return null;
    const { executionIds, errors } = await startSuiteExecutions(
      deps,
      { agent_id: agentId, workspace_id: suite.workspaceId },
      suite,
    );
    await store.regressionSuites.setExecutions(id, executionIds, isoNow(clock));
    if (errors.length)
      deps.log(`drift suite of ${agentId} v${latest.version}: ${errors.join('; ')}`);
    if (executionIds.length === 0) await endRun(deps, id, failed(errors.join('; ')));
    return (await store.regressionSuites.getRun(id)) ?? null;
  } finally {
    starting.delete(id);
  }
}

const failed = (error: string): SuiteRunEnd => ({
  status: 'failed',
  baseline_run_id: null,
  comparison_id: null,
  verdict: null,
  error: error || 'no execution could start',
});

/** Records the end of a run and tells who listens (the alert evaluator among them). */
async function endRun(deps: DriftSuiteDeps, runId: string, end: SuiteRunEnd): Promise<void> {
  if (!(await deps.store.regressionSuites.end(runId, end, isoNow(deps.clock)))) return;
  const run = (await deps.store.regressionSuites.getRun(runId))!;
  deps.events.emit('regression.suite_finished', {
    agentId: run.agent_id,
    version: run.version,
    runId,
    comparisonId: run.comparison_id,
    verdict: run.verdict,
  });
}

/** Whether every execution of the run has ended (one deleted since counts as ended). */
async function executionsEnded(deps: DriftSuiteDeps, run: SuiteRun): Promise<boolean> {
  for (const id of run.execution_ids) {
    const execution = await deps.store.simulations.execution(run.workspace_id, id);
    if (execution && !ENDED_EXECUTION_STATUSES.includes(execution.status)) return false;
  }
  return true;
}

/** A run whose executions ended: compared with the previous version's completed run, if any. */
async function compareRun(deps: DriftSuiteDeps, run: SuiteRun): Promise<SuiteRunEnd> {
  const previous = await deps.store.regressionSuites.previousCompleted(run.agent_id, run.version);
  // The first version with a suite has nothing to compare with: its run is the next one's baseline.
  if (!previous)
    return {
      status: 'completed',
      baseline_run_id: null,
      comparison_id: null,
      verdict: null,
      error: null,
    };
  try {
    const comparison = await createComparison(deps.comparison, {
      workspaceId: run.workspace_id,
      baseline: previous.execution_ids,
      candidate: run.execution_ids,
    });
    return {
      status: 'completed',
      baseline_run_id: previous.id,
      comparison_id: comparison.id,
      verdict: comparison.overall.verdict,
      error: null,
    };
  } catch (err) {
    return { ...failed((err as Error).message), baseline_run_id: previous.id };
  }
}

/** Ends every running run whose executions have all ended. */
async function settleRuns(deps: DriftSuiteDeps, starting: Set<string>): Promise<void> {
  for (const run of await deps.store.regressionSuites.running()) {
    if (starting.has(run.id)) continue;
    if (run.execution_ids.length === 0) {
      // Claimed by an instance that stopped before starting anything (or is starting it now).
      if (Date.parse(run.created_at) + START_GRACE_MS < deps.clock.now())
        await endRun(
          deps,
          run.id,
          failed('the instance that claimed it stopped before it started'),
        );
      continue;
    }
    if (!(await executionsEnded(deps, run))) continue;
    await endRun(deps, run.id, await compareRun(deps, run));
  }
}

/** How long event-triggered work waits, gathering the events that follow (a burst is one round). */
const SETTLE_DELAY_MS = 100;

/**
 * The drift suite's service: `start()` listens for new versions (runs the suite) and for
 * simulations that end (settles runs), and settles at once what ended while nobody listened.
 */
export function createDriftSuite(deps: DriftSuiteDeps) {
  const starting = new Set<string>();
  let queue: Promise<unknown> = Promise.resolve();
  let soon: NodeJS.Timeout | null = null;
  // One piece of work at a time: a settle never races the start of the run it would settle.
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work);
    queue = next.catch((err: unknown) => deps.log(`drift suite: ${(err as Error).message}`));
    return next;
  };
  const settle = () => serially(() => settleRuns(deps, starting));
  const settleSoon = () => {
    if (soon) return;
    soon = setTimeout(() => {
      soon = null;
      void settle().catch(() => {});
    }, SETTLE_DELAY_MS);
  };
  return {
    /** Runs the agent's suite for its newest version unless already run; answers the run or null. */
    runForNewVersion: (agentId: string) =>
      serially(() => runForNewestVersion(deps, agentId, starting)),
    settle,
    start(): () => void {
      const off = deps.events.subscribe((e) => {
        if (e.type === 'agent.config_changed')
          void serially(() => runForNewestVersion(deps, e.data.agentId, starting)).catch(() => {});
        else if (e.type === 'simulation.finished' || e.type === 'execution.cancelled') settleSoon();
      });
      void settle().catch(() => {});
      return () => {
        off();
        if (soon) clearTimeout(soon);
        soon = null;
      };
    },
    /** Waits for the work under way. */
    async idle(): Promise<void> {
      for (;;) {
        const current = queue;
        await current;
        if (current === queue && !soon) return;
        if (soon) await new Promise((r) => setTimeout(r, SETTLE_DELAY_MS));
      }
    },
  };
}

export type DriftSuite = ReturnType<typeof createDriftSuite>;
