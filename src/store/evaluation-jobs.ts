import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { EvaluationReason } from '../domain/monitoring.js';
import type { AttemptLimit, Lease } from '../domain/simulation-queue.js';
import type { StoreContext } from './sql/query.js';
import type { Tables } from './sql/tables.js';
import { evaluationRow, type StoredEvaluation } from './evaluation-rows.js';

/** A call to score, as queued. */
export interface EvaluationJob {
  callId: string;
  agentId: string;
  reason: EvaluationReason;
}

/** A claimed job: the call, why, and the runs begun so far (this one included). */
export type ClaimedJob = EvaluationJob & { attempts: number };

/** Job rows one multi-row INSERT writes (5 values each). */
const CHUNK = 500;

/** Running jobs whose lease lapsed: their worker died, or lost the database, while scoring. */
const lapsed = (ctx: StoreContext) =>
  sql<boolean>`(lease_until_ms < ${ctx.dialect.nowMs()} OR lease_until_ms IS NULL)`;

/**
 * Ends the running jobs `which` picks: failed at the limit's attempts, queued again before it.
 * `refund` hands the attempt back (a stop in good order did not spend it). Answers how many.
 */
async function takeBack(
  tx: Kysely<Tables>,
  which: RawBuilder<boolean>,
  p: { limit: AttemptLimit | null; refund: boolean },
): Promise<{ requeued: number; failed: number }> {
  let failed = 0;
  if (p.limit) {
    const ended = await tx
      .updateTable('evaluation_jobs')
      .set({ status: 'failed', lease_owner: null, error: p.limit.error })
      .where('status', '=', 'running')
      .where(which)
      .where('attempts', '>=', p.limit.maxAttempts)
      .executeTakeFirst();
    failed = Number(ended.numUpdatedRows);
  }
  const requeued = await tx
    .updateTable('evaluation_jobs')
    .set({
      status: 'queued',
      lease_owner: null,
      ...(p.refund ? { attempts: sql`attempts - 1` } : {}),
    })
    .where('status', '=', 'running')
    .where(which)
    .executeTakeFirst();
  return { requeued: Number(requeued.numUpdatedRows), failed };
}

/** Queueing calls to score. */
function enqueueing(ctx: StoreContext) {
  return {
    /**
     * Queues these calls; one already queued or running stays as it is, unless `again` (asked to
     * score it now): then a queued or failed job takes this reason and runs afresh. Answers how
     * many were queued.
     */
    async enqueue(jobs: EvaluationJob[], at: string, again = false): Promise<number> {
      let queued = 0;
      for (let i = 0; i < jobs.length; i += CHUNK) {
        const rows = jobs.slice(i, i + CHUNK).map((j) => ({
          call_id: j.callId,
          agent_id: j.agentId,
          reason: j.reason,
          status: 'queued',
          created_at: at,
        }));
        const added = await ctx.db
          .insertInto('evaluation_jobs')
          .values(rows)
          .onConflict((oc) =>
            again
              ? oc
                  .column('call_id')
                  .doUpdateSet((eb) => ({
                    reason: eb.ref('excluded.reason'),
                    status: 'queued',
                    attempts: 0,
                    error: null,
                  }))
                  .where('evaluation_jobs.status', '<>', 'running')
              : oc.column('call_id').doNothing(),
          )
          .returning('call_id')
          .execute();
        queued += added.length;
      }
      return queued;
    },
    /** Jobs not yet ended (queued or running), of one agent or of all. */
    async pending(agentId?: string): Promise<number> {
      let q = ctx.db
        .selectFrom('evaluation_jobs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('status', 'in', ['queued', 'running']);
      if (agentId) q = q.where('agent_id', '=', agentId);
      return Number((await q.executeTakeFirstOrThrow()).n);
    },
    /** A job's state (tests and the evaluate operation), or undefined when it has none. */
    async job(callId: string) {
      return ctx.db
        .selectFrom('evaluation_jobs')
        .select(['status', 'reason', 'attempts', 'error', 'lease_owner'])
        .where('call_id', '=', callId)
        .executeTakeFirst();
    },
  };
}

/** Claiming jobs, keeping them claimed, and recording what they scored. */
function claiming(ctx: StoreContext) {
  return {
    /**
     * Takes the oldest queued jobs, up to `max`, under one lease (one transaction: never twice). On
     * PostgreSQL the rows are locked as they are picked; rows another worker is claiming are
     * skipped for the next ones.
     */
    claimJobs(lease: Lease, max: number): Promise<ClaimedJob[]> {
      return ctx.atomic(async (tx) => {
        const { rows } = await sql<{
          call_id: string;
          agent_id: string;
          reason: string;
          attempts: number;
        }>`SELECT call_id, agent_id, reason, attempts FROM evaluation_jobs
          WHERE status = 'queued' ORDER BY rowid LIMIT ${max} ${ctx.dialect.forUpdateSkipLocked()}`.execute(
          tx,
        );
        if (rows.length === 0) return [];
        await tx
          .updateTable('evaluation_jobs')
          .set({
            status: 'running',
            attempts: sql`attempts + 1`,
            lease_owner: lease.owner,
            lease_until_ms: sql`${ctx.dialect.nowMs()} + ${lease.ms}`,
          })
          .where(
            'call_id',
            'in',
            rows.map((r) => r.call_id),
          )
          .execute();
        return rows.map((row) => ({
          callId: row.call_id,
          agentId: row.agent_id,
          reason: row.reason as EvaluationReason,
          attempts: Number(row.attempts) + 1,
        }));
      });
    },
    /** Extends these claims by `ms`; answers the call ids whose claim still holds. */
    async renewJobLeases(claims: { id: string; owner: string }[], ms: number) {
      const kept = new Set<string>();
      for (const c of claims) {
        const row = await ctx.db
          .updateTable('evaluation_jobs')
          .set({ lease_until_ms: sql`${ctx.dialect.nowMs()} + ${ms}` })
          .where('call_id', '=', c.id)
          .where('lease_owner', '=', c.owner)
          .where('status', '=', 'running')
          .returning('call_id')
          .executeTakeFirst();
        if (row) kept.add(row.call_id);
      }
      return kept;
    },
    /**
     * Records the evaluation of a job still held under `owner`, and ends the job, together.
     * False when the claim no longer holds (taken back after its lease lapsed): nothing is written,
     * so a call is scored into its evaluation once.
     */
    finishJob(owner: string, evaluation: StoredEvaluation): Promise<boolean> {
      return ctx.atomic(async (tx) => {
        const ended = await tx
          .deleteFrom('evaluation_jobs')
          .where('call_id', '=', evaluation.callId)
          .where('lease_owner', '=', owner)
          .where('status', '=', 'running')
          .executeTakeFirst();
        if (Number(ended.numDeletedRows) === 0) return false;
        const { call_id: _id, ...rest } = evaluationRow(evaluation);
        await tx
          .insertInto('call_evaluations')
          .values(evaluationRow(evaluation))
          .onConflict((oc) => oc.column('call_id').doUpdateSet(rest))
          .execute();
        return true;
      });
    },
  };
}

/** Taking jobs back from workers that stopped or died while scoring. */
function recovery(ctx: StoreContext) {
  return {
    /** A job that could not be scored: queued again, or failed at the limit's attempts. */
    async failJob(callId: string, owner: string, p: { limit: AttemptLimit; error: string }) {
      await ctx.db
        .updateTable('evaluation_jobs')
        .set({
          status: sql`CASE WHEN attempts >= ${p.limit.maxAttempts} THEN 'failed' ELSE 'queued' END`,
          lease_owner: null,
          error: p.error.slice(0, 1_000),
        })
        .where('call_id', '=', callId)
        .where('lease_owner', '=', owner)
        .where('status', '=', 'running')
        .execute();
    },
    /** Jobs whose lease lapsed go back to the queue, or fail at the limit's attempts. */
    requeueLapsedJobs(limit: AttemptLimit) {
      return ctx.atomic((tx) => takeBack(tx, lapsed(ctx), { limit, refund: false }));
    },
    /** A worker stopping in good order hands back its running jobs, the attempt refunded. */
    async releaseJobLeases(ownerPrefix: string): Promise<number> {
      const owned = sql<boolean>`substr(lease_owner, 1, ${ownerPrefix.length}) = ${ownerPrefix}`;
      const { requeued } = await ctx.atomic((tx) =>
        takeBack(tx, owned, { limit: null, refund: true }),
      );
      return requeued;
    },
    /** Alone on the store (SQLite): every running job was interrupted by the last stop. */
    recoverJobs(limit: AttemptLimit) {
      return ctx.atomic((tx) => takeBack(tx, sql<boolean>`1 = 1`, { limit, refund: false }));
    },
  };
}

/** The evaluation queue's SQL; when and how often is decided by simulations/call-evaluator.ts. */
export function createEvaluationQueue(ctx: StoreContext) {
  return { ...enqueueing(ctx), ...claiming(ctx), ...recovery(ctx) };
}
