// A SQLite tool's query runs in a process of its own: better-sqlite3 steps a query in native code
// that neither the engine's thread nor a worker thread's terminate() can interrupt, so a runaway
// query (a recursive CTE counting to a billion) is ended by killing this process instead.
import Database from 'better-sqlite3';
import type { FailureType } from '../domain/tools.js';

/** The argument the engine starts its reader processes with. */
export const READER_FLAG = '--callbench-sqlite-reader';

export interface SqliteReadRequest {
  file: string;
  query: string;
  params: Record<string, unknown>;
}

export type SqliteReadReply =
  | { rows: unknown[] }
  | { error: { type: Extract<FailureType, 'not_found' | 'query_error'>; message: string } };

/** SQLite binds numbers, strings, null and bigint; booleans become 0/1. */
const coerce = (params: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(params).map(([k, v]) => [k, typeof v === 'boolean' ? Number(v) : v]),
  );

export function readSqlite({ file, query, params }: SqliteReadRequest): SqliteReadReply {
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    return {
      error: {
        type: 'not_found',
        message: `The SQLite database could not be opened read-only: ${(err as Error).message}`,
      },
    };
  }
  try {
    const stmt = db.prepare(query);
    if (!stmt.reader)
      return {
        error: {
          type: 'query_error',
          message: 'Database tools are read-only: the query must return rows (SELECT)',
        },
      };
    return { rows: stmt.all(coerce(params)) };
  } catch (err) {
    return {
      error: { type: 'query_error', message: `The query failed: ${(err as Error).message}` },
    };
  } finally {
    db.close();
  }
}

// Run as the engine's reader process: answer each request in turn; leave with the engine.
if (process.send && process.argv.includes(READER_FLAG)) {
  process.on('message', (request: SqliteReadRequest) => process.send!(readSqlite(request)));
  process.on('disconnect', () => process.exit(0));
  process.send('ready');
}
