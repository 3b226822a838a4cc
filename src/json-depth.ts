import { AppError } from './errors.js';

export const MAX_INPUT_DEPTH = 64;

/**
 * Whether a parsed JSON value nests deeper than `max` objects and arrays. The walk goes no deeper
 * than `max` levels before it answers: hostile input a hundred thousand levels deep never reaches
 * a recursion limit here, nor the schema checks that would walk it after. Recursive, since every
 * request's input passes here: the explicit stack's pair per value was most of its cost.
 */
export function nestsDeeperThan(value: unknown, max: number, depth = 0): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (depth + 1 > max) return true;
  for (const child of Array.isArray(value) ? value : Object.values(value))
    if (nestsDeeperThan(child, max, depth + 1)) return true;
  return false;
}

/** Refuses input nested past MAX_INPUT_DEPTH with a 400 that says so. */
export function assertShallow(value: unknown): void {
  if (nestsDeeperThan(value, MAX_INPUT_DEPTH)) {
    throw new AppError(
      'invalid_request',
      400,
      `The input is nested more than ${MAX_INPUT_DEPTH} levels deep`,
    );
  }
}
