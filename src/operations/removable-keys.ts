import { z } from 'zod';

/**
 * For changes merged key by key into a stored object (an alert's condition and notifications):
 * a key can only be removed by saying so, as `null`, since a key left out keeps its value. The
 * suite apply relies on it to make an alert match a file that dropped a channel (#38).
 */

/** The shape with each optional field also accepting null (a required one stays as it is). */
export function nullableOptionals<S extends z.ZodRawShape>(
  shape: S,
): { [K in keyof S]: S[K] extends z.ZodOptional ? z.ZodNullable<S[K]> : S[K] } {
  const out: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(shape) as [string, z.ZodType][]) {
    const optional = field instanceof z.ZodOptional;
    const nullable = optional ? field.nullable() : field;
    // The wrapper would drop the field's description from the published document.
    out[key] = optional && field.description ? nullable.describe(field.description) : nullable;
  }
  return out as { [K in keyof S]: S[K] extends z.ZodOptional ? z.ZodNullable<S[K]> : S[K] };
}

/** A merged object without the keys a change set to null: what "null removes it" means. */
export function withoutNulls<T extends Record<string, unknown>>(merged: T): T {
  return Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== null)) as T;
}
