import { sql, type Kysely } from 'kysely';
import type { Usage } from '../domain/simulations.js';
import { fromJson } from './db.js';
import type { StoreContext } from './sql/query.js';
import type { Tables } from './sql/tables.js';

/**
 * An execution's spend cap, kept on its row: what its running simulations hold (`reserved_usd`)
 * and what its ended ones cost (`spent_usd`). A simulation reserves the execution's
 * `budget_per_simulation_usd` as it starts with one conditional UPDATE of that row, which the
 * database runs one at a time per row (SQLite writes one at a time; PostgreSQL locks the row and
 * checks the condition again on the row as the other writer left it): however many servers and
 * workers start simulations at once, spent + reserved never passes the cap.
 */

/** Whether a claimed simulation may run: no cap, budget reserved now (or before it was re-run), or none left. */
export type Reservation = 'uncapped' | 'reserved' | 'refused';

/** Reserves a simulation's share of its execution's cap; `refused` leaves both rows unchanged. */
async function reserve(ctx: StoreContext, simulationId: string): Promise<Reservation> {
  const row = await ctx.db
    .selectFrom('simulations as s')
    .innerJoin('executions as e', 'e.id', 's.execution_id')
    .select(['s.execution_id', 's.reserved_usd', 'e.max_cost_usd', 'e.budget_per_simulation_usd'])
    .where('s.id', '=', simulationId)
    .executeTakeFirst();
  if (!row || row.max_cost_usd === null) return 'uncapped';
  // Run again after an interruption: it still holds what it reserved the first time.
  if (row.reserved_usd > 0) return 'reserved';
  const share = row.budget_per_simulation_usd ?? 0;
  return ctx.atomic(async (db) => {
    const taken = await db
      .updateTable('executions')
      .set({ reserved_usd: sql<number>`reserved_usd + ${share}` })
      .where('id', '=', row.execution_id)
      .where(sql<boolean>`spent_usd + reserved_usd + ${share} <= max_cost_usd`)
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) === 0) return 'refused';
    await db
      .updateTable('simulations')
      .set({ reserved_usd: share })
      .where('id', '=', simulationId)
      .execute();
    return 'reserved';
  });
}

/**
 * Raises a running simulation's reservation to `toUsd` (a model call about to be made could cost
 * more than it holds), with the same conditional UPDATE of its execution's row as `reserve`: the
 * raise is taken whole or `refused`, leaving both rows unchanged. Only the runner holding the
 * simulation's lease raises it, so its own row is read without a lock.
 */
async function raise(ctx: StoreContext, simulationId: string, toUsd: number): Promise<Reservation> {
  return ctx.atomic(async (db) => {
    const row = await db
      .selectFrom('simulations as s')
      .innerJoin('executions as e', 'e.id', 's.execution_id')
      .select(['s.execution_id', 's.reserved_usd', 'e.max_cost_usd'])
      .where('s.id', '=', simulationId)
      .executeTakeFirst();
    if (!row || row.max_cost_usd === null) return 'uncapped';
    const more = toUsd - row.reserved_usd;
    if (more <= 0) return 'reserved';
    const taken = await db
      .updateTable('executions')
      .set({ reserved_usd: sql<number>`reserved_usd + ${more}` })
      .where('id', '=', row.execution_id)
      .where(sql<boolean>`spent_usd + reserved_usd + ${more} <= max_cost_usd`)
      .executeTakeFirst();
    if (Number(taken.numUpdatedRows) === 0) return 'refused';
    await db
      .updateTable('simulations')
      .set({ reserved_usd: toUsd })
      .where('id', '=', simulationId)
      .execute();
    return 'reserved';
  });
}

/**
 * Inside the transaction that records a simulation's ending: what it reserved goes back and what it
 * cost is spent, on its execution's row (executions without a cap are left alone).
 */
export async function settleBudget(
  db: Kysely<Tables>,
  ended: { executionId: string; reservedUsd: number; costUsd: number | null },
): Promise<void> {
  await db
    .updateTable('executions')
    .set({
      reserved_usd: sql<number>`reserved_usd - ${ended.reservedUsd}`,
      // An unpriced ending (prices removed mid-run) spends what it reserved: never less.
      spent_usd: sql<number>`spent_usd + ${ended.costUsd ?? ended.reservedUsd}`,
    })
    .where('id', '=', ended.executionId)
    .where('max_cost_usd', 'is not', null)
    .execute();
}

/** How many of a scenario's latest completed simulations an estimate averages. */
const PAST_USAGE_LIMIT = 100;

/**
 * The usage of a scenario's latest completed simulations that counted it by model (older ones
 * cannot say which model spent what), newest first.
 */
async function pastUsage(ctx: StoreContext, scenarioId: string): Promise<Usage[]> {
  const rows = await ctx.db
    .selectFrom('simulations')
    .select('usage')
    .where('scenario_id', '=', scenarioId)
    .where('status', '=', 'completed')
    .where('usage', 'not like', '%"by_model":[]%')
    .orderBy('seq', 'desc')
    .limit(PAST_USAGE_LIMIT)
    .execute();
  return rows.map((r) => fromJson<Usage>(r.usage));
}

/** The spend caps' reservations for the runner, and past usage for estimates. */
export function createCostBudgets(ctx: StoreContext) {
  return {
    reserve: (simulationId: string) => reserve(ctx, simulationId),
    raise: (simulationId: string, toUsd: number) => raise(ctx, simulationId, toUsd),
    pastUsage: (scenarioId: string) => pastUsage(ctx, scenarioId),
  };
}
