import type { AttemptLimit, EndedHere, Lease } from '../domain/simulation-queue.js';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { SIM, SIM_COLUMNS, SIM_FIELDS, type Simulation } from './simulation-rows.js';
import type { StoreContext } from './sql/query.js';
import type { Tables } from './sql/tables.js';

/** A claimed simulation: the record, with the workspace it runs in and the runs begun so far. */
type Claimed = Simulation & { workspace_id: string; attempts: number };
type ClaimRow = Record<string, unknown> & { id: string; workspace_id: string; attempts: number };

const claimed = SIM.reader<Claimed>(SIM_FIELDS, ['workspace_id', 'attempts']);

/** Running simulations of cancelled executions (those `which` also holds for) end cancelled now. */
async function endCancelled(
  tx: Kysely<Tables>,
  at: string,
  which: RawBuilder<boolean>,
): Promise<{ id: string; execution_id: string }[]> {
  return tx
    .updateTable('simulations')
    .set({ status: 'cancelled', ended_at: at, lease_owner: null })
    .where('status', '=', 'running')
    .where(which)
    .where('execution_id', 'in', (q) =>
      q.selectFrom('executions').select('id').where('cancelled_at', 'is not', null),
    )
    .returning(['id', 'execution_id'])
    .execute();
}

/** The work queue: claiming simulations and keeping them claimed. */
function simulationQueue(ctx: StoreContext) {
  return {
    /**
     * Takes the oldest queued simulation and marks it running under the caller's lease (one
     * transaction: never twice). On PostgreSQL the row is locked as it is picked, and a row
     * another server is claiming is skipped for the next one.
     */
    claim(at: string, lease: Lease): Promise<Claimed | undefined> {
      return ctx.atomic(async (tx) => {
        const { rows } = await sql<ClaimRow>`SELECT ${SIM_COLUMNS}, s.attempts, s.workspace_id
          FROM simulations s
          WHERE s.status = 'queued' ORDER BY s.seq LIMIT 1 ${ctx.dialect.forUpdateSkipLocked()}`.execute(
          tx,
        );
        const row = rows[0];
        if (!row) return undefined;
        await tx
          .updateTable('simulations')
          .set({
            status: 'running',
            started_at: at,
            attempts: sql`attempts + 1`,
            lease_owner: lease.owner,
            lease_until_ms: sql`${ctx.dialect.nowMs()} + ${lease.ms}`,
          })
          .where('id', '=', row.id)
          .execute();
        return claimed(
          { ...row, status: 'running', started_at: at },
          row.workspace_id,
          row.attempts + 1,
        );
      });
    },
    /**
     * Extends these claims of running simulations by `ms`; answers the ids whose claim still
     * holds (one missing was taken back after its lease lapsed, or ended by a cancel).
     */
    async renewLeases(claims: { id: string; owner: string }[], ms: number): Promise<Set<string>> {
      const kept = new Set<string>();
      // One short UPDATE per claim: a server holds a handful, renewed every few seconds.
      for (const c of claims) {
        const row = await ctx.db
          .updateTable('simulations')
          .set({ lease_until_ms: sql`${ctx.dialect.nowMs()} + ${ms}` })
          .where('id', '=', c.id)
          .where('lease_owner', '=', c.owner)
          .where('status', '=', 'running')
          .returning('id')
          .executeTakeFirst();
        if (row) kept.add(row.id);
      }
      return kept;
    },
  };
}

/** Taking simulations back from servers that stopped while running them. */
function simulationRecovery(ctx: StoreContext) {
  return {
    /**
     * A server stopping in good order hands back the simulations it was running: they go back to
     * the queue at once for another server, without counting the attempt it could not finish.
     */
    async releaseLeases(ownerPrefix: string, at: string): Promise<number> {
      const owned = sql<boolean>`substr(lease_owner, 1, ${ownerPrefix.length}) = ${ownerPrefix}`;
      return ctx.atomic(async (tx) => {
        // Those of a cancelled execution end cancelled: running them again would undo the cancel.
        await endCancelled(tx, at, owned);
        const result = await tx
          .updateTable('simulations')
          .set({
            status: 'queued',
            started_at: null,
            turns: '[]',
            lease_owner: null,
            attempts: sql`attempts - 1`,
          })
          .where('status', '=', 'running')
          .where(owned)
          .executeTakeFirst();
        return Number(result.numUpdatedRows);
      });
    },
    /**
     * Running simulations whose lease lapsed (their server died) go back to the queue, to run
     * again from the start; those that reached the limit's attempts fail instead, and those of a
     * cancelled execution end cancelled. Answers which ended, for who listens.
     */
    requeueLapsed(
      at: string,
      limit: AttemptLimit,
    ): Promise<{ requeued: number; ended: EndedHere[] }> {
      return ctx.atomic(async (tx) => {
        // No lease at all: running since before leases were recorded (an upgrade), or left by a
        // crash of a build without them; nobody holds it.
        const lapsed = sql<boolean>`(lease_until_ms < ${ctx.dialect.nowMs()} OR lease_until_ms IS NULL)`;
        const cancelled = await endCancelled(tx, at, lapsed);
        const failed = await tx
          .updateTable('simulations')
          .set({
            status: 'failed',
            ended_at: at,
            end_reason: 'error',
            error: limit.error,
            lease_owner: null,
          })
          .where('status', '=', 'running')
          .where(lapsed)
          .where('attempts', '>=', limit.maxAttempts)
          .returning(['id', 'execution_id'])
          .execute();
        const requeued = await tx
          .updateTable('simulations')
          .set({ status: 'queued', started_at: null, turns: '[]', lease_owner: null })
          .where('status', '=', 'running')
          .where(lapsed)
          .executeTakeFirst();
        return {
          requeued: Number(requeued.numUpdatedRows),
          ended: [
            ...cancelled.map((r) => ({ ...r, status: 'cancelled' as const })),
            ...failed.map((r) => ({ ...r, status: 'failed' as const })),
          ],
        };
      });
    },
  };
}

/** Taking simulations back after a crash of the only server (SQLite, its data dir locked). */
function crashRecovery(ctx: StoreContext) {
  return {
    /**
     * Alone on the store after a crash: every running simulation starts again from the start,
     * unless it reached the limit's attempts (then it fails).
     */
    recover(at: string, limit: AttemptLimit): Promise<number> {
      return ctx.atomic(async (tx) => {
        await endCancelled(tx, at, sql<boolean>`1 = 1`);
        await tx
          .updateTable('simulations')
          .set({
            status: 'failed',
            ended_at: at,
            end_reason: 'error',
            error: limit.error,
          })
          .where('status', '=', 'running')
          .where('attempts', '>=', limit.maxAttempts)
          .execute();
        const requeued = await tx
          .updateTable('simulations')
          .set({ status: 'queued', started_at: null, turns: '[]' })
          .where('status', '=', 'running')
          .executeTakeFirst();
        return Number(requeued.numUpdatedRows);
      });
    },
  };
}

/**
 * The persistent work queue's SQL: queued simulations claimed under leases, and those whose runs
 * were cut short taken back. When and how often is decided by simulations/leases.ts.
 */
export function createSimulationQueue(ctx: StoreContext) {
  return { ...simulationQueue(ctx), ...simulationRecovery(ctx), ...crashRecovery(ctx) };
}
