import { sql, type Kysely, type RawBuilder } from 'kysely';
import { toJson, type ColumnMap } from '../db.js';
import type { ReadCache } from '../read-cache.js';
import type { DialectSql } from './dialect.js';
import type { Tables } from './tables.js';

/** What every store module is built on: the queries' target, the dialect's SQL, the read cache. */
export interface StoreContext {
  /** The database, or the transaction the module runs inside. */
  db: Kysely<Tables>;
  dialect: DialectSql;
  cache: ReadCache;
  /**
   * Runs fn's writes together: in a new transaction on the database, or in the one the module
   * already runs inside. fn must use the db it is given.
   */
  atomic<T>(fn: (db: Kysely<Tables>) => Promise<T>): Promise<T>;
}

/** Rows an INSERT, UPDATE or DELETE touched, as both drivers report it. */
export const affected = (result: { numAffectedRows?: bigint }): number =>
  Number(result.numAffectedRows ?? 0n);

/** A comma-separated list of bound values, for `IN (...)`. */
export const valueList = (values: readonly unknown[]): RawBuilder<unknown> =>
  sql.join(values.map((v) => sql`${v}`));

/** One row's partial update: which table and columns, the fields given, and which row. */
export interface RowPatch {
  table: keyof Tables;
  columns: ColumnMap;
  patch: Record<string, unknown>;
  /** Columns set whatever the patch holds, such as `updated_at`. */
  always: Record<string, unknown>;
  where: RawBuilder<boolean>;
}

/**
 * Writes the defined fields of a partial update (plus always-set columns such as `updated_at`),
 * so every resource's update is built the same way and only from known column names.
 */
export async function patchRow(db: Kysely<Tables>, update: RowPatch): Promise<number> {
  const { table, columns, patch, always, where } = update;
  const sets: RawBuilder<unknown>[] = [];
  for (const [column, value] of Object.entries(always))
    sets.push(sql`${sql.ref(column)} = ${value}`);
  for (const [key, value] of Object.entries(patch)) {
    const target = columns[key];
    if (!target || value === undefined) continue;
    const stored = target.json ? toJson(value) : typeof value === 'boolean' ? Number(value) : value;
    sets.push(sql`${sql.ref(target.column)} = ${stored}`);
  }
  return affected(
    await sql`UPDATE ${sql.table(table)} SET ${sql.join(sets)} WHERE ${where}`.execute(db),
  );
}

/**
 * A bound LIMIT or OFFSET that SQLite plans once. Its planner reads the value bound to a bare
 * `LIMIT ?`, so it prepares the statement again whenever a value is bound, even the same one: 15
 * of the persona page query's 95 µs alone, and under load the uncached persona page answered 2,189
 * requests a second before, 2,834 after. A CAST hides the value from the planner. BIGINT, since an
 * offset may pass 2^31, which PostgreSQL's INTEGER refuses.
 */
export const boundCount = (n: number): RawBuilder<unknown> => sql`CAST(${n} AS BIGINT)`;

/**
 * A page of rows and the total they are a page of: `FROM ... WHERE ...` counted once and selected
 * once, `SELECT cols` then the order, limit and offset.
 */
export async function pageOf<R>(
  db: Kysely<Tables>,
  q: { select: RawBuilder<unknown>; from: RawBuilder<unknown>; order: RawBuilder<unknown> },
  page: { limit: number; offset: number },
): Promise<{ rows: R[]; total: number }> {
  const counted = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM ${q.from}`.execute(db);
  const { rows } = await sql<R>`SELECT ${q.select} FROM ${q.from} ORDER BY ${q.order}
    LIMIT ${boundCount(page.limit)} OFFSET ${boundCount(page.offset)}`.execute(db);
  return { rows, total: counted.rows[0]?.n ?? 0 };
}
