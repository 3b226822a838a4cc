import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Store } from '../store/index.js';
import type { Lease } from '../store/simulations.js';
import { createBackoff } from './backoff.js';

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

/**
 * Runs a periodic task. A failure (the database unreachable) is said, and the task waits ever
 * longer before its next try, until one succeeds.
 */
function repeatWithBackoff(p: {
  ms: number;
  task: () => Promise<void> | void;
  what: string;
  log: (message: string) => void;
}): NodeJS.Timeout {
  let running = false;
  const backoff = createBackoff(p.ms);
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
  const owner = `${hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`;
  const held = new Map<string, AbortController>();
  const timers: NodeJS.Timeout[] = [];
  const lease = (): Lease => ({ owner, untilMs: Date.now() + leaseMs });

  async function renew(): Promise<void> {
    const ids = [...held.keys()];
    const kept = await store.simulations.renewLeases(lease(), ids);
    for (const id of ids) {
      const controller = held.get(id);
      if (kept.has(id) || !controller || controller.signal.aborted) continue;
      log(
        `simulation ${id}: its lease was lost (taken back, or ended elsewhere); stopping it here`,
      );
      controller.abort();
    }
  }

  async function takeBackLapsed(): Promise<void> {
    const { requeued, failed } = await store.simulations.requeueLapsed(
      Date.now(),
      new Date().toISOString(),
    );
    if (requeued) log(`${requeued} simulation(s) of a server that stopped will run again`);
    if (failed) log(`${failed} simulation(s) failed: their servers stopped three times`);
    if (requeued) options.pump();
  }

  const every = (ms: number, task: () => Promise<void> | void, what: string) =>
    timers.push(repeatWithBackoff({ ms, task, what, log }));

  return {
    owner,
    lease,
    hold(id: string): HeldLease {
      const controller = new AbortController();
      held.set(id, controller);
      return {
        signal: controller.signal,
        lost: () => controller.signal.aborted,
        release: () => {
          if (held.get(id) === controller) held.delete(id);
        },
      };
    },
    start(): void {
      if (!shared) return;
      every(leaseMs / 6, renew, 'renewing simulation leases');
      every(leaseMs / 6, takeBackLapsed, 'taking back simulations of stopped servers');
      every(POLL_MS, options.pump, 'polling the simulation queue');
    },
    /** Stops renewing; on a shared store, what was still running goes back to the queue now. */
    async stop(): Promise<void> {
      for (const timer of timers.splice(0)) clearInterval(timer);
      if (!shared) return;
      const released = await store.simulations.releaseLeases(owner).catch((err: unknown) => {
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
