import { sql } from 'kysely';
import type { StoreContext } from './sql/query.js';
import { valueList } from './sql/query.js';
import { runShaped } from './sql/compiled-shapes.js';

/** Simulations that "ran" count towards usage: completed or failed, not queued or cancelled. */
export const RAN = "status IN ('completed', 'failed')";

/** How many rows meet a condition, in SQL both databases read alike (PostgreSQL sums no booleans). */
export const countWhere = (condition: string): string => `COUNT(CASE WHEN ${condition} THEN 1 END)`;

/**
 * Percent of judged simulations that passed. A simulation that ended in error (its agent
 * unreachable, say) counts as not passed; one that completed without any metric is not judged.
 */
export const PASS_RATE = `100.0 * ${countWhere('passed = 1')} / NULLIF(COUNT(passed) + ${countWhere(
  "status = 'failed' AND passed IS NULL",
)}, 0)`;

/** Simulations that ended in error, their own count in every statistic. */
export const ERRORED = countWhere("status = 'failed'");

export interface UsageStats {
  total_simulations: number;
  avg_score: number | null;
  last_used: string | null;
}

const round = (n: number | null): number | null => (n === null ? null : Math.round(n * 100) / 100);

/** Usage of personas (or scenarios) by id, computed from stored simulations for one page of ids. */
export async function usageByIds(
  { db }: StoreContext,
  column: 'persona_id' | 'scenario_id',
  ids: string[],
): Promise<Map<string, UsageStats>> {
  const out = new Map<string, UsageStats>();
  if (ids.length === 0) return out;
  // A page's ids change every request, its statement never: it is built and compiled once per
  // page size (compiling 50 values was most of the query's own cost on a page the cache missed).
  const usage = () =>
    sql<{ id: string; total: number; avg: number | null; last: string | null }>`
      SELECT ${sql.ref(column)} AS id, COUNT(*) AS total, AVG(score) AS avg,
        MAX(COALESCE(ended_at, started_at, created_at)) AS last
      FROM simulations WHERE ${sql.ref(column)} IN (${valueList(ids)}) AND ${sql.raw(RAN)}
      GROUP BY ${sql.ref(column)}`;
  const { rows } = await runShaped(
    db,
    `usage.${column}:${ids.length}`,
    () => usage().compile(db),
    ids,
  );
  for (const r of rows)
    out.set(r.id, { total_simulations: r.total, avg_score: round(r.avg), last_used: r.last });
  return out;
}

export const noUsage = (): UsageStats => ({
  total_simulations: 0,
  avg_score: null,
  last_used: null,
});
