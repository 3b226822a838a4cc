import pg from 'pg';
import { ToolFailure } from './outcome.js';
import { countStatements, scanNamedParameters } from './sql-params.js';
import { readSqliteOffThread } from './sqlite-readers.js';

export interface DatabaseConfig {
  driver: 'sqlite' | 'postgres';
  connection: string;
  query: string;
  timeoutMs?: number;
}

/**
 * A connection string with its passwords hidden, for answers, dry runs and messages: the one in
 * the userinfo (`postgres://user:pw@host`) and `password=` / `sslpassword=` parameters, in a URI's
 * query or a `key=value` connection string.
 */
export function maskConnection(connection: string): string {
  return connection
    .replace(/(\/\/[^:/@]+:)[^@]+@/, '$1****@')
    .replace(/((?:^|[?&\s])(?:ssl)?password=)('[^']*'|[^&\s]*)/gi, '$1****');
}

/**
 * Runs a database tool's query with its parameters bound (never interpolated), one statement only.
 * Read-only is enforced by the database itself: SQLite opens the file read-only in a reader
 * process of its own (killed at the timeout), PostgreSQL runs the statement through the extended
 * protocol inside a READ ONLY transaction that is rolled back.
 */
export async function runQuery(
  config: DatabaseConfig,
  params: Record<string, unknown>,
  timeoutMs: number,
): Promise<unknown[]> {
  // Saved tools were checked at save; this holds for any written before that check existed.
  if (countStatements(config.query) > 1)
    throw new ToolFailure('query_error', 'Database tools run one statement: the query holds more');
  const scan = scanNamedParameters(config.query);
  const bound = Object.fromEntries(scan.names.map((n) => [n, params[n] ?? null]));
  return config.driver === 'sqlite'
    ? readSqliteOffThread(
        { file: config.connection, query: config.query, params: bound },
        timeoutMs,
      )
    : runPostgres(config, scan, bound, timeoutMs);
}

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
    await readOnly(client, timeoutMs);
    // The extended protocol, even without parameters: it runs exactly one statement.
    const statement = {
      text: scan.toPositional(),
      values: scan.names.map((n) => bound[n]),
      queryMode: 'extended',
    };
    const result = await client.query(statement);
    return result.rows as Record<string, unknown>[];
  } catch (err) {
    const e = err as { code?: string; message: string };
    if (e.code === '57014' || /timeout/i.test(e.message))
      throw new ToolFailure('timeout', `The query did not finish within ${timeoutMs} ms`);
    if (e.code === '25006')
      throw new ToolFailure(
        'query_error',
        `Database tools are read-only: the query tried to write (${e.message})`,
      );
    if (e.code === '42501')
      throw new ToolFailure('query_error', `Database tools only read: ${e.message}`);
    throw new ToolFailure('query_error', `The query failed: ${e.message}`);
  } finally {
    await client.query('ROLLBACK').catch(() => {});
    await client.end().catch(() => {});
  }
}

/**
 * Opens the READ ONLY transaction the statement runs in, with the tool's timeout as its
 * statement_timeout. Connected as a superuser (PostgreSQL 14+), it also drops to the built-in
 * pg_read_all_data role: read-only transactions still let a superuser end other sessions
 * (pg_terminate_backend) or reload the configuration, which that role may not.
 */
async function readOnly(client: pg.Client, timeoutMs: number): Promise<void> {
  await client.query(
    `BEGIN TRANSACTION READ ONLY; SET LOCAL statement_timeout = ${Math.max(1, Math.round(timeoutMs))}`,
  );
  const { rows } = await client.query<{ drop: boolean }>(
    "SELECT current_setting('is_superuser') = 'on' AND current_setting('server_version_num')::int >= 140000 AS drop",
  );
  if (rows[0]?.drop) await client.query('SET LOCAL ROLE pg_read_all_data');
}
