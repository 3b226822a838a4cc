import { sql, type RawBuilder } from 'kysely';
import type { DialectSql } from './dialect.js';

/**
 * One object of a JSON array held in a text column (a stored `results` list: the result of one
 * metric), picked out and read in SQL, so that a query needs no round trip per row for it. The two
 * databases spell it differently; the SQL around it is written once.
 */
export interface JsonElements {
  /** The first object of the JSON array `array` whose `field` equals `value` (a scalar, or null). */
  elementWhere(
    array: RawBuilder<unknown>,
    field: string,
    value: RawBuilder<unknown>,
  ): RawBuilder<unknown>;
  /** A string field of a JSON object (null when absent or JSON null). */
  text(object: RawBuilder<unknown>, field: string): RawBuilder<string | null>;
  /** A boolean field of a JSON object as the text `true` or `false` (else another text, or null). */
  flag(object: RawBuilder<unknown>, field: string): RawBuilder<string | null>;
}

// Field names are the store's own constants, written into the text: one statement per query.
const path = (field: string) => sql.lit(`$.${field}`);

const sqliteElements: JsonElements = {
  elementWhere: (array, field, value) =>
    sql`(SELECT j.value FROM json_each(${array}) j WHERE json_extract(j.value, ${path(field)}) = ${value} LIMIT 1)`,
  text: (object, field) => sql`json_extract(${object}, ${path(field)})`,
  // json_extract answers 1/0 for a JSON boolean; json_type names it `true` or `false`.
  flag: (object, field) => sql`json_type(${object}, ${path(field)})`,
};

const postgresElements: JsonElements = {
  elementWhere: (array, field, value) =>
    sql`(SELECT j.value FROM jsonb_array_elements((${array})::jsonb) j(value) WHERE j.value ->> ${sql.lit(field)} = ${value} LIMIT 1)`,
  text: (object, field) => sql`((${object}) ->> ${sql.lit(field)})`,
  flag: (object, field) => sql`((${object}) ->> ${sql.lit(field)})`,
};

export const jsonElements = (dialect: DialectSql): JsonElements =>
  dialect.name === 'sqlite' ? sqliteElements : postgresElements;
