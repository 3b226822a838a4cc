/**
 * Helpers for forms that edit JSON values the tester may also type raw: fields are read
 * defensively (a value typed as JSON may have any shape) and blank fields are left out.
 */

export type Row = Record<string, unknown>;

export const isRow = (v: unknown): v is Row =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The object, or an empty one for anything else. */
export const recordOf = (v: unknown): Row => (isRow(v) ? v : {});

/** A list of objects, or null when `v` is something else (the form cannot show it). */
export const rowsOf = (v: unknown): Row[] | null =>
  v === undefined || v === null ? [] : Array.isArray(v) && v.every(isRow) ? v : null;

/** Why a form of rows cannot show `v`, for JsonToggleField's formProblem. */
export const rowsProblem = (v: unknown): string | null =>
  rowsOf(v) === null ? 'The form shows a list of objects: fix the JSON, or save it as it is' : null;

/** What a text field shows for a value. */
export function textOf(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

/** A typed number, or absent when blank (the engine says why a bad one is bad). */
export const numberOf = (text: string): number | undefined =>
  text.trim() === '' ? undefined : Number(text);

/** The object with `key` set, or left out when the value is undefined. */
export function withField(row: Row, key: string, value: unknown): Row {
  const { [key]: _old, ...rest } = row;
  return value === undefined ? rest : { ...rest, [key]: value };
}

/** A leaf of the configuration tree: its dotted path and its synced value. */
export interface Leaf {
  path: string[];
  synced: string | number | boolean;
}

const isLeafValue = (v: unknown): v is string | number | boolean =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

/** The string, number and boolean leaves of a tree, depth first; lists are left to the JSON view. */
export function leavesOf(tree: unknown, path: string[] = []): Leaf[] {
  if (isLeafValue(tree)) return [{ path, synced: tree }];
  if (!isRow(tree)) return [];
  return Object.entries(tree).flatMap(([k, v]) => leavesOf(v, [...path, k]));
}

export const valueAt = (tree: unknown, path: string[]): unknown =>
  path.reduce<unknown>((node, k) => (isRow(node) ? node[k] : undefined), tree);

/** The tree with `path` set to `value`, or removed (and emptied parents with it) when undefined. */
export function withPath(tree: Row, [key, ...rest]: string[], value: unknown): Row {
  if (key === undefined) return tree;
  const { [key]: old, ...others } = tree;
  const next = rest.length ? withPath(isRow(old) ? old : {}, rest, value) : value;
  const empty = next === undefined || (isRow(next) && Object.keys(next).length === 0);
  return empty ? others : { ...others, [key]: next };
}
