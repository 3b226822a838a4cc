import { fromJson, toJson, type ColumnMap } from './db.js';

/**
 * How one field of a record is stored: one column (its text JSON, or its boolean a 0/1 flag, which
 * `nullable` lets be null: not decided yet), or an object over several columns (`created_by` as
 * `created_by_id` and `created_by_name`).
 */
export type FieldColumn =
  | { column: string; json?: boolean; flag?: boolean; nullable?: boolean }
  | { columns: Record<string, string> };

/** Every field of a record, with its column: a field added to the record fails to compile here. */
export type RecordColumnMap<R> = { readonly [K in keyof R]-?: FieldColumn };

type Row = Record<string, unknown>;
type Reader<T> = (row: Row, ...extra: unknown[]) => T;

/** The expression that reads one field from the row `r`, names quoted as JSON string literals. */
function readExpression(spec: FieldColumn): string {
  if ('columns' in spec) {
    const parts = Object.entries(spec.columns).map(
      ([field, column]) => `${JSON.stringify(field)}: r[${JSON.stringify(column)}]`,
    );
    return `{ ${parts.join(', ')} }`;
  }
  const value = `r[${JSON.stringify(spec.column)}]`;
  if (spec.json) return `parse(${value})`;
  if (!spec.flag) return value;
  const flag = `${value} === 1 || ${value} === true`;
  return spec.nullable ? `(${value} === null ? null : ${flag})` : flag;
}

/**
 * A reader that builds the record (or these fields of it, then the `extra` values passed after the
 * row) as one object literal: every record shares one hidden class, and a list page pays no
 * per-row loop, spread or omit (the persona page's rows are built on every uncached list request).
 */
function compileReader<T>(map: Record<string, FieldColumn>, fields: string[], extra: string[]) {
  const parts = fields.map((f) => `${JSON.stringify(f)}: ${readExpression(map[f]!)}`);
  extra.forEach((name, i) => parts.push(`${JSON.stringify(name)}: x${i}`));
  const params = ['r', ...extra.map((_, i) => `x${i}`)].join(', ');
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- generated from quoted names only
  const make = new Function('parse', `return (${params}) => ({ ${parts.join(', ')} });`) as (
    p: typeof fromJson,
  ) => Reader<T>;
  return make(fromJson);
}

/** The stored value of one single-column field (JSON text, 0/1 or null, or as it is). */
function stored(spec: { json?: boolean; flag?: boolean; nullable?: boolean }, value: unknown) {
  if (spec.json) return value === null ? null : toJson(value);
  if (spec.flag) return spec.nullable && value === null ? null : value ? 1 : 0;
  return value;
}

/** Sets the column (or the columns) of one field in a row being written. */
function writeField(row: Row, spec: FieldColumn, value: unknown): void {
  if ('columns' in spec) {
    for (const [part, column] of Object.entries(spec.columns)) row[column] = (value as Row)[part];
  } else row[spec.column] = stored(spec, value);
}

/**
 * One table's rows from one column map of its record (after Actual Budget's convertForInsert and
 * convertFromSelect): reading a row, the values of an INSERT, the columns a patch may set, and the
 * column list of a select of some fields. The map's key order is the order records are built in.
 */
export function recordColumns<R extends object>(map: RecordColumnMap<R>) {
  const specs = map as Record<string, FieldColumn>;
  const all = Object.keys(specs);
  const columnsOf = (fields: readonly string[]): string[] =>
    fields.flatMap((f) => {
      const spec = specs[f]!;
      return 'columns' in spec ? Object.values(spec.columns) : [spec.column];
    });
  return {
    /** The map itself: each field of the record with its column. */
    fields: map,
    /** Reads a whole record from a row of `SELECT *`. */
    fromRow: compileReader<R>(specs, all, []),
    /** A reader of these fields (in the map's order), then one value per `extra` name. */
    reader<T>(fields: readonly string[], extra: string[] = []): Reader<T> {
      return compileReader<T>(
        specs,
        all.filter((f) => fields.includes(f)),
        extra,
      );
    },
    /** The columns of these fields, each prefixed with a table alias, for a SELECT list. */
    selectList(alias: string, fields: readonly string[]): string {
      return columnsOf(all.filter((f) => fields.includes(f)))
        .map((c) => `${alias}.${c}`)
        .join(', ');
    },
    /** The values of an INSERT of the record. */
    toRow(record: R): Row {
      const row: Row = {};
      for (const [field, spec] of Object.entries(specs))
        writeField(row, spec, (record as Row)[field]);
      return row;
    },
    /** The values of an UPDATE that sets these fields (those undefined are left as they are). */
    rowOf(fields: Partial<R>): Row {
      const row: Row = {};
      for (const [field, value] of Object.entries(fields))
        if (value !== undefined && specs[field]) writeField(row, specs[field], value);
      return row;
    },
    /** The fields a patch may set: single columns, less the ones named (identity, bookkeeping). */
    patchColumns(except: readonly (keyof R & string)[]): ColumnMap {
      const columns: ColumnMap = {};
      for (const [field, spec] of Object.entries(specs)) {
        if ('columns' in spec || except.includes(field as keyof R & string)) continue;
        columns[field] = { column: spec.column, ...(spec.json ? { json: true } : {}) };
      }
      return columns;
    },
  };
}
