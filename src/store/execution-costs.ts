import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Execution } from '../domain/executions.js';
import { roundUsd } from '../domain/prices.js';
import { fromJson } from './db.js';
import type { Tables } from './sql/tables.js';

type Cost = Pick<Execution, 'cost_usd' | 'unpriced_models'>;

/**
 * A simulation that ran but has no cost: it used an unpriced model, or it ended before costs were
 * recorded. Either leaves its execution's cost unknown (null), never guessed low.
 */
const UNCOSTED = `COUNT(CASE WHEN cost_usd IS NULL AND started_at IS NOT NULL
  AND status IN ('completed', 'failed', 'cancelled') THEN 1 END)`;

/**
 * What these executions' simulations cost, by execution (`found`: their ids as a value list): the
 * costs stored as each simulation ended, summed, and the unpriced models any of them named. Two
 * grouped queries over the execution index, whatever the page: lists stay as fast as before.
 */
export async function costsOf(
  db: Kysely<Tables>,
  found: RawBuilder<unknown>,
): Promise<Map<string, Cost>> {
  const { rows: sums } = await sql<{ execution_id: string; cost: number | null; uncosted: number }>`
    SELECT execution_id, SUM(cost_usd) AS cost, ${sql.raw(UNCOSTED)} AS uncosted FROM simulations
    WHERE execution_id IN (${found}) GROUP BY execution_id`.execute(db);
  const { rows: unpriced } = await sql<{ execution_id: string; unpriced_models: string }>`
    SELECT DISTINCT execution_id, unpriced_models FROM simulations
    WHERE execution_id IN (${found}) AND unpriced_models <> '[]'`.execute(db);
  const namesOf = new Map<string, Set<string>>();
  for (const r of unpriced) {
    const names = namesOf.get(r.execution_id) ?? new Set<string>();
    for (const name of fromJson<string[]>(r.unpriced_models)) names.add(name);
    namesOf.set(r.execution_id, names);
  }
  return new Map(
    sums.map((r) => {
      const names = [...(namesOf.get(r.execution_id) ?? [])].sort();
      const known = r.uncosted === 0 && names.length === 0;
      return [
        r.execution_id,
        { cost_usd: known ? roundUsd(Number(r.cost ?? 0)) : null, unpriced_models: names },
      ];
    }),
  );
}
