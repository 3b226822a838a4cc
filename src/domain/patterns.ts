import { RE2JS } from 're2js';
import { z } from 'zod';

/** A user's regular expression, compiled for matching in time linear in the text. */
export interface UserPattern {
  test(text: string): boolean;
}

/** JavaScript flags that mean something to a search; g and y only move lastIndex, u is always on. */
const FLAG_BITS: Record<string, number> = {
  i: RE2JS.CASE_INSENSITIVE,
  m: RE2JS.MULTILINE,
  s: RE2JS.DOTALL,
};

/**
 * Compiles a pattern from a scorecard or a script with RE2 semantics (re2js, pure JavaScript): no
 * backtracking, so no pattern and no reply can hang the engine. Throws with RE2's reason for
 * syntax it cannot run that way (backreferences, lookaround).
 */
export function compileUserPattern(pattern: string, flags = ''): UserPattern {
  const bits = [...flags].reduce((all, f) => all | (FLAG_BITS[f] ?? 0), 0);
  const re = RE2JS.compile(pattern, bits);
  return { test: (text) => re.matcher(text).find() };
}

/** Why a pattern cannot be used, or null when it can. */
export function patternProblem(pattern: string, flags?: string): string | null {
  try {
    compileUserPattern(pattern, flags);
    return null;
  } catch (err) {
    return `is not a regular expression that runs in linear time (RE2 syntax: no backreferences or lookaround): ${(err as Error).message}`;
  }
}

/** A pattern field: checked at save so that only patterns that run safely are stored. */
export const PatternText = z
  .string()
  .min(1)
  .max(1_000)
  .superRefine((pattern, ctx) => {
    const problem = patternProblem(pattern);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });
