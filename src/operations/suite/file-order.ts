import type { z } from 'zod';

/**
 * A value rewritten in the key order of the schema it was accepted by, nested objects too, so a
 * suite file's text never depends on the order a resource was created with. Fields the schema
 * does not name (ids, timestamps, statistics) are left out, and so are undefined ones; record
 * keys (headers, mappings, variables) are sorted, as their order means nothing.
 */

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  discriminator?: string;
  getter?: () => z.ZodType;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch']);

/** The schema under optional, nullable, default and the input side of a transform. */
export function unwrapSchema(schema: z.ZodType): z.ZodType {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if (WRAPPERS.has(def.type) && def.innerType) current = def.innerType;
    else if (def.type === 'pipe' && def.in) current = def.in;
    else if (def.type === 'lazy' && def.getter) current = def.getter();
    else return current;
  }
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The option of a union the value belongs to: by discriminator, else the first that accepts it. */
function unionOption(def: Def, value: unknown): z.ZodType | undefined {
  const options = def.options ?? [];
  if (def.discriminator && isPlainObject(value)) {
    const tag = value[def.discriminator];
    const match = options.find((o) => {
      const field = defOf(unwrapSchema(o)).shape?.[def.discriminator!];
      return field !== undefined && field.safeParse(tag).success;
    });
    if (match) return match;
  }
  return options.find((o) => o.safeParse(value).success) ?? options[0];
}

/** The value in the schema's key order (see the module's comment). */
export function ordered(schema: z.ZodType, value: unknown): unknown {
  if (value === null || value === undefined) return value;
  const inner = unwrapSchema(schema);
  const def = defOf(inner);
  if (def.type === 'object' && def.shape && isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(def.shape)) {
      if (value[key] !== undefined) out[key] = ordered(field, value[key]);
    }
    return out;
  }
  if (def.type === 'array' && def.element && Array.isArray(value))
    return value.map((item) => ordered(def.element!, item));
  if (def.type === 'record' && def.valueType && isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      if (value[key] !== undefined) out[key] = ordered(def.valueType, value[key]);
    }
    return out;
  }
  if (def.type === 'union') {
    const option = unionOption(def, value);
    return option ? ordered(option, value) : value;
  }
  return def.type === 'unknown' || def.type === 'any' ? sortedDeep(value) : value;
}

/** Free-form JSON (a tool check's expected arguments): its objects' keys sorted, at every depth. */
function sortedDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedDeep);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedDeep(value[key])]),
  );
}
