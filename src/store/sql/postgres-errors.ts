import { AppError } from '../../errors.js';

/** A password given as a query parameter (`?password=...`), which libpq and pg also read. */
const QUERY_PASSWORD = /([?&]password=)([^&#]*)/gi;

/**
 * The URL as typed, split where its credentials end. A password typed raw may hold '@', and also
 * '#', '?' or '/' that a URL parser would take for the end of the host, so no parser is asked: the
 * last '@' separates the credentials from the host (an '@' further on, in the database name or a
 * query value, masks more than the password, never less).
 */
function splitUrl(
  url: string,
): { scheme: string; user: string | null; password: string | null; rest: string } | null {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)(.*)$/s.exec(url.replace(QUERY_PASSWORD, '$1****'));
  if (!m) return null;
  const scheme = m[1]!;
  const afterScheme = m[2]!;
  const at = afterScheme.lastIndexOf('@');
  if (at < 0) return { scheme, user: null, password: null, rest: afterScheme };
  const credentials = afterScheme.slice(0, at);
  const colon = credentials.indexOf(':');
  return {
    scheme,
    user: colon < 0 ? credentials : credentials.slice(0, colon),
    password: colon < 0 ? null : credentials.slice(colon + 1),
    rest: afterScheme.slice(at + 1),
  };
}

/** The database URL as it may be shown: its password replaced, whole. */
export function redactedUrl(url: string): string {
  const parts = splitUrl(url);
  if (!parts) return 'the database URL (it is not a valid URL)';
  const { scheme, user, password, rest } = parts;
  if (user === null) return scheme + rest;
  return `${scheme}${user}${password === null ? '' : ':****'}@${rest}`;
}

/** Every spelling of the URL's passwords (as typed, and decoded), to take out of a message. */
function passwordsIn(url: string): string[] {
  const typed = [splitUrl(url)?.password, ...[...url.matchAll(QUERY_PASSWORD)].map((m) => m[2])];
  // A password of a few characters would mask those characters in every word of the message.
  const found = typed.filter((p): p is string => p !== undefined && p !== null && p.length >= 4);
  const decoded = found.map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  // Longest first, so that a spelling inside another is not left half-replaced.
  return [...new Set([...found, ...decoded])].sort((a, b) => b.length - a.length);
}

/** A message that may repeat the URL or its password, with both masked. */
export function withoutPassword(message: string, url: string): string {
  let out = message.split(url).join(redactedUrl(url));
  for (const password of passwordsIn(url)) out = out.split(password).join('****');
  return out;
}

/** PostgreSQL's SQLSTATE codes that a start can meet, in a person's words. */
const SQLSTATE_CAUSES: Record<string, string> = {
  '28P01': 'the password was refused',
  '28000': 'the user may not connect (pg_hba.conf refuses it)',
  '3D000': 'the database does not exist (create it first: createdb, or CREATE DATABASE)',
  '42501': 'the user lacks the privileges to create the schema',
  '57P03': 'the server is starting up or shutting down',
  '53300': 'the server has no free connection slot',
};

/** Node's socket error codes, in a person's words. */
const SOCKET_CAUSES: Record<string, string> = {
  ECONNREFUSED: 'nothing is listening there (is PostgreSQL running, on that port?)',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ECONNRESET: 'the server closed the connection',
};

/**
 * A failure to open or migrate a PostgreSQL store as one line that names the cause, without the
 * password. Errors that are already ours (a newer schema, say) pass through unchanged.
 */
export function databaseStartError(url: string, err: unknown): Error {
  if (err instanceof AppError) return err;
  const e = err as { code?: string; message?: string; errors?: { code?: string }[] };
  // A host with several addresses fails with an AggregateError holding each socket's error.
  const code = e.code ?? e.errors?.[0]?.code;
  const cause =
    (code && (SQLSTATE_CAUSES[code] ?? SOCKET_CAUSES[code])) ??
    withoutPassword(e.message ?? String(err), url);
  return new AppError(
    'database_unavailable',
    500,
    `Cannot use the database at ${redactedUrl(url)}: ${cause}`,
  );
}

/** Errors of connections the pool could not open: a socket's own error says nothing of where. */
const failedConnects = new WeakSet<object>();

/** Marks an error of opening a connection to the database (the pool's connect failed). */
export function connectFailed(err: unknown): never {
  if (typeof err === 'object' && err !== null) failedConnects.add(err);
  throw err;
}

/** SQLSTATE codes of a database that went away: a connection exception (08xxx), a shutdown, full. */
const OUTAGE_SQLSTATE = /^(08...|57P0[123]|53300)$/;
/** What pg says when the connection under a query goes (its own errors, with no code). */
const CONNECTION_LOST =
  /^(Connection terminated|Client has encountered a connection error|Client was closed|timeout exceeded when trying to connect)/;

/**
 * Whether a store call failed because the database could not be reached or dropped the connection
 * (a failover, a restart, a network cut), not because of what was asked: the work that met it is
 * not at fault, and should run again rather than fail.
 */
export function isDatabaseOutage(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  if (failedConnects.has(err)) return true;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && OUTAGE_SQLSTATE.test(code)) return true;
  return typeof message === 'string' && CONNECTION_LOST.test(message);
}
