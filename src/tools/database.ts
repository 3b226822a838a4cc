import Database from 'better-sqlite3';
import pg from 'pg';
import { ToolFailure } from './outcome.js';
import { scanNamedParameters } from './sql-params.js';

export interface DatabaseConfig {
  driver: 'sqlite' | 'postgres';
  connection: string;
  query: string;
  timeoutMs?: number;
}

/** A connection string with its password hidden, for dry runs and messages. */
export function maskConnection(connection: string): string {
  return connection.replace(/(\/\/[^:/@]+:)[^@]+@/, '$1****@');
}

/**
 * Runs a database tool's query with its parameters bound (never interpolated). Read-only is
 * enforced by the driver itself: SQLite opens the file read-only, PostgreSQL runs the query in a
 * READ ONLY transaction that is rolled back.
 */
export async function runQuery(
  config: DatabaseConfig,
  params: Record<string, unknown>,
  timeoutMs: number,
): Promise<unknown[]> {
  const scan = scanNamedParameters(config.query);
  const bound = Object.fromEntries(scan.names.map((n) => [n, params[n] ?? null]));
  return config.driver === 'sqlite'
    ? runSqlite(config, bound)
    : runPostgres(config, scan, bound, timeoutMs);
}

function runSqlite(config: DatabaseConfig, bound: Record<string, unknown>): unknown[] {
  let db: Database.Database;
  try {
    db = new Database(config.connection, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new ToolFailure(
      'not_found',
      `The SQLite database could not be opened read-only: ${(err as Error).message}`,
    );
  }
  try {
    const stmt = db.prepare(config.query);
    if (!stmt.reader)
      throw new ToolFailure(
        'query_error',
        'Database tools are read-only: the query must return rows (SELECT)',
      );
    return stmt.all(coerceForSqlite(bound));
  } catch (err) {
    if (err instanceof ToolFailure) throw err;
    throw new ToolFailure('query_error', `The query failed: ${(err as Error).message}`);
  } finally {
    db.close();
  }
}

/** SQLite binds numbers, strings, null and bigint; booleans become 0/1. */
const coerceForSqlite = (bound: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(bound).map(([k, v]) => [k, typeof v === 'boolean' ? Number(v) : v]),
  );

async function runPostgres(
  config: DatabaseConfig,
  scan: ReturnType<typeof scanNamedParameters>,
  bound: Record<string, unknown>,
  timeoutMs: number,
): Promise<unknown[]> {
  const client = new pg.Client({
    connectionString: config.connection,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    query_timeout: timeoutMs,
  });
  client.on('error', () => {}); // a dropped connection is reported by the query that fails
  try {
    await client.connect();
  } catch (err) {
    const e = err as { code?: string; message: string };
    if (e.code === '28P01' || e.code === '28000')
      throw new ToolFailure('auth_error', `PostgreSQL refused the credentials: ${e.message}`);
    if (e.code === '3D000')
      throw new ToolFailure('not_found', `PostgreSQL database not found: ${e.message}`);
    if (/timeout/i.test(e.message))
      throw new ToolFailure('timeout', `PostgreSQL did not answer within ${timeoutMs} ms`);
    throw new ToolFailure('network_error', `PostgreSQL could not be reached: ${e.message}`);
  }
  try {
    await client.query('BEGIN TRANSACTION READ ONLY');
    const result = await client.query(
      scan.toPositional(),
      scan.names.map((n) => bound[n]),
    );
    return result.rows as Record<string, unknown>[];
  } catch (err) {
    const e = err as { code?: string; message: string };
    if (e.code === '57014' || /timeout/i.test(e.message))
      throw new ToolFailure('timeout', `The query did not finish within ${timeoutMs} ms`);
    if (e.code === '25006')
      throw new ToolFailure(
        'query_error',
        'Database tools are read-only: the query tried to write',
      );
    throw new ToolFailure('query_error', `The query failed: ${e.message}`);
  } finally {
    await client.query('ROLLBACK').catch(() => {});
    await client.end().catch(() => {});
  }
}
