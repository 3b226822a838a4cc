import { CompiledQuery, type Compilable, type Kysely, type QueryResult } from 'kysely';
import type { Tables } from './tables.js';

/**
 * Shapes kept per database: an import uses a few (a full page, its last page, its tool calls), and
 * list pages one per page size asked.
 */
const CAPACITY = 128;

interface Shape {
  sql: string;
  /** How many values it binds. */
  parameters: number;
}

/** Compiled texts by shape, per database (its dialect adapter, shared by its transactions). */
const texts = new WeakMap<object, Map<string, Shape>>();

function textsOf(db: Kysely<Tables>): Map<string, Shape> {
  const adapter = db.getExecutor().adapter;
  let found = texts.get(adapter);
  if (!found) {
    found = new Map<string, Shape>();
    texts.set(adapter, found);
  }
  return found;
}

/**
 * Runs a query whose text depends only on its shape (a multi-row INSERT of n rows, an IN list of n
 * values) with these values, compiling that shape once per database. The query builder parses and
 * compiles every value of such a query on every call: for a page of imported calls (1,500 values,
 * and 2,400 more for its tool calls) that was about a twentieth of an import's time. The first
 * call of a shape compiles the real query and checks that its bound values are `parameters`, in
 * that order: a caller that lists them differently fails at once instead of writing values into
 * the wrong columns.
 */
export async function runShaped<R>(
  db: Kysely<Tables>,
  shape: string,
  compile: () => CompiledQuery<R>,
  parameters: unknown[],
): Promise<QueryResult<R>> {
  const known = textsOf(db);
  let text = known.get(shape);
  if (!text) {
    const compiled = compile();
    const same =
      compiled.parameters.length === parameters.length &&
      compiled.parameters.every((v, i) => v === parameters[i]);
    if (!same) throw new Error(`the values of ${shape} are not bound in the order given`);
    text = { sql: compiled.sql, parameters: parameters.length };
    known.set(shape, text);
    if (known.size > CAPACITY) known.delete(known.keys().next().value!);
  } else if (text.parameters !== parameters.length) {
    throw new Error(`${shape} binds ${text.parameters} values, not ${parameters.length}`);
  }
  return db.executeQuery<R>(CompiledQuery.raw(text.sql, parameters));
}

/**
 * Inserts rows (each with the same columns, in the same order) with a multi-row INSERT compiled
 * once per row count. A value left undefined is bound as NULL: what the query builder makes of a
 * missing column of these tables (none has another default), without changing the text's shape.
 */
export function insertShaped<T extends object, R>(
  db: Kysely<Tables>,
  shape: string,
  rows: readonly T[],
  build: (rows: T[]) => Compilable<R>,
): Promise<QueryResult<R>> {
  const columns = Object.keys(rows[0]!) as (keyof T)[];
  const values: unknown[] = [];
  for (const row of rows)
    for (const column of columns) {
      const value = row[column];
      values.push(value === undefined ? null : value);
    }
  const defined = (): T[] =>
    rows.map((row) => {
      const copy = { ...row };
      for (const column of columns)
        if (copy[column] === undefined) Object.assign(copy, { [column]: null });
      return copy;
    });
  // The columns are part of the shape: rows built with other columns get a text of their own.
  const key = `${shape}:${columns.join(',')}:${rows.length}`;
  return runShaped(db, key, () => build(defined()).compile(), values);
}
