import { AppError } from './errors.js';

export const MAX_INPUT_DEPTH = 64;

/**
 * Whether a parsed JSON value nests deeper than `max` objects and arrays. Walked with an explicit
 * stack: hostile input a hundred thousand levels deep must not reach a recursion limit here, nor
 * in the schema checks that would walk it after.
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
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
