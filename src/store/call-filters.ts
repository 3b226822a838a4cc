import { sql, type RawBuilder } from 'kysely';
import type { DialectSql } from './sql/dialect.js';

/**
 * Filters of an agent's imported calls by their evaluation and version
 * (`GET /v1/agents/{id}/calls?passed=&minScore=&maxScore=&metric=&version=&reason=`). Each is a condition
 * on the `calls` row, ANDed after the agent's: the page and its total are counted alike.
 */
export interface CallFilters {
  /** Evaluated and passed (true), or evaluated and not passed (false; no verdict counts as not). */
  passed?: boolean;
  minScore?: number;
  maxScore?: number;
  /** A metric id: calls whose evaluation failed it (not an error, not a not applicable). */
  metric?: string;
  /** The call's agentVersion. */
  version?: number;
  /** Why the call was evaluated (sampled, failed, short, backfill, on_demand). */
  reason?: string;
}

/** Conditions on the call's evaluation row `e`: its verdict and score. */
function evaluationConditions(f: CallFilters): RawBuilder<unknown>[] {
  const out: RawBuilder<unknown>[] = [];
  if (f.passed === true) out.push(sql`e.passed = 1`);
  if (f.passed === false) out.push(sql`COALESCE(e.passed, 0) = 0`);
  if (f.minScore !== undefined) out.push(sql`e.score >= ${f.minScore}`);
  if (f.maxScore !== undefined) out.push(sql`e.score <= ${f.maxScore}`);
  if (f.reason !== undefined) out.push(sql`e.reason = ${f.reason}`);
  return out;
}

/**
 * The evaluation holds a result of the metric that failed: its status `failed`, or, written before
 * results had a status, `passed` false without an error. An error (the metric could not be
 * evaluated) and a not applicable result are not failures of the agent. Results are JSON text in
 * both databases.
 */
function metricFailed(dialect: DialectSql, metricId: string): RawBuilder<unknown> {
  return dialect.name === 'postgres'
    ? sql`EXISTS (SELECT 1 FROM call_evaluations e CROSS JOIN LATERAL jsonb_array_elements(e.results::jsonb) r
        WHERE e.call_id = calls.id AND r.value->>'metric_id' = ${metricId}
        AND (r.value->>'status' = 'failed' OR (r.value->'status' IS NULL
          AND r.value->>'passed' = 'false' AND r.value->'error' IS NULL)))`
    : sql`EXISTS (SELECT 1 FROM call_evaluations e, json_each(e.results) r
        WHERE e.call_id = calls.id AND json_extract(r.value, '$.metric_id') = ${metricId}
        AND (json_extract(r.value, '$.status') = 'failed' OR (json_type(r.value, '$.status') IS NULL
          AND json_type(r.value, '$.passed') = 'false' AND json_type(r.value, '$.error') IS NULL)))`;
}

/** The filters as ` AND ...` conditions on `calls` (empty when none is given). */
export function callFilterSql(dialect: DialectSql, f: CallFilters = {}): RawBuilder<unknown> {
  const conditions: RawBuilder<unknown>[] = [];
  const onEvaluation = evaluationConditions(f);
  if (onEvaluation.length)
    conditions.push(
      sql`EXISTS (SELECT 1 FROM call_evaluations e WHERE e.call_id = calls.id AND ${sql.join(onEvaluation, sql` AND `)})`,
    );
  if (f.metric !== undefined) conditions.push(metricFailed(dialect, f.metric));
  if (f.version !== undefined) conditions.push(sql`calls.agent_version = ${f.version}`);
  return conditions.length ? sql` AND ${sql.join(conditions, sql` AND `)}` : sql``;
}
