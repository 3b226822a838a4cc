import { sql } from 'kysely';
import type { CallEvaluation } from '../domain/monitoring.js';
import { createEvaluationQueue } from './evaluation-jobs.js';
import { evaluationRow, fromRow, type StoredEvaluation } from './evaluation-rows.js';
import type { StoreContext } from './sql/query.js';

export type { CallEvaluation, StoredEvaluation };
export { evaluationOf } from './evaluation-rows.js';

/** Ids looked up in one `IN` list. */
const CHUNK = 500;

/** Evaluations of imported calls: one per call, read by call, by page of calls, or by agent. */
function evaluationReads(ctx: StoreContext) {
  return {
    async get(callId: string): Promise<StoredEvaluation | undefined> {
      const row = await ctx.db
        .selectFrom('call_evaluations')
        .selectAll()
        .where('call_id', '=', callId)
        .executeTakeFirst();
      return row && fromRow(row);
    },
    /** The evaluations of these calls, by call id (a call without one is absent). */
    async forCalls(callIds: string[]): Promise<Map<string, StoredEvaluation>> {
      const found = new Map<string, StoredEvaluation>();
      for (let i = 0; i < callIds.length; i += CHUNK) {
        const ids = callIds.slice(i, i + CHUNK);
        const rows = await ctx.db
          .selectFrom('call_evaluations')
          .selectAll()
          .where('call_id', 'in', ids)
          .execute();
        for (const r of rows) found.set(r.call_id, fromRow(r));
      }
      return found;
    },
    /**
     * The agent's evaluations of calls started in [from, to) (ISO times; either may be left out),
     * with this scorecard when given, oldest call first (undated calls last).
     */
    async listForAgent(
      agentId: string,
      window: { from?: string; to?: string; scorecardId?: string } = {},
    ): Promise<StoredEvaluation[]> {
      let q = ctx.db.selectFrom('call_evaluations').selectAll().where('agent_id', '=', agentId);
      if (window.from) q = q.where('call_started_at', '>=', window.from);
      if (window.to) q = q.where('call_started_at', '<', window.to);
      if (window.scorecardId) q = q.where('scorecard_id', '=', window.scorecardId);
      const rows = await q
        .orderBy(sql`call_started_at IS NULL`)
        .orderBy('call_started_at')
        .orderBy('call_id')
        .execute();
      return rows.map(fromRow);
    },
    /** Stores the call's evaluation, replacing the one it had. */
    async upsert(e: StoredEvaluation): Promise<void> {
      const { call_id: _id, ...rest } = evaluationRow(e);
      await ctx.db
        .insertInto('call_evaluations')
        .values(evaluationRow(e))
        .onConflict((oc) => oc.column('call_id').doUpdateSet(rest))
        .execute();
    },
  };
}

/** A call as the backfill weighs it: what the sample rule reads, and whether it is scored. */
export interface BackfillCandidate {
  id: string;
  providerCallId: string;
  successful: boolean | null;
  durationMs: number | null;
  startedAt: string | null;
  endedAt: string | null;
  providerError: boolean;
  /** It has an evaluation, or a job waiting or running. */
  covered: boolean;
}

/** The agent's newest calls, as the backfill weighs them. */
function backfillReads(ctx: StoreContext) {
  return {
    /** The agent's newest `limit` calls started at or after `sinceMs` (any start when null). */
    async backfillCandidates(
      agentId: string,
      p: { limit: number; sinceMs: number | null },
    ): Promise<BackfillCandidate[]> {
      const since = p.sinceMs === null ? sql`` : sql`AND c.started_ms >= ${p.sinceMs}`;
      const { rows } = await sql<{
        id: string;
        provider_call_id: string;
        successful: number | null;
        duration_ms: number | null;
        started_at: string | null;
        ended_at: string | null;
        provider_error: number;
        covered: number;
      }>`SELECT c.id, c.provider_call_id, c.successful, c.duration_ms, c.started_at, c.ended_at,
          CASE WHEN EXISTS (SELECT 1 FROM agent_errors e WHERE e.agent_id = c.agent_id
            AND e.call_id = c.id AND e.kind = 'call_error') THEN 1 ELSE 0 END AS provider_error,
          CASE WHEN EXISTS (SELECT 1 FROM call_evaluations v WHERE v.call_id = c.id)
            OR EXISTS (SELECT 1 FROM evaluation_jobs j WHERE j.call_id = c.id
              AND j.status <> 'failed') THEN 1 ELSE 0 END AS covered
        FROM calls c WHERE c.agent_id = ${agentId} ${since}
        ORDER BY c.started_ms DESC NULLS LAST, c.id DESC LIMIT ${p.limit}`.execute(ctx.db);
      return rows.map((r) => ({
        id: r.id,
        providerCallId: r.provider_call_id,
        successful: r.successful === null ? null : Number(r.successful) === 1,
        durationMs: r.duration_ms === null ? null : Number(r.duration_ms),
        startedAt: r.started_at,
        endedAt: r.ended_at,
        providerError: Number(r.provider_error) === 1,
        covered: Number(r.covered) === 1,
      }));
    },
  };
}

/** Evaluations of imported calls, and the queue of calls waiting to be scored. */
export function createCallEvaluationStore(ctx: StoreContext) {
  return { ...evaluationReads(ctx), ...backfillReads(ctx), ...createEvaluationQueue(ctx) };
}

export type CallEvaluationStore = ReturnType<typeof createCallEvaluationStore>;
