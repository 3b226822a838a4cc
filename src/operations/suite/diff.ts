import { fieldName, type PathSegment } from './field-paths.js';

/**
 * The fields in which a file object differs from the stored resource's, as dotted paths
 * (`config.auth.token`, `metrics[1].weight`): what a plan's `update` names, never the values.
 * Objects are compared key by key, lists of equal length item by item, and a list whose length
 * changed is one change of the list itself. A field the file leaves out is no change: it keeps
 * the stored value, which the operations filled with their defaults (a tool's `method`, an
 * alert's `timeWindow`) that a hand-written file need not repeat.
 */
export function changedPaths(stored: unknown, file: unknown): string[] {
  const out: string[] = [];
  walk(stored, file, [], out);
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function walk(a: unknown, b: unknown, path: PathSegment[], out: string[]): void {
  if (Object.is(a, b) || b === undefined) return;
  if (isObject(a) && isObject(b)) {
    const keys = [...Object.keys(a), ...Object.keys(b).filter((k) => !(k in a))];
    for (const key of keys) walk(a[key], b[key], [...path, key], out);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    a.forEach((item, i) => walk(item, b[i], [...path, i], out));
    return;
  }
  // An absent optional field and its null are the same to the API (null clears it).
  if (a === undefined && b === null) return;
  out.push(fieldName(path) || '(file)');
}
