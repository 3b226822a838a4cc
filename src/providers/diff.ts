import { isRecord } from '../domain/records.js';

/** Dotted paths of the leaves that differ between two values (arrays compare whole). */
export function changedPaths(before: unknown, after: unknown, prefix = ''): string[] {
  if (isRecord(before) && isRecord(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((k) => changedPaths(before[k], after[k], prefix ? `${prefix}.${k}` : k));
  }
  return JSON.stringify(before) === JSON.stringify(after) ? [] : [prefix];
}

/** Deep merge of plain objects; arrays and scalars in `over` replace (defined in the domain). */
export { deepMerge } from '../domain/deep-merge.js';

/** Leaf paths of a nested object, from its root (for listing local overrides). */
export function leafPaths(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return prefix ? [prefix] : [];
  return Object.entries(value).flatMap(([k, v]) => leafPaths(v, prefix ? `${prefix}.${k}` : k));
}
