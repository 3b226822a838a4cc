import { AppError } from '../../errors.js';

/** The database URL as it may be shown: its password replaced. */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '****';
    return u.toString();
  } catch {
    return 'the database URL (it is not a valid URL)';
  }
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
    (e.message ? e.message.replace(url, redactedUrl(url)) : String(err));
  return new AppError(
    'database_unavailable',
    500,
    `Cannot use the database at ${redactedUrl(url)}: ${cause}`,
  );
}
