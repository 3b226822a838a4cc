/** Shapes the simulation queue's rules (simulations/leases.ts) and its SQL (the store) share. */

/**
 * One claim of a simulation: its token (unique to the claim, so a server that lost a claim and
 * claimed the simulation again cannot renew or record the old run), and how long it holds
 * unless renewed, timed by the database's clock.
 */
export interface Lease {
  owner: string;
  ms: number;
}

/** A simulation ended by the queue's housekeeping rather than by its run. */
export interface EndedHere {
  id: string;
  execution_id: string;
  status: 'failed' | 'cancelled';
}

/** When taking a simulation back fails it instead of queueing it again, and what it then says. */
export interface AttemptLimit {
  /** Runs begun (claims) at which a simulation cut short fails rather than runs again. */
  maxAttempts: number;
  /** Its `error` once it fails so. */
  error: string;
}
