import { z } from 'zod';

/**
 * The built-in demo agent's knobs, kept as local overrides under `configuration.demo`: each turns
 * one behaviour bad, so every voice metric can be shown failing as well as passing.
 */
export const DemoKnobs = z.strictObject({
  answerDelayMs: z
    .number()
    .int()
    .min(0)
    .max(30_000)
    .nullable()
    .optional()
    .describe('Wait this long before every reply (not the greeting)'),
  talkOverCaller: z
    .boolean()
    .nullable()
    .optional()
    .describe('Start each reply while the caller still speaks (audio calls)'),
  silentTurn: z
    .number()
    .int()
    .min(1)
    .max(100)
    .nullable()
    .optional()
    .describe('Say nothing in answer to the caller line of this number (1 is the first)'),
  hangUpAfter: z
    .number()
    .int()
    .min(1)
    .max(100)
    .nullable()
    .optional()
    .describe('Hang up once this many replies are said (the greeting not counted)'),
});
export type DemoKnobs = z.infer<typeof DemoKnobs>;

/** The names the demo creates and finds again, so a second run reuses them. */
export const DEMO_NAMES = {
  workspace: 'Demo',
  agent: 'Demo order support',
  persona: 'Demo caller',
  scenario: 'Demo: where is my order?',
  scorecard: 'Demo (no model needed)',
  tool: 'order_status',
} as const;

/** The order the demo's caller asks about, and what the demo's order service knows of it. */
export const DEMO_ORDER = { id: '4172', status: 'shipped', arrives: 'Tuesday' } as const;
