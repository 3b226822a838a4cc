import type { Compilable, Kysely } from 'kysely';
import type { Migration } from './migration.js';
import { forBothDialects } from './schema-statements.js';

/**
 * Variants and experiments. A variant is an agent row with `parent_id` set: its parent's synced
 * configuration with its own overrides on top, run on the replica. An experiment runs an agent as
 * it is and with a configuration on top, side by side, and compares the two: its row keeps what it
 * was asked, its executions (`experiment_executions`, one row each, by side: the runner finds a
 * candidate's configuration by its execution id) and, once both sides ended, the comparison.
 */
function statements(onPostgres: boolean) {
  return (db: Kysely<object>): Compilable[] => {
    let experiments = db.schema
      .createTable('experiments')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('agent_id', 'text', (c) => c.notNull())
      .addColumn('configuration', 'text', (c) => c.notNull())
      .addColumn('scenario_ids', 'text', (c) => c.notNull())
      .addColumn('runs', 'integer', (c) => c.notNull())
      // Money as executions keep it (migration 14): each database's floating type.
      .addColumn('max_cost_usd', onPostgres ? 'double precision' : 'real')
      .addColumn('baseline_execution_ids', 'text', (c) => c.notNull())
      .addColumn('candidate_execution_ids', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('comparison_id', 'text')
      .addColumn('verdict', 'text')
      .addColumn('error', 'text')
      .addColumn('applied_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull());
    let sides = db.schema
      .createTable('experiment_executions')
      .addColumn('execution_id', 'text', (c) => c.primaryKey())
      .addColumn('experiment_id', 'text', (c) =>
        c.notNull().references('experiments.id').onDelete('cascade'),
      )
      .addColumn('side', 'text', (c) => c.notNull());
    // PostgreSQL has no rowid: the tables say one (like 001's and 013's).
    if (onPostgres) {
      experiments = experiments.addColumn('rowid', 'bigint', (c) =>
        c.notNull().generatedAlwaysAsIdentity(),
      );
      sides = sides.addColumn('rowid', 'bigint', (c) => c.notNull().generatedAlwaysAsIdentity());
    }
    return [
      db.schema.alterTable('agents').addColumn('parent_id', 'text'),
      db.schema.createIndex('agents_by_parent').on('agents').column('parent_id'),
      experiments,
      db.schema
        .createIndex('experiments_by_workspace')
        .on('experiments')
        .columns(['workspace_id', 'created_at']),
      db.schema.createIndex('experiments_by_state').on('experiments').column('state'),
      sides,
    ];
  };
}

export const m015VariantsExperiments: Migration = {
  version: 15,
  name: 'variants and experiments',
  // One builder, each database's own text: only PostgreSQL needs the rowid said.
  sqlite: forBothDialects(statements(false)).sqlite,
  postgres: forBothDialects(statements(true)).postgres,
};
