import {
  Kysely,
  PostgresDialect,
  SqliteDialect,
  sql,
  type SqliteDatabase,
  type SqliteStatement,
} from 'kysely';
import pg from 'pg';
import type { Db } from '../db.js';
import { literalRows } from './literal-rows.js';
import { connectFailed } from './postgres-errors.js';
import { postgresSql, sqliteSql, type DialectSql } from './dialect.js';
import type { Tables } from './tables.js';

/** A database the store runs on: its query builder, its SQL differences, its transactions. */
export interface StoreDatabase {
  readonly kysely: Kysely<Tables>;
  readonly dialect: DialectSql;
  /** The SQLite connection underneath; null on PostgreSQL. */
  readonly sqlite: Db | null;
  /** Runs fn in one transaction, on one connection that fn's queries must use. */
  transaction<T>(fn: (tx: Kysely<Tables>) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Distinct SQL texts kept prepared: list queries are built from a few shapes, `IN` lists vary. */
const STATEMENT_CACHE = 500;

/** better-sqlite3 prepares each distinct SQL text once here; the query builder asks every time. */
function preparingOnce(db: Db): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => db.close(),
    prepare(text) {
      let stmt = statements.get(text);
      if (!stmt) {
        stmt = literalRows(db.prepare(text));
        statements.set(text, stmt);
        if (statements.size > STATEMENT_CACHE) statements.delete(statements.keys().next().value!);
      }
      return stmt;
    },
  };
}

/** The store's database on an open, migrated better-sqlite3 connection. */
export function sqliteDatabase(db: Db): StoreDatabase {
  const kysely = new Kysely<Tables>({
    dialect: new SqliteDialect({ database: preparingOnce(db) }),
  });
  return {
    kysely,
    dialect: sqliteSql,
    sqlite: db,
    // The one connection is held for the whole body, so nobody else's query lands inside it.
    // IMMEDIATE takes the write lock up front: a second process (the CLI) then waits for it
    // instead of failing when a read would have to become a write.
    transaction: (fn) =>
      kysely.connection().execute(async (conn) => {
        await sql`BEGIN IMMEDIATE`.execute(conn);
        try {
          const result = await fn(conn);
          await sql`COMMIT`.execute(conn);
          return result;
        } catch (err) {
          if (db.inTransaction) await sql`ROLLBACK`.execute(conn);
          throw err;
        }
      }),
    close: () => kysely.destroy(),
  };
}

const INT8 = 20;
const NUMERIC = 1700;

/**
 * Counts (int8), epoch milliseconds (bigint) and averages (numeric) arrive from PostgreSQL as
 * strings, since they may exceed a double; ours never do, and SQLite answers them as numbers.
 */
export const numericTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 || oid === NUMERIC
      ? (value: string) => Number(value)
      : (pg.types.getTypeParser(oid, format) as (
          value: string,
        ) => unknown)) as typeof pg.types.getTypeParser,
};

export interface PostgresOptions {
  /** Connections in the pool (default 10). */
  max?: number;
  /**
   * An idle connection that breaks (the server restarts, the network drops) is reported here; the
   * pool opens a new one for the next query. Without a listener it would end the process.
   */
  onIdleError?: (err: Error) => void;
}

/** The store's database on a PostgreSQL server (migrated by the caller). */
export function postgresDatabase(url: string, options: PostgresOptions = {}): StoreDatabase {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    types: numericTypes,
    // An unreachable server fails a query in seconds instead of hanging it.
    connectionTimeoutMillis: 10_000,
  });
  pool.on('error', (err) => options.onIdleError?.(err));
  // A connection that breaks while a transaction holds it between queries (the server restarted)
  // emits its error on the client, which the pool listens to only while the client is idle:
  // without a listener of its own, that error would end the process. The transaction's next
  // query fails, and is answered as an error.
  pool.on('connect', (client) => client.on('error', () => undefined));
  // A connection that cannot be opened fails with its socket's error (ECONNREFUSED, as an agent's
  // dead URL does too): marked here, it is known for the database's (isDatabaseOutage).
  const connecting = { connect: () => pool.connect().catch(connectFailed), end: () => pool.end() };
  const kysely = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: connecting }) });
  return {
    kysely,
    dialect: postgresSql,
    sqlite: null,
    transaction: (fn) => kysely.transaction().execute(fn),
    close: () => kysely.destroy(),
  };
}
