import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { AttemptLimit, Lease } from '../domain/simulation-queue.js';
import type { Store } from '../store/index.js';
import type { HeldLease } from './leases.js';

/*
 * The evaluation queue's rules, as the simulation queue's (leases.ts): a claim's lease and token,
 * its renewal every sixth of the lease, three runs per job, and the jobs of a worker that died (or,
 * alone on SQLite, of the last run) taken back. The store holds only their SQL.
 */

export interface EvaluationLeaseOptions {
  store: Store;
  /** How long a claim holds without renewal (default 30 s). */
  leaseMs?: number;
  /** Other servers share the store (PostgreSQL): renew, take back lapsed jobs, poll. */
  shared: boolean;
  /** Asked to claim more work: on each poll, and when lapsed jobs came back to the queue. */
  pump: () => void;
  log: (message: string) => void;
}

const DEFAULT_LEASE_MS = 30_000;
const POLL_MS = 1_000;
const LAPSED: AttemptLimit = {
  maxAttempts: 3,
  error: 'its worker stopped three times while scoring it',
};
const INTERRUPTED: AttemptLimit = { maxAttempts: 3, error: 'interrupted three times' };
/** Scoring that failed (the scorecard deleted, say): tried three times, then failed. */
export const JOB_ATTEMPTS: AttemptLimit = { maxAttempts: 3, error: 'failed three times' };

/** A periodic task; a failure is said, and the next tick tries again. */
function every(
  ms: number,
  task: () => Promise<unknown> | void,
  what: string,
  log: EvaluationLeaseOptions['log'],
) {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    Promise.resolve()
      .then(task)
      .catch((err: unknown) => log(`${what} failed: ${(err as Error).message}`))
      .finally(() => (running = false));
  }, ms);
  timer.unref();
  return timer;
}

/**
 * The leases this process holds its evaluation jobs under. A worker that dies stops renewing; once
 * its leases lapse, any worker queues those jobs again, and the dead one could not record an
 * evaluation if it came back (recorded only under a held lease).
 */
export function createEvaluationLeases(options: EvaluationLeaseOptions) {
  const { store, shared, log } = options;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const prefix = `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}/eval/`;
  let claims = 0;
  const held = new Map<string, { owner: string; controller: AbortController }>();
  const timers: NodeJS.Timeout[] = [];

  async function renew(): Promise<void> {
    const now = [...held].map(([id, run]) => ({ id, owner: run.owner, run }));
    const kept = await store.callEvaluations.renewJobLeases(now, leaseMs);
    for (const c of now)
      if (!kept.has(c.id) && held.get(c.id) === c.run) {
        log(`evaluation of call ${c.id}: its lease was lost; stopping it here`);
        c.run.controller.abort();
      }
  }

  async function takeBack(): Promise<void> {
    const { requeued, failed } = await store.callEvaluations.requeueLapsedJobs(LAPSED);
    if (requeued) log(`${requeued} evaluation(s) of a worker that stopped will run again`);
    if (failed) log(`${failed} evaluation(s) failed: their workers stopped three times`);
    if (requeued) options.pump();
  }

  return {
    claim: (): Lease => ({ owner: `${prefix}${++claims}`, ms: leaseMs }),
    hold(id: string, owner: string): HeldLease {
      held.get(id)?.controller.abort();
      const run = { owner, controller: new AbortController() };
      held.set(id, run);
      return {
        signal: run.controller.signal,
        lost: () => run.controller.signal.aborted,
        release: () => {
          if (held.get(id) === run) held.delete(id);
        },
      };
    },
    /** Alone, takes back what the last stop interrupted; sharing, renews, takes back and polls. */
    async start(): Promise<void> {
      if (!shared) {
        const { requeued } = await store.callEvaluations.recoverJobs(INTERRUPTED);
        if (requeued) log(`${requeued} evaluation(s) interrupted by the last stop will run again`);
        return;
      }
      timers.push(every(leaseMs / 6, renew, 'renewing evaluation leases', log));
      timers.push(every(leaseMs / 6, takeBack, 'taking back evaluations of stopped workers', log));
      timers.push(every(POLL_MS, options.pump, 'polling the evaluation queue', log));
    },
    /** Stops renewing; sharing the store, what was still running goes back to the queue now. */
    async stop(): Promise<void> {
      for (const timer of timers.splice(0)) clearInterval(timer);
      if (!shared) return;
      const released = await store.callEvaluations
        .releaseJobLeases(prefix)
        .catch((err: unknown) => {
          log(`could not hand back running evaluations (${(err as Error).message})`);
          return 0;
        });
      if (released)
        log(`${released} evaluation(s) interrupted by this stop went back to the queue`);
    },
  };
}

export type EvaluationLeases = ReturnType<typeof createEvaluationLeases>;
