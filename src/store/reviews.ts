import { sql, type Insertable } from 'kysely';
import type { JudgeSnapshot } from '../domain/calibration.js';
import type { ReviewRecord } from '../domain/reviews.js';
import { recordColumns } from './record-columns.js';
import { createReviewCalibration } from './review-calibration.js';
import { pageOf, type StoreContext } from './sql/query.js';
import type { Reviews } from './sql/tables.js';

export type { ReviewRecord };

/** A label's columns in the `reviews` table (besides `workspace_id`), in answer order. */
const COLUMNS = recordColumns<ReviewRecord>({
  id: { column: 'id' },
  scorecardId: { column: 'scorecard_id' },
  metricId: { column: 'metric_id' },
  target: { columns: { kind: 'target_kind', id: 'target_id' } },
  verdict: { column: 'verdict' },
  note: { column: 'note' },
  reviewer: { columns: { id: 'reviewer_id', name: 'reviewer_name' } },
  created_at: { column: 'created_at' },
  updated_at: { column: 'updated_at' },
});

const SELECT = sql.raw(COLUMNS.selectList('r', Object.keys(COLUMNS.fields)));
const verdictColumns = (v: LabelledVerdict) => ({
  judge_passed: v.passed === null ? null : Number(v.passed),
  judge_model: v.judgeModel,
  rubric_hash: v.rubricHash,
  judged_at: v.judgedAt,
});

export interface ReviewQuery {
  scorecardId?: string;
  metricId?: string;
  callId?: string;
  simulationId?: string;
  limit: number;
  offset: number;
}

/** Where a label of this target belongs, and the judged result it is about as it stands. */
export interface TargetPlace {
  /** null: the target exists but has no judged result to label (a call never evaluated). */
  workspaceId: string | null;
  scorecardId: string | null;
  /** The stored results list (JSON text), or null while there is none. */
  results: string | null;
  /** When those results were made (simulation ended_at, evaluation evaluated_at). */
  judgedAt: string | null;
}

/** The judge's verdict a label is stored beside (see judgeSnapshot), and when its result was made. */
export interface LabelledVerdict extends JudgeSnapshot {
  judgedAt: string | null;
}

function listWhere(workspaceId: string, q: ReviewQuery) {
  const where = [sql`r.workspace_id = ${workspaceId}`];
  if (q.scorecardId) where.push(sql`r.scorecard_id = ${q.scorecardId}`);
  if (q.metricId) where.push(sql`r.metric_id = ${q.metricId}`);
  if (q.callId) where.push(sql`r.target_kind = 'call' AND r.target_id = ${q.callId}`);
  if (q.simulationId)
    where.push(sql`r.target_kind = 'simulation' AND r.target_id = ${q.simulationId}`);
  return sql.join(where, sql` AND `);
}

/** The places a label's target can be found: the call's evaluation, or the simulation's scenario. */
function targetPlaces(ctx: StoreContext) {
  type PlaceRow = {
    workspace_id: string | null;
    scorecard_id: string | null;
    results: string | null;
    judged_at: string | null;
  };
  const placeOf = (row: PlaceRow): TargetPlace => ({
    workspaceId: row.workspace_id,
    scorecardId: row.scorecard_id,
    results: row.results,
    judgedAt: row.judged_at,
  });
  return {
    /** A call: where its evaluation was made (null fields: never evaluated); undefined: no call. */
    async callPlace(callId: string): Promise<TargetPlace | undefined> {
      const { rows } = await sql<PlaceRow>`
        SELECT e.workspace_id, e.scorecard_id, e.results, e.evaluated_at AS judged_at FROM calls c
        LEFT JOIN call_evaluations e ON e.call_id = c.id WHERE c.id = ${callId}`.execute(ctx.db);
      return rows[0] && placeOf(rows[0]);
    },
    /** A simulation of the workspace: its scenario's scorecard; undefined: no such simulation. */
    async simulationPlace(workspaceId: string, id: string): Promise<TargetPlace | undefined> {
      const { rows } = await sql<PlaceRow>`
        SELECT s.workspace_id, sc.scorecard_id, s.results, s.ended_at AS judged_at
        FROM simulations s LEFT JOIN scenarios sc ON sc.id = s.scenario_id
        WHERE s.workspace_id = ${workspaceId} AND s.id = ${id}`.execute(ctx.db);
      return rows[0] && placeOf(rows[0]);
    },
  };
}

/**
 * Human labels: one per reviewer, target and metric (the unique key), so a second label by the
 * same reviewer replaces the first, also when two requests race. A workspace's labels go with it.
 */
export function createReviewStore(ctx: StoreContext) {
  const { db } = ctx;
  return {
    ...targetPlaces(ctx),
    ...createReviewCalibration(ctx),
    /**
     * Stores the label, or replaces the reviewer's label of that target and metric (keeping its id
     * and created_at). Answers the label as stored and whether it replaced one.
     */
    async upsert(
      workspaceId: string,
      review: ReviewRecord,
      judged: LabelledVerdict,
    ): Promise<{ review: ReviewRecord; replaced: boolean }> {
      const row = {
        workspace_id: workspaceId,
        ...COLUMNS.toRow(review),
        ...verdictColumns(judged),
        is_latest: 1,
      } as Insertable<Reviews>;
      const { kind, id } = review.target;
      // One label of a target and metric written at a time (servers sharing a database too), so
      // exactly one of them is marked the latest.
      return ctx.atomic(async (tx) => {
        await ctx.dialect.transactionLock(`reviews:${kind}:${id}:${review.metricId}`).execute(tx);
        const stored = await tx
          .insertInto('reviews')
          .values(row)
          .onConflict((oc) =>
            oc.columns(['target_kind', 'target_id', 'metric_id', 'reviewer_id']).doUpdateSet({
              workspace_id: workspaceId,
              scorecard_id: row.scorecard_id,
              reviewer_name: row.reviewer_name,
              verdict: row.verdict,
              note: row.note,
              updated_at: row.updated_at,
              ...verdictColumns(judged),
              is_latest: 1,
            }),
          )
          .returningAll()
          .executeTakeFirstOrThrow();
        await sql`UPDATE reviews SET is_latest = 0 WHERE target_kind = ${kind}
          AND target_id = ${id} AND metric_id = ${review.metricId} AND id <> ${stored.id}
          AND is_latest = 1`.execute(tx);
        return { review: COLUMNS.fromRow(stored), replaced: stored.id !== review.id };
      });
    },
    /** A page of the workspace's labels, the latest changed first. */
    async list(
      workspaceId: string,
      q: ReviewQuery,
    ): Promise<{ items: ReviewRecord[]; total: number }> {
      const { rows, total } = await pageOf<Record<string, unknown>>(
        db,
        {
          select: SELECT,
          from: sql`reviews r WHERE ${listWhere(workspaceId, q)}`,
          // Labels changed in the same millisecond: the later written first (PostgreSQL says its rowid).
          order: sql`r.updated_at DESC, r.rowid DESC`,
        },
        q,
      );
      return { items: rows.map((r) => COLUMNS.fromRow(r)), total };
    },
  };
}

export type ReviewStore = ReturnType<typeof createReviewStore>;
