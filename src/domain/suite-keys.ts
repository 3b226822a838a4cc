import { z } from 'zod';

/**
 * Suite keys (#38): how a suite's files name a persona, scorecard, scenario, schedule, tool or
 * alert. A resource's key is stored when it is first exported or imported and kept after a rename;
 * until then every answer shows the key an export would give it, derived here from the names of the
 * resources of its kind in scope (a workspace, or the engine for tools and alerts).
 */

/** The kinds that carry a key, in the order a suite lists them. */
export const KEYED_KINDS = [
  'persona',
  'scorecard',
  'scenario',
  'schedule',
  'tool',
  'alert',
] as const;
export type KeyedKind = (typeof KEYED_KINDS)[number];

/** Tools and alerts belong to no workspace: their keys are unique engine-wide. */
export const ENGINE_WIDE_KINDS: ReadonlySet<KeyedKind> = new Set(['tool', 'alert']);

export const SUITE_KEY = /^[a-z0-9][a-z0-9-]*$/;

export const SuiteKey = z
  .string()
  .regex(SUITE_KEY, 'a key is lower-case letters, digits and dashes, not starting with a dash')
  .describe(
    "The suite key: the resource's name in files (stored when first exported or imported, kept after a rename; until then the key an export would give)",
  );

/**
 * The key a name gives: lower case, every run of other characters one dash, no dash at either end
 * (`Angry Customer (EN)` → `angry-customer-en`). A name with no letter or digit a key can hold
 * (`???`, `日本`) gives `fallback`, the kind's name.
 */
export function slugKey(name: string, fallback: string): string {
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug || fallback;
}

/** One resource as the derivation needs it. */
export interface KeyedRow {
  id: string;
  name: string;
  key: string | null;
  created_at: string;
}

/**
 * The key of every row: a stored key stays; the others, in creation order, get the slug of their
 * name, or `-2`, `-3`... after it when a stored key or an earlier derived one holds it. The rows
 * should come in creation order (ties of `created_at` keep their given order), so that the first
 * made keeps the plain slug whatever order they are passed in otherwise.
 */
export function deriveKeys(rows: readonly KeyedRow[], fallback = 'item'): Map<string, string> {
  const taken = new Set<string>();
  for (const row of rows) if (row.key !== null) taken.add(row.key);
  const keys = new Map<string, string>();
  const ordered = [...rows].sort((a, b) =>
    a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0,
  );
  for (const row of ordered) {
    if (row.key !== null) {
      keys.set(row.id, row.key);
      continue;
    }
    const slug = slugKey(row.name, fallback);
    let key = slug;
    for (let n = 2; taken.has(key); n++) key = `${slug}-${n}`;
    taken.add(key);
    keys.set(row.id, key);
  }
  return keys;
}
