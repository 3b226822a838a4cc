import { PatternText } from './patterns.js';
import { z } from 'zod';

/** One line of a scripted caller: what it says, and what the agent's reply must show. */
export const ScriptLine = z.strictObject({
  say: z.string().min(1).max(5_000),
  expect: z
    .strictObject({
      contains: z.string().min(1).optional(),
      regex: PatternText.optional().describe('RE2 syntax, matched case-insensitively'),
      toolCalled: z.string().min(1).optional(),
    })
    .optional(),
});

export type ScriptLine = z.infer<typeof ScriptLine>;
