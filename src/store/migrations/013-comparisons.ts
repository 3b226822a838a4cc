import type { Compilable, Kysely } from 'kysely';
import type { Migration } from './migration.js';
import { forBothDialects } from './schema-statements.js';

/**
 * Stored comparisons of two sets of executions: the whole record as JSON text (it is built once and
 * never patched), listed newest first per workspace, and gone with its workspace.
 */
function statements(onPostgres: boolean) {
  return (db: Kysely<object>): Compilable[] => {
    let table = db.schema
      .createTable('comparisons')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('workspace_id', 'text', (c) =>
        c.notNull().references('workspaces.id').onDelete('cascade'),
      )
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('record', 'text', (c) => c.notNull());
    // PostgreSQL has no rowid: the tables that list by insertion order say one (like 001's).
    if (onPostgres)
      table = table.addColumn('rowid', 'bigint', (c) => c.notNull().generatedAlwaysAsIdentity());
    const keys = onPostgres
      ? ['workspace_id', 'created_at', 'rowid']
      : ['workspace_id', 'created_at'];
    return [
      table,
      db.schema.createIndex('comparisons_by_workspace').on('comparisons').columns(keys),
    ];
  };
}

export const m013Comparisons: Migration = {
  version: 13,
  name: 'comparisons',
  // One builder, each database's own text: only PostgreSQL needs the rowid said.
  sqlite: forBothDialects(statements(false)).sqlite,
  postgres: forBothDialects(statements(true)).postgres,
};
