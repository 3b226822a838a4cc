import { placeholders, prepared, type Db } from './db.js';

/** Simulations that "ran" count towards usage: completed or failed, not queued or cancelled. */
export const RAN = "status IN ('completed', 'failed')";

/**
 * Percent of judged simulations that passed. A simulation that ended in error (its agent
 * unreachable, say) counts as not passed; one that completed without any metric is not judged.
 */
export const PASS_RATE =
  "100.0 * SUM(passed = 1) / NULLIF(COUNT(passed) + SUM(status = 'failed' AND passed IS NULL), 0)";

/** Simulations that ended in error, their own count in every statistic. */
export const ERRORED = "COUNT(CASE WHEN status = 'failed' THEN 1 END)";

export interface UsageStats {
  total_simulations: number;
  avg_score: number | null;
  last_used: string | null;
}

const round = (n: number | null): number | null => (n === null ? null : Math.round(n * 100) / 100);

/** Usage of personas (or scenarios) by id, computed from stored simulations for one page of ids. */
export function usageByIds(
  db: Db,
  column: 'persona_id' | 'scenario_id',
  ids: string[],
): Map<string, UsageStats> {
  const out = new Map<string, UsageStats>();
  if (ids.length === 0) return out;
  const rows = prepared(
    db,
    `SELECT ${column} AS id, COUNT(*) AS total, AVG(score) AS avg, MAX(COALESCE(ended_at, started_at, created_at)) AS last
       FROM simulations WHERE ${column} IN (${placeholders(ids.length)}) AND ${RAN} GROUP BY ${column}`,
  ).all(...ids) as { id: string; total: number; avg: number | null; last: string | null }[];
  for (const r of rows)
    out.set(r.id, { total_simulations: r.total, avg_score: round(r.avg), last_used: r.last });
  return out;
}

export const noUsage = (): UsageStats => ({
  total_simulations: 0,
  avg_score: null,
  last_used: null,
});
