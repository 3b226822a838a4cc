import type { Compilable, Kysely } from 'kysely';
import type { Migration } from './migration.js';
import { forBothDialects } from './schema-statements.js';

/**
 * The drift suite: an agent's suite (JSON, null for none), and its runs, one per agent and
 * version. The unique key is what makes a run happen once per version even when two instances of
 * a team server both see the new version: the second insert finds the row and starts nothing.
 */
function statements(onPostgres: boolean) {
  return (db: Kysely<object>): Compilable[] => {
    let table = db.schema
      .createTable('regression_suite_runs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('agent_id', 'text', (c) => c.notNull().references('agents.id').onDelete('cascade'))
      .addColumn('version', 'integer', (c) => c.notNull())
      .addColumn('workspace_id', 'text', (c) =>
        c.notNull().references('workspaces.id').onDelete('cascade'),
      )
      .addColumn('execution_ids', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('baseline_run_id', 'text')
      .addColumn('comparison_id', 'text')
      .addColumn('verdict', 'text')
      .addColumn('error', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('regression_suite_runs_once', ['agent_id', 'version']);
    // PostgreSQL has no rowid: the tables say one (like 001's and 013's).
    if (onPostgres)
      table = table.addColumn('rowid', 'bigint', (c) => c.notNull().generatedAlwaysAsIdentity());
    return [
      db.schema.alterTable('agents').addColumn('regression_suite', 'text'),
      table,
      db.schema
        .createIndex('regression_suite_runs_by_status')
        .on('regression_suite_runs')
        .column('status'),
    ];
  };
}

export const m016DriftSuite: Migration = {
  version: 16,
  name: 'drift suite',
  // One builder, each database's own text: only PostgreSQL needs the rowid said.
  sqlite: forBothDialects(statements(false)).sqlite,
  postgres: forBothDialects(statements(true)).postgres,
};
