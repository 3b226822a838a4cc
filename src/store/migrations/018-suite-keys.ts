import type { Compilable, Kysely } from 'kysely';
import type { Migration } from './migration.js';
import { forBothDialects } from './schema-statements.js';

/** The tables whose rows a suite names by key, and whether a key is unique per workspace. */
const KEYED: { table: string; perWorkspace: boolean }[] = [
  { table: 'personas', perWorkspace: true },
  { table: 'scorecards', perWorkspace: true },
  { table: 'scenarios', perWorkspace: true },
  { table: 'schedules', perWorkspace: true },
  { table: 'tools', perWorkspace: false },
  { table: 'alerts', perWorkspace: false },
];

/**
 * Tests as code (#38): each resource a suite file names gets a `key`, stored when it is first
 * exported or imported (null until then: readers derive the key an export would give), unique per
 * workspace or, for the engine-wide tools and alerts, engine-wide. NULLs never collide in a unique
 * index on either database, so resources without a key yet need no partial index. Scenarios keep
 * their data-driven `cases` (JSON), and a workspace the name of the suite last imported into it.
 */
function statements(db: Kysely<object>): Compilable[] {
  return [
    ...KEYED.flatMap(({ table, perWorkspace }) => [
      db.schema.alterTable(table).addColumn('key', 'text'),
      db.schema
        .createIndex(`${table}_by_key`)
        .on(table)
        .columns(perWorkspace ? ['workspace_id', 'key'] : ['key'])
        .unique(),
    ]),
    db.schema.alterTable('scenarios').addColumn('cases', 'text'),
    db.schema.alterTable('workspaces').addColumn('suite_name', 'text'),
  ];
}

export const m018SuiteKeys: Migration = {
  version: 18,
  name: 'suite keys',
  ...forBothDialects(statements),
};
