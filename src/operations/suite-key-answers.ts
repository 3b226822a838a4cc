import { slugKey, type KeyedKind } from '../domain/suite-keys.js';
import type { Store } from '../store/index.js';

/** A resource as stored: its suite key, or null before its first export or import. */
type WithStoredKey = { id: string; name: string; key: string | null };

/** The same resource as answered: its key, stored or derived. */
export type Keyed<T extends WithStoredKey> = Omit<T, 'key'> & { key: string };

/**
 * The rows as GET and list answer them (#38): each with its suite key, the stored one or else the
 * key an export would give it now. The derivation reads the kind's resources in scope (one light
 * query), so it runs only when an answered row has no stored key yet. `scope` is the workspace
 * (ignored for the engine-wide tools and alerts).
 */
export async function withKeys<T extends WithStoredKey>(
  store: Store,
  kind: KeyedKind,
  scope: string | null,
  rows: readonly T[],
): Promise<Keyed<T>[]> {
  if (rows.every((r) => r.key !== null)) return rows as unknown as Keyed<T>[];
  const keys = await store.suiteKeys.keys(kind, scope);
  // A row deleted between the two reads (no transaction holds them) still answers its slug.
  return rows.map((r) =>
    r.key !== null ? r : { ...r, key: keys.get(r.id) ?? slugKey(r.name, kind) },
  ) as Keyed<T>[];
}

/** One row as answered (see withKeys). */
export async function withKey<T extends WithStoredKey>(
  store: Store,
  kind: KeyedKind,
  scope: string | null,
  row: T,
): Promise<Keyed<T>> {
  return (await withKeys(store, kind, scope, [row]))[0]!;
}

/** A create or update answer: the record without its stored key (answers of GET carry it). */
export function withoutKey<T extends WithStoredKey>(row: T): Omit<T, 'key'> {
  const { key: _stored, ...rest } = row;
  return rest;
}
