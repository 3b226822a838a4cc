import { readPath } from './params.js';

/**
 * Applies a responseMapping (output name -> dotted path into the body). A missing path maps to
 * null and is reported, so a changed upstream shape is visible instead of silently empty.
 */
export function applyMapping(
  body: unknown,
  mapping: Record<string, string> | undefined,
): { result: unknown; warnings: string[] } {
  if (!mapping || Object.keys(mapping).length === 0) return { result: body, warnings: [] };
  const result: Record<string, unknown> = {};
  const warnings: string[] = [];
  for (const [name, path] of Object.entries(mapping)) {
    const found = readPath(body, path);
    result[name] = found.found ? found.value : null;
    if (!found.found)
      warnings.push(`responseMapping.${name}: path '${path}' is not in the response`);
  }
  return { result, warnings };
}
