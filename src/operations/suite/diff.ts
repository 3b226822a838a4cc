import { fieldName, type PathSegment } from './field-paths.js';

/**
 * The fields in which a file object differs from the stored resource's, as dotted paths
 * (`config.auth.token`, `metrics[1].weight`): what a plan's `update` names, never the values.
 *
 * A top-level field the file leaves out is no change: it keeps the stored value, so a
 * hand-written file need not repeat what the operations filled (a schedule's `timezone`). Inside
 * an object the file does give, the file is the whole truth: a key the stored side has and the
 * file lacks is a change (`config.headers.X-Trace`, `notifications.slack`), or a tester who
 * deletes a line would see "unchanged" and nothing applied. Defaults the engine fills inside
 * objects are the file schemas' too (kinds.ts), so a minimal file does not differ from what it
 * created. Lists of equal length are compared item by item; a list whose length changed is one
 * change of the list itself.
 */
export function changedPaths(stored: unknown, file: unknown): string[] {
  const out: string[] = [];
  if (!isObject(stored) || !isObject(file)) {
    walk(stored, file, [], out);
    return out;
  }
  for (const key of Object.keys(file)) walk(stored[key], file[key], [key], out);
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** An absent optional field and its null are the same to the API (null clears it). */
const isNothing = (v: unknown): boolean => v === undefined || v === null;

function walk(a: unknown, b: unknown, path: PathSegment[], out: string[]): void {
  if (Object.is(a, b) || (isNothing(a) && isNothing(b))) return;
  if (isObject(a) && isObject(b)) {
    const keys = [...Object.keys(a), ...Object.keys(b).filter((k) => !(k in a))];
    for (const key of keys) walk(a[key], b[key], [...path, key], out);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    a.forEach((item, i) => walk(item, b[i], [...path, i], out));
    return;
  }
  out.push(fieldName(path) || '(file)');
}
