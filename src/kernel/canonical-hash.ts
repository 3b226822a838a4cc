// Canonical JSON and its SHA-256: what makes "the same test" a comparable fact. Two values that
// differ only in the order of their object keys give the same text and the same hash, so a record
// read back from either database (or written by another build) hashes as it did when it ran.
import { createHash } from 'node:crypto';

/**
 * A value with every object's keys sorted, recursively. Arrays keep their order (a script's lines,
 * a scorecard's metrics are ordered data); `undefined` fields are dropped as JSON drops them.
 */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => (v === undefined ? null : sortedKeys(v)));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = sortedKeys(v);
  }
  return out;
}

/** The canonical JSON text of a value: keys sorted at every depth, no whitespace. */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(sortedKeys(value)) ?? 'null';

/** SHA-256 of the canonical JSON of a value, as 64 lowercase hex digits. */
export const canonicalHash = (value: unknown): string =>
  createHash('sha256').update(canonicalJson(value)).digest('hex');
