import { fromJson, toJson, type Db } from './db.js';

/**
 * The configuration tables whose JSON columns may hold sealed secrets (`{"$enc": ...}`), each with
 * what a person calls one of its rows.
 */
const SECRET_TABLES = {
  agents: { noun: 'agent', label: 'name' },
  tools: { noun: 'tool', label: 'name' },
  tool_versions: {
    noun: 'tool version',
    label: "(SELECT name FROM tools WHERE tools.id = tool_versions.tool_id) || ' v' || version",
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
export function createSealedStore(db: Db) {
  const textColumns = (table: string): string[] =>
    (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string; type: string }[])
      .filter((c) => /TEXT|JSON/i.test(c.type))
      .map((c) => c.name);

  return {
    /** Every row and column holding a sealed value (the small configuration tables only). */
    places(): SealedPlace[] {
      return (Object.keys(SECRET_TABLES) as SecretTable[]).flatMap((table) =>
        textColumns(table).flatMap((column) =>
          (
            db
              .prepare(
                `SELECT rowid AS rowid, ${SECRET_TABLES[table].label} AS label, ${column} AS value FROM ${table} WHERE ${column} LIKE '%"$enc"%' AND ${table === 'settings' ? `key <> '${KEY_CHECK_SETTING}'` : '1'}`,
              )
              .all() as { rowid: number; label: string | number; value: string }[]
          ).map((r) => ({
            table,
            rowid: r.rowid,
            column,
            label: `${SECRET_TABLES[table].noun} ${r.label}`,
            value: fromJson<unknown>(r.value),
          })),
        ),
      );
    },
    /** Removes the sealed values of these places, keeping everything else in their rows. */
    forget(places: SealedPlace[]): void {
      db.transaction(() => {
        for (const p of places) {
          const kept = withoutSealed(p.value);
          db.prepare(`UPDATE ${p.table} SET ${p.column} = ? WHERE rowid = ?`).run(
            kept === null ? null : toJson(kept),
            p.rowid,
          );
        }
      })();
    },
  };
}

export type SealedStore = ReturnType<typeof createSealedStore>;
