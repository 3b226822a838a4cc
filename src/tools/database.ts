import pg from 'pg';
import { ToolFailure } from './outcome.js';
import { AppError, invalidField } from '../errors.js';
import { countStatements, scanNamedParameters } from './sql-params.js';
import { readStatementProblem } from './sql-statement.js';
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
 * process of its own (killed at the timeout), PostgreSQL runs one read statement (decided by
 * parsing) through the extended protocol, as a role without server-side powers, inside a READ ONLY
 * transaction that is rolled back.
 */
export async function runQuery(
  config: DatabaseConfig,
  params: Record<string, unknown>,
  timeoutMs: number,
): Promise<unknown[]> {
  // Saved tools were checked at save; this holds for any written before that check existed.
  if (config.driver === 'sqlite' && countStatements(config.query) > 1)
    throw new ToolFailure('query_error', 'Database tools run one statement: the query holds more');
  const problem = config.driver === 'postgres' ? readStatementProblem(config.query) : null;
  if (problem)
    throw new ToolFailure('query_error', `Database tools run one read statement: ${problem}`);
  const scan = scanNamedParameters(config.query);
  const bound = Object.fromEntries(scan.names.map((n) => [n, params[n] ?? null]));
  return config.driver === 'sqlite'
    ? readSqliteOffThread(
        { file: config.connection, query: config.query, params: bound },
        timeoutMs,
      )
    : runPostgres(config, scan, bound, timeoutMs);
}

/** A connected client, or the ToolFailure that says why there is none. */
async function connectPostgres(connection: string, timeoutMs: number): Promise<pg.Client> {
  try {
    const client = new pg.Client({
      connectionString: connection,
      connectionTimeoutMillis: timeoutMs,
      statement_timeout: timeoutMs,
      query_timeout: timeoutMs,
    });
    client.on('error', () => {}); // a dropped connection is reported by the query that fails
    await client.connect();
    return client;
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
}

async function runPostgres(
  config: DatabaseConfig,
  scan: ReturnType<typeof scanNamedParameters>,
  bound: Record<string, unknown>,
  timeoutMs: number,
): Promise<unknown[]> {
  const client = await connectPostgres(config.connection, timeoutMs);
  try {
    // Strings are read as the check at save read them: a backslash escapes only in E'...'.
    await client.query(
      `BEGIN TRANSACTION READ ONLY; SET LOCAL statement_timeout = ${Math.max(1, Math.round(timeoutMs))}; SET LOCAL standard_conforming_strings = on`,
    );
    // A role may have gained rights since the tool was saved.
    const role = await roleProblem(client);
    if (role) throw invalidField('config.connection', role);
    // The extended protocol, even without parameters: it runs exactly one statement.
    const statement = {
      text: scan.toPositional(),
      values: scan.names.map((n) => bound[n]),
      queryMode: 'extended',
    };
    const result = await client.query(statement);
    return result.rows as Record<string, unknown>[];
  } catch (err) {
    throw err instanceof AppError ? err : queryFailure(err, timeoutMs);
  } finally {
    await client.query('ROLLBACK').catch(() => {});
    await client.end().catch(() => {});
  }
}

function queryFailure(err: unknown, timeoutMs: number): ToolFailure {
  const e = err as { code?: string; message: string };
  if (e.code === '57014' || /timeout/i.test(e.message))
    return new ToolFailure('timeout', `The query did not finish within ${timeoutMs} ms`);
  if (e.code === '25006')
    return new ToolFailure(
      'query_error',
      `Database tools are read-only: the query tried to write (${e.message})`,
    );
  if (e.code === '42501')
    return new ToolFailure('query_error', `Database tools only read: ${e.message}`);
  return new ToolFailure('query_error', `The query failed: ${e.message}`);
}

/**
 * The roles that can reach outside the database: superusers (a READ ONLY transaction still lets
 * them RESET ROLE, end other sessions or run COPY ... TO PROGRAM from DO), members of a superuser
 * role (they can SET ROLE to it), of the predefined roles that read, write or run files on the
 * server, and of pg_signal_backend (a plain SELECT of pg_terminate_backend would end others' sessions). Checked for session_user: whatever role it is set to, it can go back to itself.
 */
const ROLE_CHECK = `SELECT s.rolname AS role, s.rolsuper AS superuser,
  (SELECT r.rolname FROM pg_roles r WHERE r.rolsuper AND r.oid <> s.oid
    AND pg_has_role(s.oid, r.oid, 'MEMBER') ORDER BY r.rolname LIMIT 1) AS superuser_role,
  (SELECT string_agg(r.rolname, ', ' ORDER BY r.rolname) FROM pg_roles r
    WHERE r.rolname IN ('pg_execute_server_program', 'pg_write_server_files', 'pg_read_server_files',
      'pg_signal_backend')
      AND pg_has_role(s.oid, r.oid, 'MEMBER')) AS server_roles
FROM pg_roles s WHERE s.rolname = session_user`;

/** Why the connected role may not run tools (superuser first: it is a member of everything). */
async function roleProblem(client: pg.Client): Promise<string | null> {
  const { rows } = await client.query<{
    role: string;
    superuser: boolean;
    superuser_role: string | null;
    server_roles: string | null;
  }>(ROLE_CHECK);
  const row = rows[0];
  if (!row) return 'connects as a role PostgreSQL does not list: use a plain read role';
  const who = `role "${row.role}"`;
  if (row.superuser) return `${who} connects as superuser: use a plain read role`;
  if (row.superuser_role)
    return `${who} is a member of superuser role "${row.superuser_role}": use a plain read role`;
  if (row.server_roles) return `${who} is a member of ${row.server_roles}: use a plain read role`;
  return null;
}

/**
 * At save, why a PostgreSQL tool's connection may not be used, or null. A server that cannot be
 * reached (or refuses the credentials) is no reason to refuse the tool: every call checks again.
 */
export async function postgresRoleProblem(
  connection: string,
  timeoutMs: number,
): Promise<string | null> {
  let client: pg.Client;
  try {
    client = await connectPostgres(connection, timeoutMs);
  } catch {
    return null;
  }
  try {
    return await roleProblem(client);
  } catch {
    return null;
  } finally {
    await client.end().catch(() => {});
  }
}
