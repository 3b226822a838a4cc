import type { ErrorDetail } from '../errors.js';

export interface ParameterDefinition {
  name: string;
  type: 'string' | 'number' | 'boolean';
  description?: string;
  required?: boolean;
  default?: string | number | boolean;
  min?: number;
  max?: number;
  enum?: (string | number)[];
  dynamicValue?: { basedOn: string; mapping: Record<string, string | number | boolean> };
}

/** Paths as key lists: a tool's mapping reads the same few paths on every call. */
const splitPaths = new Map<string, string[]>();
const PATHS_KEPT = 1000;

function keysOf(path: string): string[] {
  let keys = splitPaths.get(path);
  if (!keys) {
    keys = path
      .replace(/\[(\d+)\]/g, '.$1')
      .split('.')
      .filter((k) => k !== '');
    if (splitPaths.size >= PATHS_KEPT) splitPaths.clear();
    splitPaths.set(path, keys);
  }
  return keys;
}

/** Reads a dotted path (`customer.tier`, `items.0.id`, `items[0].id`) from a value. */
export function readPath(value: unknown, path: string): { found: boolean; value: unknown } {
  const keys = keysOf(path);
  let current: unknown = value;
  for (const key of keys) {
    if (
      current === null ||
      typeof current !== 'object' ||
      !Object.prototype.hasOwnProperty.call(current, key)
    ) {
      return { found: false, value: undefined };
    }
    current = (current as Record<string, unknown>)[key];
  }
  return { found: true, value: current };
}

/**
 * Turns the caller's parameters into the values a tool is called with: explicit values first, then
 * a dynamicValue resolved from the context, then the default. Every violation is collected, so one
 * answer names all of them.
 */
export function resolveParameters(
  definitions: ParameterDefinition[],
  given: Record<string, unknown>,
  context: Record<string, unknown>,
): { values: Record<string, unknown>; errors: ErrorDetail[] } {
  const errors: ErrorDetail[] = [];
  const values: Record<string, unknown> = {};
  const known = new Set(definitions.map((d) => d.name));
  for (const name of Object.keys(given)) {
    if (!known.has(name))
      errors.push({ path: `parameters.${name}`, message: 'is not a parameter of this tool' });
  }
  for (const def of definitions) {
    const path = `parameters.${def.name}`;
    let value = given[def.name];
    if (value === undefined && def.dynamicValue) {
      const basis = readPath(context, def.dynamicValue.basedOn);
      if (
        basis.found &&
        Object.prototype.hasOwnProperty.call(def.dynamicValue.mapping, String(basis.value))
      ) {
        value = def.dynamicValue.mapping[String(basis.value)];
      }
    }
    if (value === undefined) value = def.default;
    if (value === undefined || value === null) {
      if (def.required) errors.push({ path, message: 'is required' });
      continue;
    }
    if (typeof value !== def.type || (def.type === 'number' && !Number.isFinite(value))) {
      errors.push({
        path,
        message: `must be a ${def.type}${typeof value === 'string' && def.type !== 'string' ? ' (not a string)' : ''}`,
      });
      continue;
    }
    if (typeof value === 'number') {
      if (def.min !== undefined && value < def.min)
        errors.push({ path, message: `must be at least ${def.min}` });
      if (def.max !== undefined && value > def.max)
        errors.push({ path, message: `must be at most ${def.max}` });
    }
    if (def.enum && !def.enum.includes(value as string | number)) {
      errors.push({ path, message: `must be one of: ${def.enum.join(', ')}` });
    }
    values[def.name] = value;
  }
  return { values, errors };
}
