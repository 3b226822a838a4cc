import { PatternText } from './patterns.js';
import { z } from 'zod';
import { ScriptLineActs } from './callers.js';

/**
 * One line of a scripted caller: what it says, what the agent's reply must show, and in audio mode
 * what else the caller does with it (barge in, stay silent, send digits, hang up).
 */
export const ScriptLine = z
  .strictObject({
    say: z
      .string()
      .min(1)
      .max(5_000)
      .optional()
      .describe('Words to say; optional when the line only acts'),
    expect: z
      .strictObject({
        contains: z.string().min(1).optional(),
        regex: PatternText.optional().describe('RE2 syntax, matched case-insensitively'),
        toolCalled: z.string().min(1).optional(),
      })
      .optional(),
    ...ScriptLineActs,
  })
  .superRefine((line, ctx) => {
    if (line.say === undefined && !line.dtmf && !line.hangup && !line.silence)
      ctx.addIssue({
        code: 'custom',
        path: ['say'],
        message: 'a line says something, sends dtmf, hangs up or stays silent',
      });
    if ((line.interrupt || line.backchannel) && line.say === undefined)
      ctx.addIssue({
        code: 'custom',
        path: [line.interrupt ? 'interrupt' : 'backchannel'],
        message: 'a barge-in or backchannel needs words to say',
      });
    if (line.interrupt && line.backchannel)
      ctx.addIssue({
        code: 'custom',
        path: ['backchannel'],
        message: 'a line either interrupts (takes the turn) or backchannels (does not), not both',
      });
  });

export type ScriptLine = z.infer<typeof ScriptLine>;
