import { isRecord } from './records.js';

/**
 * Deep merge of plain objects; arrays and scalars in `over` replace (a null clears). Here, below
 * the store, because a variant agent is read as its parent's configuration with overrides on top.
 */
export function deepMerge<T>(base: T, over: unknown): T {
  if (!isRecord(base) || !isRecord(over)) return (over === undefined ? base : over) as T;
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = deepMerge(out[k], v);
  return out as T;
}
