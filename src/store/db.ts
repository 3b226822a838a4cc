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

/** One row's partial update: which table and columns, the fields given, and which row. */
export interface RowPatch {
  table: string;
  columns: ColumnMap;
  patch: Record<string, unknown>;
  /** Columns set whatever the patch holds, such as `updated_at`. */
  always: Record<string, unknown>;
  where: { sql: string; args: unknown[] };
}

/**
 * Writes the defined fields of a partial update (plus always-set columns such as `updated_at`),
 * so every resource's update is built the same way and only from known column names.
 */
export function patchRow(db: Db, update: RowPatch): number {
  const { table, columns, patch, always, where } = update;
  const sets: string[] = [];
  const values: unknown[] = [];
  for (const [column, value] of Object.entries(always)) {
    sets.push(`${column} = ?`);
    values.push(value);
  }
  for (const [key, value] of Object.entries(patch)) {
    const target = columns[key];
    if (!target || value === undefined) continue;
    sets.push(`${target.column} = ?`);
    values.push(target.json ? toJson(value) : typeof value === 'boolean' ? Number(value) : value);
  }
  return db
    .prepare(`UPDATE ${table} SET ${sets.join(', ')} WHERE ${where.sql}`)
    .run(...values, ...where.args).changes;
}

export const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(',');

const statements = new WeakMap<Db, Map<string, Database.Statement>>();

/** Prepares each distinct SQL text once per connection (list queries are built from a few shapes). */
export function prepared(db: Db, sql: string): Database.Statement {
  let cache = statements.get(db);
  if (!cache) statements.set(db, (cache = new Map<string, Database.Statement>()));
  let stmt = cache.get(sql);
  if (!stmt) {
    stmt = db.prepare(sql);
    cache.set(sql, stmt);
  }
  return stmt;
}

/**
 * A page of rows and the total they are a page of: `FROM ... WHERE ...` (with `args`) counted once
 * and selected once, `SELECT cols` then the order, limit and offset.
 */
export function pageOf<R>(
  db: Db,
  q: { select: string; from: string; order: string; args: unknown[] },
  page: { limit: number; offset: number },
): { rows: R[]; total: number } {
  const total = prepared(db, `SELECT COUNT(*) FROM ${q.from}`)
    .pluck()
    .get(...q.args) as number;
  const rows = prepared(
    db,
    `SELECT ${q.select} FROM ${q.from} ORDER BY ${q.order} LIMIT ? OFFSET ?`,
  ).all(...q.args, page.limit, page.offset) as R[];
  return { rows, total };
}
