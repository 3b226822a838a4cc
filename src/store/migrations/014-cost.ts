import { sql, type Compilable, type Kysely } from 'kysely';
import type { Migration } from './migration.js';
import { forBothDialects } from './schema-statements.js';

/**
 * What simulations cost, and the spend cap of executions and schedules:
 * - a simulation's cost as it ended (`cost_usd`, null before) and the unpriced models that left it
 *   null; the budget it holds while it runs (`reserved_usd`);
 * - an execution's cap (`max_cost_usd`), what each of its simulations reserves as it starts
 *   (`budget_per_simulation_usd`), and what its running simulations hold and its ended ones spent:
 *   one row that a conditional UPDATE checks and moves at once, so concurrent starts never overshoot;
 * - a schedule's cap, passed to every execution it starts.
 * Usage stored before it was counted by model gets an empty `by_model` ([]): never invented.
 */
function statements(onPostgres: boolean) {
  // SQLite's REAL is 8 bytes; PostgreSQL's is 4: money needs its DOUBLE PRECISION.
  const money = onPostgres ? 'double precision' : 'real';
  return (db: Kysely<object>): Compilable[] => [
    db.schema.alterTable('simulations').addColumn('cost_usd', money),
    db.schema
      .alterTable('simulations')
      .addColumn('unpriced_models', 'text', (c) => c.notNull().defaultTo('[]')),
    db.schema
      .alterTable('simulations')
      .addColumn('reserved_usd', money, (c) => c.notNull().defaultTo(0)),
    db.schema.alterTable('executions').addColumn('max_cost_usd', money),
    db.schema.alterTable('executions').addColumn('budget_per_simulation_usd', money),
    db.schema
      .alterTable('executions')
      .addColumn('reserved_usd', money, (c) => c.notNull().defaultTo(0)),
    db.schema
      .alterTable('executions')
      .addColumn('spent_usd', money, (c) => c.notNull().defaultTo(0)),
    db.schema.alterTable('schedules').addColumn('max_cost_usd', money),
    // The usage JSON is written by JSON.stringify: an object ending in its closing brace.
    (db as Kysely<{ simulations: { usage: string } }>)
      .updateTable('simulations')
      .set({ usage: sql<string>`substr(usage, 1, length(usage) - 1) || ',"by_model":[]}'` })
      .where(sql<boolean>`usage NOT LIKE '%"by_model"%'`),
  ];
}

export const m014Cost: Migration = {
  version: 14,
  name: 'cost',
  sqlite: forBothDialects(statements(false)).sqlite,
  postgres: forBothDialects(statements(true)).postgres,
};
