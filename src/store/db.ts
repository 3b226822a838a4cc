import Database from 'better-sqlite3';
import { closeSync, openSync, readSync } from 'node:fs';
import { AppError } from '../errors.js';

export type Db = Database.Database;

const SQLITE_HEADER = 'SQLite format 3\0';

/**
 * An existing store file must be a SQLite database: SQLite would take a zero-byte file for a new
 * empty store and write over it, and a damaged one fails later with a bare "not a database".
 */
function refuseDamaged(file: string): boolean {
  let head: Buffer;
  try {
    const fd = openSync(file, 'r');
    try {
      head = Buffer.alloc(16);
      head = head.subarray(0, readSync(fd, head, 0, 16, 0));
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true; // a new store
    throw err;
  }
  if (head.toString('latin1') !== SQLITE_HEADER) {
    throw new AppError(
      'store_damaged',
      500,
      `${file} is not a Callbench store (${head.length === 0 ? 'it is empty' : 'it is not a SQLite database'}). ` +
        'Restore it from a backup (the backups folder beside it holds the copies made before each ' +
        'upgrade), or move it away to start with an empty store.',
    );
  }
  return false;
}

/** Opens the store with the settings every connection needs (WAL, foreign keys, busy wait). */
export function openDatabase(file: string): Db {
  const isNew = refuseDamaged(file);
  // Created for its owner only; SQLite gives the WAL and shared-memory files the same mode.
  if (isNew && process.platform !== 'win32') closeSync(openSync(file, 'wx', 0o600));
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('foreign_keys = ON');
  db.pragma('synchronous = NORMAL');
  // The CLI writes while the app runs: wait for the other writer instead of failing at once.
  db.pragma('busy_timeout = 5000');
  return db;
}

/** JSON columns are read and written through these two, so a bad row fails loudly in one place. */
export const toJson = (value: unknown): string => JSON.stringify(value ?? null);
export const fromJson = <T>(text: string | null): T =>
  text === null ? (null as T) : (JSON.parse(text) as T);

/** Column name of each patchable field, and whether it is stored as JSON. */
export type ColumnMap = Record<string, { column: string; json?: boolean }>;
