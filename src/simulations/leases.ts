import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { AttemptLimit, EndedHere, Lease } from '../domain/simulation-queue.js';
import type { Store } from '../store/index.js';
import { createBackoff } from './backoff.js';

/*
 * The simulation queue's rules, all here: a claim's lease and its token, how often it is renewed,
 * when it has lapsed, how many runs a simulation gets, and how the simulations of a server that
 * died (or of the last run, alone on SQLite) are taken back. The store holds only their SQL.
 */

export interface LeaseOptions {
  store: Store;
  /** How long a claim holds without renewal; renewed every sixth of it (default 30 s). */
  leaseMs?: number;
  /**
   * Whether other servers share the store (PostgreSQL): then leases are renewed, lapsed ones are
   * taken back, and the queue is polled for work enqueued elsewhere.
   */
  shared: boolean;
  /** Asked to claim more work: on each poll, and when lapsed simulations came back to the queue. */
  pump: () => void;
  /** Simulations the housekeeping ended (failed after three servers died, or cancelled). */
  ended: (sims: EndedHere[]) => void;
  log: (message: string) => void;
}

/** One claimed simulation as its runner holds it. */
export interface HeldLease {
  /** Aborts when the lease is lost: the simulation was taken back and may run elsewhere. */
  readonly signal: AbortSignal;
  lost(): boolean;
  release(): void;
}

const DEFAULT_LEASE_MS = 30_000;
/** Work enqueued by another server is found within this long. */
const POLL_MS = 1_000;
/** Runs of one simulation before it fails: a simulation that kills its server is not run forever. */
const MAX_ATTEMPTS = 3;
/** A lapsed lease: its server died (or lost the database) while running it. */
const LAPSED: AttemptLimit = {
  maxAttempts: MAX_ATTEMPTS,
  error: 'its server stopped three times while running it',
};
/** Alone on the store: the last stop or crash interrupted it. */
const INTERRUPTED: AttemptLimit = { maxAttempts: MAX_ATTEMPTS, error: 'interrupted three times' };

/**
 * Running simulations whose lease lapsed go back to the queue, or fail after their last attempt,
 * or end cancelled with their execution.
 */
export const requeueLapsed = (store: Store, at: string) =>
  store.simulations.requeueLapsed(at, LAPSED);

/**
 * Alone on its store (SQLite, the data dir locked), a running simulation is one the last stop
 * interrupted: it runs again from the start, unless that was its last attempt.
 */
export const recoverInterrupted = (store: Store, at: string) =>
  store.simulations.recover(at, INTERRUPTED);

/** Alone on the store: what the last stop interrupted runs again, said in the log. */
async function recoverAlone(store: Store, at: string, log: (message: string) => void) {
  const recovered = await recoverInterrupted(store, at);
  if (recovered) log(`${recovered} simulation(s) interrupted by the last stop will run again`);
}

/** Sharing the store: what servers that stopped left running is taken back, and said. */
async function takeBackLapsed(options: LeaseOptions): Promise<void> {
  const { store, log } = options;
  const { requeued, ended } = await requeueLapsed(store, new Date().toISOString());
  if (requeued) log(`${requeued} simulation(s) of a server that stopped will run again`);
  const failed = ended.filter((e) => e.status === 'failed').length;
  if (failed) log(`${failed} simulation(s) failed: their servers stopped three times`);
  if (ended.length) options.ended(ended);
  if (requeued) options.pump();
}

/**
 * Runs a periodic task. A failure (the database unreachable) is said, and the task waits ever
 * longer before its next try, until one succeeds.
 */
function repeatWithBackoff(p: {
  ms: number;
  task: () => Promise<void> | void;
  what: string;
  log: (message: string) => void;
  /** The longest wait after failures (default 30 s). */
  maxMs?: number;
}): NodeJS.Timeout {
  let running = false;
  const backoff = createBackoff(p.ms, p.maxMs);
  const timer = setInterval(() => {
    if (running || backoff.waiting()) return;
    running = true;
    Promise.resolve()
      .then(p.task)
      .then(
        () => backoff.succeeded() && p.log(`${p.what}: works again`),
        (err: unknown) => {
          const wait = backoff.failed();
          p.log(`${p.what} failed (${(err as Error).message}); trying again in ${wait / 1000} s`);
        },
      )
      .finally(() => (running = false));
  }, p.ms);
  timer.unref();
  return timer;
}

/**
 * The leases under which this runner holds its simulations. A server that dies stops renewing;
 * once its leases lapse, any server puts those simulations back in the queue, and the dead one
 * could not record a result even if it came back (results are recorded only under a held lease).
 * A runner that finds a lease lost stops that simulation at once.
 */
export function createLeases(options: LeaseOptions) {
  const { store, shared, log } = options;
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  // Every claim's token starts with this server's prefix: a stop hands back all of its own.
  const prefix = `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}/`;
  let claims = 0;
  const held = new Map<string, { owner: string; controller: AbortController }>();
  const timers: NodeJS.Timeout[] = [];
  let renewedAt = Date.now();

  /** Stops the runs whose claims no longer hold (or whose holding cannot be known). */
  const stopRuns = (ids: Iterable<string>, why: string) => {
    for (const id of ids) {
      const run = held.get(id);
      if (!run || run.controller.signal.aborted) continue;
      log(`simulation ${id}: ${why}; stopping it here`);
      run.controller.abort();
    }
  };

  async function renew(): Promise<void> {
    const claimsNow = [...held].map(([id, run]) => ({ id, owner: run.owner, run }));
    let kept: Set<string>;
    try {
      kept = await store.simulations.renewLeases(claimsNow, leaseMs);
    } catch (err) {
      // Unrenewed past the lease, another server may run them now: this one must not go on.
      if (Date.now() - renewedAt > leaseMs)
        stopRuns(held.keys(), 'its lease could not be renewed in time');
      throw err;
    }
    renewedAt = Date.now();
    // A run that ended meanwhile is no longer held: only runs still held under this claim stop.
    const lost = claimsNow.filter((c) => !kept.has(c.id) && held.get(c.id) === c.run);
    stopRuns(
      lost.map((c) => c.id),
      'its lease was lost (taken back, or ended elsewhere)',
    );
  }

  const every = (ms: number, task: () => Promise<void> | void, what: string, maxMs?: number) =>
    timers.push(repeatWithBackoff({ ms, task, what, log, maxMs }));

  return {
    /** A new claim's lease: a token of its own, under this server's prefix. */
    claim: (): Lease => ({ owner: `${prefix}${++claims}`, ms: leaseMs }),
    hold(id: string, owner: string): HeldLease {
      // Still held under an older claim: that run lost its lease and must not go on beside this.
      stopRuns([id], 'it was claimed again');
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
    /**
     * Alone on the store, takes back what the last stop interrupted (before anything is claimed,
     * or a claim would be taken for one); sharing it, starts renewing, taking back and polling.
     */
    async start(at: string): Promise<void> {
      if (!shared) return recoverAlone(store, at, log);
      renewedAt = Date.now();
      // Retries after failures stay well inside the lease, so a short outage does not cost it.
      every(leaseMs / 6, renew, 'renewing simulation leases', leaseMs / 3);
      every(
        leaseMs / 6,
        () => takeBackLapsed(options),
        'taking back simulations of stopped servers',
      );
      every(POLL_MS, options.pump, 'polling the simulation queue');
    },
    /** Stops renewing; on a shared store, what was still running goes back to the queue now. */
    async stop(): Promise<void> {
      for (const timer of timers.splice(0)) clearInterval(timer);
      if (!shared) return;
      const at = new Date().toISOString();
      const released = await store.simulations.releaseLeases(prefix, at).catch((err: unknown) => {
        log(
          `could not hand back running simulations (${(err as Error).message}); they run again once their leases lapse`,
        );
        return 0;
      });
      if (released)
        log(`${released} simulation(s) interrupted by this stop went back to the queue`);
    },
  };
}

export type Leases = ReturnType<typeof createLeases>;
