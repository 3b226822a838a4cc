import type { z } from 'zod';
import { isRecord } from '../domain/records.js';

/** Paths present in what was answered but dropped by parsing it: fields the schema lacks. */
function droppedPaths(answered: unknown, parsed: unknown, path: string, out: string[]): void {
  if (Array.isArray(answered) && Array.isArray(parsed)) {
    answered.forEach((item, i) => droppedPaths(item, parsed[i], `${path}[${i}]`, out));
    return;
  }
  if (!isRecord(answered) || !isRecord(parsed)) return;
  for (const [key, value] of Object.entries(answered)) {
    const at = path ? `${path}.${key}` : key;
    if (value === undefined) continue;
    if (!(key in parsed)) out.push(at);
    else droppedPaths(value, parsed[key], at, out);
  }
}

/**
 * What is wrong with an operation's answer against its published response schema: values of the
 * wrong shape, and fields the schema does not document (zod drops unknown keys when parsing, so
 * comparing the answer with its parsed self finds them at any depth).
 */
export function outputProblems(schema: z.ZodType, answered: unknown): string[] {
  // What crosses the wire is JSON: compare that (dates as strings, no undefined fields).
  const wire: unknown = answered === undefined ? undefined : JSON.parse(JSON.stringify(answered));
  const result = schema.safeParse(wire);
  if (!result.success)
    return result.error.issues.map((i) => `${i.path.join('.') || '(answer)'}: ${i.message}`);
  const dropped: string[] = [];
  droppedPaths(wire, result.data, '', dropped);
  return dropped.map((p) => `${p}: not in the response schema`);
}
