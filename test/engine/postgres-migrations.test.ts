import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrate.js';
import { migrations } from '../../src/store/migrations/index.js';
import { migrationChecksum } from '../../src/store/migrations/migration.js';
import { migratePostgres } from '../../src/store/sql/migrate-postgres.js';
import { startPostgres, type Postgres } from '../helpers/postgres.js';
import { tempDir } from '../helpers/server.js';

let cluster: Postgres;
let databases = 0;

beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(() => cluster?.stop());

async function query<R = Record<string, unknown>>(
  url: string,
  text: string,
  params: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as R[];
  } finally {
    await client.end();
  }
}

/** A new empty database in the test cluster, and its URL. */
async function freshDatabase(): Promise<string> {
  const name = `migrations_${++databases}`;
  await query(cluster.url, `CREATE DATABASE ${name} TEMPLATE template0`);
  const url = new URL(cluster.url);
  url.pathname = `/${name}`;
  return url.toString();
}

const allVersions = migrations.map((m) => m.version);

describe('PostgreSQL migrations', () => {
  it('applies every migration with its PostgreSQL checksum, then nothing on a second run', async () => {
    const url = await freshDatabase();
    expect(await migratePostgres(url)).toEqual({ applied: allVersions });
    const rows = await query<{ version: string; name: string; checksum: string }>(
      url,
      'SELECT version, name, checksum FROM schema_migrations ORDER BY version',
    );
    expect(rows).toEqual(
      migrations.map((m) => ({
        version: String(m.version),
        name: m.name,
        checksum: migrationChecksum(m, 'postgres'),
      })),
    );
    expect(await migratePostgres(url)).toEqual({ applied: [] });
  });

  it('applies only what is pending on a store an older build migrated', async () => {
    const url = await freshDatabase();
    expect(await migratePostgres(url, migrations.slice(0, 3))).toEqual({ applied: [1, 2, 3] });
    expect(await migratePostgres(url)).toEqual({ applied: allVersions.slice(3) });
  });

  it('servers starting together on a fresh database migrate it once, and both start', async () => {
    const url = await freshDatabase();
    const results = await Promise.all([migratePostgres(url), migratePostgres(url)]);
    expect(results.map((r) => r.applied).sort((a, b) => b.length - a.length)).toEqual([
      allVersions,
      [],
    ]);
    const counts = await query<{ version: string; n: string }>(
      url,
      'SELECT version, COUNT(*) AS n FROM schema_migrations GROUP BY version ORDER BY version',
    );
    expect(counts).toEqual(allVersions.map((v) => ({ version: String(v), n: '1' })));
  });

  it('refuses a store written by a newer build, with the SQLite message, and changes nothing', async () => {
    const url = await freshDatabase();
    await migratePostgres(url);
    await query(
      url,
      "INSERT INTO schema_migrations VALUES (42, 'from the future', 'abc', '2030-01-01T00:00:00Z')",
    );
    await expect(migratePostgres(url)).rejects.toMatchObject({
      code: 'store_too_new',
      message:
        'This data store was written by a newer Callbench (schema version 42, "from the future"); ' +
        `this build knows schema versions up to ${migrations.length}. Update Callbench, or use another data dir.`,
    });
    const [row] = await query<{ n: string }>(url, 'SELECT COUNT(*) AS n FROM schema_migrations');
    expect(row!.n).toBe(String(migrations.length + 1));
  });

  it("refuses a store whose recorded migration differs from this build's", async () => {
    const url = await freshDatabase();
    await migratePostgres(url);
    await query(url, "UPDATE schema_migrations SET checksum = 'tampered' WHERE version = 1");
    await expect(migratePostgres(url)).rejects.toMatchObject({
      code: 'store_mismatch',
      message:
        `Schema version 1 of this data store differs from this build's ("initial"). ` +
        'It was written by a different build; refusing to use it.',
    });
  });

  it('a failing migration leaves nothing behind and its error comes out unchanged', async () => {
    const url = await freshDatabase();
    await migratePostgres(url);
    const broken = {
      version: 999,
      name: 'broken',
      sqlite: '',
      postgres: 'CREATE TABLE half_made (id TEXT); SELECT no_such_column FROM half_made',
    };
    await expect(migratePostgres(url, [...migrations, broken])).rejects.toMatchObject({
      code: '42703',
    });
    const [left] = await query<{ tables: string; recorded: string }>(
      url,
      `SELECT (SELECT COUNT(*) FROM pg_tables WHERE tablename = 'half_made') AS tables,
        (SELECT COUNT(*) FROM schema_migrations WHERE version = 999) AS recorded`,
    );
    expect(left).toEqual({ tables: '0', recorded: '0' });
  });

  it('rowid orders by insertion and integer keys are generated, as on SQLite', async () => {
    const url = await freshDatabase();
    await migratePostgres(url);
    await query(
      url,
      `INSERT INTO workspaces (id, name, created_at) VALUES ('b', 'B', 't'), ('a', 'A', 't');
       INSERT INTO tool_calls (tool_id, tool_name, source, started_ms, duration_ms, outcome, attempts)
         VALUES ('t', 'tool', 'test', 1, 2, 'ok', 1)`,
    );
    expect(await query(url, 'SELECT id FROM workspaces ORDER BY rowid')).toEqual([
      { id: 'b' },
      { id: 'a' },
    ]);
    expect(await query(url, 'SELECT id FROM tool_calls')).toEqual([{ id: '1' }]);
  });
});

/** A table's shape, the same way for both databases: what the parity test compares. */
interface TableShape {
  columns: Record<string, { type: string; notNull: boolean; default: string | null }>;
  /** Explicit indexes (not those behind constraints): their keys, `lower(x)` and `DESC` spelt out. */
  indexes: Record<string, string[]>;
  /** Primary keys and unique constraints: their columns, comma-joined, sorted. */
  unique: string[];
  /** `col -> table(col) ON DELETE action`, sorted. */
  foreignKeys: string[];
}

const SQLITE_TYPES: Record<string, string> = {
  INTEGER: 'integer',
  REAL: 'real',
  TEXT: 'text',
  BLOB: 'bytes',
};
const POSTGRES_TYPES: Record<string, string> = {
  bigint: 'integer',
  'double precision': 'real',
  text: 'text',
  bytea: 'bytes',
};

interface SqliteColumn {
  name: string;
  type: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
}

function sqliteColumns(db: Db, table: string): SqliteColumn[] {
  return db.prepare('SELECT * FROM pragma_table_info(?)').all(table) as SqliteColumn[];
}

/** Whether the table's rowid is its INTEGER PRIMARY KEY (then PostgreSQL has no rowid column). */
function rowidAliased(db: Db, table: string): boolean {
  const pk = sqliteColumns(db, table).filter((c) => c.pk > 0);
  return pk.length === 1 && pk[0]!.type === 'INTEGER';
}

function sqliteIndexes(db: Db, table: string): Record<string, string[]> {
  const names = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
    )
    .pluck()
    .all(table) as string[];
  return Object.fromEntries(
    names.map((name) => {
      const keys = db
        .prepare(
          'SELECT name, "desc", coll FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno',
        )
        .all(name) as { name: string; desc: number; coll: string }[];
      return [
        name,
        keys.map(
          (k) => `${k.coll === 'NOCASE' ? `lower(${k.name})` : k.name}${k.desc ? ' DESC' : ''}`,
        ),
      ];
    }),
  );
}

function sqliteTable(db: Db, table: string): TableShape {
  const cols = sqliteColumns(db, table);
  const unique = (
    db
      .prepare('SELECT name FROM pragma_index_list(?) WHERE "unique" = 1')
      .pluck()
      .all(table) as string[]
  ).map((index) =>
    (
      db
        .prepare('SELECT name FROM pragma_index_info(?) ORDER BY seqno')
        .pluck()
        .all(index) as string[]
    ).join(','),
  );
  if (rowidAliased(db, table)) unique.push(cols.find((c) => c.pk > 0)!.name);
  const fks = db.prepare('SELECT * FROM pragma_foreign_key_list(?)').all(table) as {
    table: string;
    from: string;
    to: string;
    on_delete: string;
  }[];
  return {
    columns: Object.fromEntries(
      cols.map((c) => [
        c.name,
        {
          type: SQLITE_TYPES[c.type]!,
          notNull: c.notnull === 1 || c.pk > 0,
          default: c.dflt_value,
        },
      ]),
    ),
    indexes: sqliteIndexes(db, table),
    unique: unique.sort(),
    foreignKeys: fks.map((f) => `${f.from} -> ${f.table}(${f.to}) ON DELETE ${f.on_delete}`).sort(),
  };
}

/** The SQLite store's tables, without SQLite's own and the name search's FTS5 tables. */
function sqliteSchema(db: Db): Record<string, TableShape> {
  const tables = db
    .prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE 'personas_name_fts%'",
    )
    .pluck()
    .all() as string[];
  return Object.fromEntries(tables.map((t) => [t, sqliteTable(db, t)]));
}

const PG_COLUMNS = `SELECT table_name AS tbl, column_name AS name, data_type AS type,
    is_nullable = 'NO' AS not_null, column_default AS dflt
  FROM information_schema.columns WHERE table_schema = current_schema()`;

const PG_INDEX_KEYS = `SELECT t.relname AS tbl, c.relname AS idx,
    pg_get_indexdef(i.indexrelid, k.n, true) || CASE WHEN (i.indoption[k.n - 1] & 1) = 1 THEN ' DESC' ELSE '' END AS key
  FROM pg_index i
  JOIN pg_class c ON c.oid = i.indexrelid
  JOIN pg_class t ON t.oid = i.indrelid
  CROSS JOIN LATERAL generate_series(1, i.indnkeyatts) AS k(n)
  WHERE t.relnamespace = current_schema()::regnamespace
    AND NOT EXISTS (SELECT 1 FROM pg_constraint x WHERE x.conindid = i.indexrelid)
  ORDER BY t.relname, c.relname, k.n`;

const PG_UNIQUE = `SELECT t.relname AS tbl, array_to_string(ARRAY(
      SELECT a.attname FROM unnest(i.indkey::int2[]) WITH ORDINALITY u(attnum, ord)
      JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = u.attnum ORDER BY u.ord), ',') AS cols
  FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
  WHERE t.relnamespace = current_schema()::regnamespace AND i.indisunique`;

const PG_FOREIGN_KEYS = `SELECT c.conrelid::regclass::text AS tbl, a.attname AS col,
    c.confrelid::regclass::text AS ref, af.attname AS refcol,
    CASE c.confdeltype WHEN 'c' THEN 'CASCADE' WHEN 'a' THEN 'NO ACTION' ELSE c.confdeltype::text END AS del
  FROM pg_constraint c
  JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
  JOIN pg_attribute af ON af.attrelid = c.confrelid AND af.attnum = c.confkey[1]
  WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace`;

async function postgresSchema(url: string): Promise<Record<string, TableShape>> {
  type Column = { tbl: string; name: string; type: string; not_null: boolean; dflt: string | null };
  const [columns, keys, unique, fks] = await Promise.all([
    query<Column>(url, PG_COLUMNS),
    query<{ tbl: string; idx: string; key: string }>(url, PG_INDEX_KEYS),
    query<{ tbl: string; cols: string }>(url, PG_UNIQUE),
    query<{ tbl: string; col: string; ref: string; refcol: string; del: string }>(
      url,
      PG_FOREIGN_KEYS,
    ),
  ]);
  const out: Record<string, TableShape> = {};
  const table = (t: string) =>
    (out[t] ??= { columns: {}, indexes: {}, unique: [], foreignKeys: [] });
  for (const c of columns)
    table(c.tbl).columns[c.name] = {
      type: POSTGRES_TYPES[c.type] ?? c.type,
      notNull: c.not_null,
      // `'[]'::text` is the default '[]'.
      default: c.dflt === null ? null : c.dflt.replace(/::(text|bigint)$/, ''),
    };
  for (const k of keys) (table(k.tbl).indexes[k.idx] ??= []).push(k.key);
  for (const u of unique) table(u.tbl).unique.push(u.cols);
  for (const f of fks)
    table(f.tbl).foreignKeys.push(`${f.col} -> ${f.ref}(${f.refcol}) ON DELETE ${f.del}`);
  for (const t of Object.values(out)) {
    t.unique.sort();
    t.foreignKeys.sort();
  }
  return out;
}

/**
 * The PostgreSQL shape a SQLite table should have: a `rowid` column unless an integer key is the
 * rowid, SQLite's unsaid rowid tail said on an index where a list orders by it, and the trigram
 * index in place of the FTS5 table.
 */
function expectedOnPostgres(
  db: Db,
  table: string,
  shape: TableShape,
  pgShape?: TableShape,
): TableShape {
  const expected = structuredClone(shape);
  if (!rowidAliased(db, table))
    expected.columns.rowid = { type: 'integer', notNull: true, default: null };
  for (const [name, keys] of Object.entries(expected.indexes)) {
    const tail = pgShape?.indexes[name]?.slice(keys.length);
    if (tail?.length === 1 && /^rowid( DESC)?$/.test(tail[0]!)) keys.push(tail[0]!);
  }
  if (table === 'personas') expected.indexes.personas_name_trgm = ['name'];
  return expected;
}

/** tables.ts: each table's columns with their TypeScript types, read from the source. */
function describedTables(): Record<string, Record<string, string>> {
  const text = readFileSync('src/store/sql/tables.ts', 'utf8');
  const fields = (iface: string): Record<string, string> => {
    const body = new RegExp(`export interface ${iface} \\{([^}]*)\\}`).exec(text)?.[1];
    if (body === undefined) throw new Error(`tables.ts has no interface ${iface}`);
    return Object.fromEntries([...body.matchAll(/^\s+(\w+): ([^;]+);/gm)].map((m) => [m[1], m[2]]));
  };
  return Object.fromEntries(
    Object.entries(fields('Tables')).map(([t, iface]) => [t, fields(iface)]),
  );
}

/** What a tables.ts type says of a column: its database type(s), nullability, and a default. */
function columnFromType(ts: string): { types: string[]; notNull: boolean; generated: boolean } {
  const generated = ts.startsWith('Generated<');
  const inner = generated ? ts.slice('Generated<'.length, -1) : ts;
  const [base] = inner.split('|').map((s) => s.trim());
  const types =
    base === 'string'
      ? ['text']
      : base === 'number'
        ? ['integer', 'real']
        : base === 'Buffer'
          ? ['bytes']
          : ['integer'];
  return { types, notNull: !inner.includes('null'), generated };
}

describe('schema parity between SQLite and PostgreSQL', () => {
  it('every table, column, type, default, index, key and foreign key matches, and tables.ts describes them', async () => {
    const dir = tempDir();
    const db = openDatabase(join(dir, 'parity.db'));
    try {
      migrate(db, join(dir, 'backups'));
      const url = await freshDatabase();
      await migratePostgres(url);
      const onSqlite = sqliteSchema(db);
      const onPostgres = await postgresSchema(url);

      const expected = Object.fromEntries(
        Object.entries(onSqlite).map(([t, shape]) => [
          t,
          expectedOnPostgres(db, t, shape, onPostgres[t]),
        ]),
      );
      expect(onPostgres).toEqual(expected);

      const described = describedTables();
      expect(Object.keys(described).sort()).toEqual(Object.keys(onSqlite).sort());
      for (const [table, columns] of Object.entries(described)) {
        const stored = onSqlite[table]!.columns;
        expect(Object.keys(columns).sort(), table).toEqual(Object.keys(stored).sort());
        for (const [column, ts] of Object.entries(columns)) {
          const want = columnFromType(ts);
          const got = stored[column]!;
          const where = `${table}.${column}: ${ts}`;
          expect(want.types, where).toContain(got.type);
          expect(got.notNull, where).toBe(want.notNull);
          const filled = got.default !== null || (column === 'id' && rowidAliased(db, table));
          expect(filled, where).toBe(want.generated);
        }
      }
    } finally {
      db.close();
    }
  });
});
