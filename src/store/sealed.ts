import { sql } from 'kysely';
import { fromJson, toJson } from './db.js';
import type { StoreContext } from './sql/query.js';

/**
 * The configuration tables whose JSON columns may hold sealed secrets (`{"$enc": ...}`), each with
 * what a person calls one of its rows.
 */
const SECRET_TABLES = {
  agents: { noun: 'agent', label: 'name' },
  tools: { noun: 'tool', label: 'name' },
  tool_versions: {
    noun: 'tool version',
    // PostgreSQL joins text and an integer only with the integer cast to text.
    label:
      "(SELECT name FROM tools WHERE tools.id = tool_versions.tool_id) || ' v' || CAST(version AS TEXT)",
  },
  alerts: { noun: 'alert', label: 'name' },
  settings: { noun: 'setting', label: 'key' },
} as const;
type SecretTable = keyof typeof SECRET_TABLES;

/** The setting holding a value sealed with the data dir's key, to tell a wrong key at start. */
export const KEY_CHECK_SETTING = 'secretKeyCheck';

/** A row holding at least one sealed secret, named for the person who must enter it again. */
export interface SealedPlace {
  table: SecretTable;
  rowid: number;
  column: string;
  /** What a person calls the row ("tool billing"), for the list of what to enter again. */
  label: string;
  value: unknown;
}

const isSealedValue = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && typeof (v as { $enc?: unknown }).$enc === 'string';

/** The value without its sealed parts: a sealed property is removed, a sealed whole is null. */
function withoutSealed(value: unknown): unknown {
  if (isSealedValue(value)) return null;
  if (Array.isArray(value)) return value.filter((v) => !isSealedValue(v)).map(withoutSealed);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => !isSealedValue(v))
      .map(([k, v]) => [k, withoutSealed(v)]),
  );
}

/** Where the store holds sealed secrets, and how to forget them when their key is lost. */
export function createSealedStore(ctx: StoreContext) {
  /** The rows of one table's column holding a sealed value. */
  async function placesIn(table: SecretTable, column: string): Promise<SealedPlace[]> {
    const { noun, label } = SECRET_TABLES[table];
    const keyCheck =
      table === 'settings' ? sql`${sql.ref('key')} <> ${KEY_CHECK_SETTING}` : sql`TRUE`;
    const { rows } = await sql<{ rowid: number; label: string | number; value: string }>`SELECT
        rowid AS rowid, ${sql.raw(label)} AS label, ${sql.ref(column)} AS value
      FROM ${sql.table(table)}
      WHERE ${sql.ref(column)} LIKE ${'%"$enc"%'} AND ${keyCheck}`.execute(ctx.db);
    return rows.map((r) => ({
      table,
      rowid: r.rowid,
      column,
      label: `${noun} ${r.label}`,
      value: fromJson<unknown>(r.value),
    }));
  }

  return {
    /** Every row and column holding a sealed value (the small configuration tables only). */
    async places(): Promise<SealedPlace[]> {
      const out: SealedPlace[] = [];
      for (const table of Object.keys(SECRET_TABLES) as SecretTable[])
        for (const column of await ctx.dialect.textColumns(ctx.db, table))
          out.push(...(await placesIn(table, column)));
      return out;
    },
    /** Removes the sealed values of these places, keeping everything else in their rows. */
    async forget(places: SealedPlace[]): Promise<void> {
      await ctx.atomic(async (db) => {
        for (const p of places) {
          const kept = withoutSealed(p.value);
          await sql`UPDATE ${sql.table(p.table)} SET ${sql.ref(p.column)} = ${
            kept === null ? null : toJson(kept)
          } WHERE rowid = ${p.rowid}`.execute(db);
        }
      });
    },
    /** Writes each place's value as `rewrite` makes it of the stored one (a new key seals again). */
    async rewrite(places: SealedPlace[], rewrite: (value: unknown) => unknown): Promise<void> {
      await ctx.atomic(async (db) => {
        for (const p of places)
          await sql`UPDATE ${sql.table(p.table)} SET ${sql.ref(p.column)} = ${toJson(
            rewrite(p.value),
          )} WHERE rowid = ${p.rowid}`.execute(db);
      });
    },
  };
}

export type SealedStore = ReturnType<typeof createSealedStore>;
