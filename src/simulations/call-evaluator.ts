import type { EventBus } from '../events.js';
import type { Store } from '../store/index.js';
import type { ClaimedJob } from '../store/evaluation-jobs.js';
import { isDatabaseOutage } from '../store/sql/postgres-errors.js';
import { createEvaluationLeases, JOB_ATTEMPTS } from './evaluation-leases.js';
import { cachedSetups, scoreCall, type CallScoringDeps, type ScoringSetup } from './score-call.js';
import { createScoreThreads, type ScoreThreads } from './score-threads.js';
import { simulationSettings, type SimulationSettings } from './settings.js';

export interface CallEvaluatorDeps extends CallScoringDeps {
  /** The simulations' settings: the pool is as large as theirs (PATCH /v1/settings {simulations}). */
  defaults: SimulationSettings;
  /** This process's pool size, whatever the settings say (a worker's --concurrency). */
  concurrency?: number;
  leaseMs?: number;
  /** Aborted as the engine begins to stop: no new job is claimed. */
  stopping: AbortSignal;
  /**
   * While this says so (a sync imports here), no job is claimed: scoring never holds up a sync.
   * Whoever ends the pause calls `enqueued()`.
   */
  paused?: () => boolean;
  log: (message: string) => void;
  /** Told of each evaluation recorded (`call.evaluated`). */
  events?: Pick<EventBus, 'emit'>;
}

/**
 * Threads scoring calls (score-threads.ts). One: its judge requests and scoring keep pace with the
 * engine's store work of the calls on a second core (the production benchmark scored 10,000 calls
 * in 3.6-3.8 s with one, against 4.6-5.7 s for the runner's way on two model threads); a second
 * only took its own heap and a share of the same two cores.
 */
const SCORE_THREADS = 1;

/** Scores one claimed job under its lease and records it; a failure queues it again (3 runs). */
async function runJob(
  deps: CallEvaluatorDeps,
  job: ClaimedJob,
  held: {
    owner: string;
    lost: () => boolean;
    setupOf: (agentId: string) => Promise<ScoringSetup>;
    threads: ScoreThreads;
  },
): Promise<void> {
  const { store } = deps;
  try {
    const evaluation = await scoreCall(deps, job, held);
    // Taken back meanwhile: whoever holds it now records it (finishJob refuses this claim anyway).
    if (held.lost()) return;
    // Production alerts measure the new evaluation at once (the event reaches a team's leader too).
    if (await store.callEvaluations.finishJob(held.owner, evaluation))
      deps.events?.emit('call.evaluated', {
        callId: evaluation.callId,
        agentId: evaluation.agentId,
      });
  } catch (err) {
    if (held.lost() || deps.stopping.aborted || isDatabaseOutage(err)) return;
    const error = (err as Error).message;
    deps.log(`the evaluation of call ${job.callId} failed: ${error}`);
    await store.callEvaluations
      .failJob(job.callId, held.owner, { limit: JOB_ATTEMPTS, error })
      .catch(() => {});
  }
}

/** The pool's size, read from the settings at most once a second (a fill runs per finished job). */
function poolSizer(deps: CallEvaluatorDeps): () => Promise<number> {
  let sized = { until: 0, size: 1 };
  return async () => {
    if (deps.concurrency) return deps.concurrency;
    if (sized.until < Date.now()) {
      const { concurrency } = await simulationSettings(deps.store, deps.defaults);
      sized = { until: Date.now() + 1_000, size: concurrency };
    }
    return sized.size;
  };
}

/**
 * Scores imported calls in the background: a pool as large as the simulations' works the
 * evaluation queue (store.callEvaluations), each job under a lease, so that on a team server any
 * worker takes any job, a dead worker's jobs go to another, and a call's evaluation is recorded
 * once. Syncs only queue; nothing here holds one up.
 */
export function createCallEvaluator(deps: CallEvaluatorDeps) {
  const store: Store = deps.store;
  const active = new Set<Promise<void>>();
  let started = false;
  let filling: Promise<void> | null = null;
  let again = false;
  const leases = createEvaluationLeases({
    store,
    leaseMs: deps.leaseMs,
    shared: store.dialect === 'postgres',
    pump: () => pump(),
    log: deps.log,
  });
  const on = () => started && !deps.stopping.aborted && !deps.paused?.();
  // A scorecard or monitoring change applies within a second.
  const setupOf = cachedSetups(deps);
  const threads = createScoreThreads(SCORE_THREADS);

  const poolSize = poolSizer(deps);

  async function fill(): Promise<void> {
    const size = await poolSize();
    // Claimed a quarter of the pool at a time (or whatever is free once it is idle): a claim
    // per finished job would cost a transaction each.
    const batch = Math.max(1, Math.floor(size / 4));
    while (on() && (size - active.size >= batch || (active.size === 0 && size > 0))) {
      const lease = leases.claim();
      const jobs = await store.callEvaluations.claimJobs(lease, size - active.size);
      if (jobs.length === 0) return;
      for (const job of jobs) start(job, lease.owner);
    }
  }

  function start(job: ClaimedJob, owner: string): void {
    const held = leases.hold(job.callId, owner);
    const run = runJob(deps, job, { owner, lost: () => held.lost(), setupOf, threads })
      .catch((err: unknown) => deps.log(`evaluation ${job.callId}: ${(err as Error).message}`))
      .finally(() => {
        held.release();
        active.delete(run);
        pump();
      });
    active.add(run);
  }

  /** Fills the pool, one fill at a time: asked during one, it fills once more after it. */
  function pump(): void {
    if (!on()) return;
    if (filling) {
      again = true;
      return;
    }
    filling = fill()
      .catch((err: unknown) => deps.log(`the evaluation queue failed: ${(err as Error).message}`))
      .finally(() => {
        filling = null;
        if (again) {
          again = false;
          pump();
        }
      });
  }

  return {
    async start(): Promise<void> {
      await leases.start();
      started = true;
      pump();
    },
    /** Calls were queued (a sync, a backfill, an evaluate): claim them now. */
    enqueued: pump,
    /** Until the queue is empty here and nothing runs (tests and benchmarks). */
    async idle(): Promise<void> {
      for (;;) {
        await filling;
        if (active.size) await Promise.allSettled([...active]);
        else if (!filling) return;
      }
    },
    /** Jobs this process scores now. */
    inFlight: (): number => active.size,
    /** Bytes of JavaScript heap the scoring threads use (after a full collection where allowed). */
    threadsHeapUsed: (): Promise<number> => threads.heapUsed(),
    /** After `deps.stopping` was aborted: waits for the pool and hands leases back. */
    async stop(): Promise<void> {
      started = false;
      await filling;
      await Promise.allSettled([...active]);
      await leases.stop();
      await threads.close();
    },
  };
}

export type CallEvaluator = ReturnType<typeof createCallEvaluator>;
