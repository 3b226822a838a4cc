import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Tables } from './tables.js';

/**
 * Where SQLite and PostgreSQL need different SQL, the difference lives here, once; every store
 * module writes the rest of its queries once for both. Column arguments are references such as
 * `p.tags`, quoted as identifiers.
 */
export interface DialectSql {
  readonly name: 'sqlite' | 'postgres';
  /** The column contains the text, ignoring case; `%` and `_` in the text match themselves. */
  containsCaseless(column: string, text: string): RawBuilder<boolean>;
  /** The column as an ORDER BY key that ignores case. */
  caseless(column: string): RawBuilder<unknown>;
  /** The column's JSON array has the value (ignoring case when asked). */
  jsonArrayHas(
    column: string,
    value: string,
    options?: { caseless?: boolean },
  ): RawBuilder<boolean>;
  /** One object in the JSON array under `key` of the column's object has `field` = value. */
  jsonObjectsHave(
    column: string,
    at: { key: string; field: string },
    value: string,
  ): RawBuilder<boolean>;
  /** How many items the column's JSON array holds. */
  jsonArrayLength(column: string): RawBuilder<number>;
  /**
   * Persona names containing the text: SQLite's trigram index is a table of its own that the query
   * starts from; PostgreSQL's trigram index serves a plain ILIKE.
   */
  personaNameSearch(
    alias: string,
    text: string,
  ): { from: RawBuilder<unknown>; where: RawBuilder<boolean> };
  /**
   * Ends a SELECT that picks rows to claim (the next queued simulation): PostgreSQL locks them and
   * skips rows another server is claiming; SQLite's one writer at a time needs nothing.
   */
  forUpdateSkipLocked(): RawBuilder<unknown>;
  /**
   * Inside a transaction: waits until no other transaction holds the lock of this name, and holds
   * it until this one ends (PostgreSQL's advisory lock; SQLite's transactions are one at a time).
   */
  transactionLock(name: string): RawBuilder<unknown>;
  /**
   * The database's clock in epoch milliseconds. Leases are timed by it, never by a server's own
   * clock: servers whose clocks disagree still agree on when a lease lapses.
   */
  nowMs(): RawBuilder<number>;
  /** The names of a table's text columns. */
  textColumns(db: Kysely<Tables>, table: string): Promise<string[]>;
}

/** Escapes LIKE wildcards so that a user's `%` or `_` is matched literally. */
const likeContains = (s: string): string => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export const sqliteSql: DialectSql = {
  name: 'sqlite',
  // SQLite's LIKE ignores case for ASCII letters already.
  containsCaseless: (column, text) =>
    sql<boolean>`${sql.ref(column)} LIKE ${likeContains(text)} ESCAPE '\\'`,
  caseless: (column) => sql`${sql.ref(column)} COLLATE NOCASE`,
  jsonArrayHas: (column, value, options) =>
    options?.caseless
      ? sql<boolean>`EXISTS (SELECT 1 FROM json_each(${sql.ref(column)}) j WHERE lower(j.value) = lower(${value}))`
      : sql<boolean>`EXISTS (SELECT 1 FROM json_each(${sql.ref(column)}) j WHERE j.value = ${value})`,
  jsonObjectsHave: (column, at, value) =>
    sql<boolean>`EXISTS (SELECT 1 FROM json_each(${sql.ref(column)}, ${`$.${at.key}`}) j WHERE json_extract(j.value, ${`$.${at.field}`}) = ${value})`,
  jsonArrayLength: (column) => sql<number>`json_array_length(${sql.ref(column)})`,
  personaNameSearch: (alias, text) => ({
    // CROSS JOIN makes SQLite start from the index's matches instead of walking every persona.
    from: sql`personas_name_fts f CROSS JOIN personas ${sql.raw(alias)} ON ${sql.ref(`${alias}.rowid`)} = f.rowid`,
    where: sql<boolean>`personas_name_fts MATCH ${`"${text.replace(/"/g, '""')}"`}`,
  }),
  forUpdateSkipLocked: () => sql``,
  nowMs: () => sql<number>`CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)`,
  transactionLock: () => sql`SELECT 1`,
  textColumns: async (db, table) => {
    const { rows } = await sql<{
      name: string;
      type: string;
    }>`SELECT name, type FROM pragma_table_info(${table})`.execute(db);
    return rows.filter((c) => /TEXT|JSON/i.test(c.type)).map((c) => c.name);
  },
};

export const postgresSql: DialectSql = {
  name: 'postgres',
  containsCaseless: (column, text) =>
    sql<boolean>`${sql.ref(column)} ILIKE ${likeContains(text)} ESCAPE '\\'`,
  caseless: (column) => sql`lower(${sql.ref(column)})`,
  jsonArrayHas: (column, value, options) =>
    options?.caseless
      ? sql<boolean>`EXISTS (SELECT 1 FROM jsonb_array_elements_text(${sql.ref(column)}::jsonb) j(value) WHERE lower(j.value) = lower(${value}))`
      : sql<boolean>`EXISTS (SELECT 1 FROM jsonb_array_elements_text(${sql.ref(column)}::jsonb) j(value) WHERE j.value = ${value})`,
  jsonObjectsHave: (column, at, value) =>
    sql<boolean>`EXISTS (SELECT 1 FROM jsonb_array_elements(COALESCE(${sql.ref(column)}::jsonb -> ${at.key}, '[]'::jsonb)) j(value) WHERE j.value ->> ${at.field} = ${value})`,
  jsonArrayLength: (column) => sql<number>`jsonb_array_length(${sql.ref(column)}::jsonb)`,
  personaNameSearch: (alias, text) => ({
    from: sql`personas ${sql.raw(alias)}`,
    where: postgresSql.containsCaseless(`${alias}.name`, text),
  }),
  forUpdateSkipLocked: () => sql`FOR UPDATE SKIP LOCKED`,
  nowMs: () => sql<number>`CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)`,
  transactionLock: (name) => sql`SELECT pg_advisory_xact_lock(hashtextextended(${name}, 0))`,
  textColumns: async (db, table) => {
    const { rows } = await sql<{
      name: string;
    }>`SELECT column_name AS name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = ${table} AND data_type = 'text'`.execute(
      db,
    );
    return rows.map((r) => r.name);
  },
};
