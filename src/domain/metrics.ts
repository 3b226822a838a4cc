import { patternProblem } from './patterns.js';
import { z } from 'zod';

const Text = z.string().min(1).max(2_000);
const Regex = z
  .object({
    pattern: z.string().min(1).max(1_000),
    flags: z
      .string()
      .regex(/^[gimsuy]*$/)
      .optional(),
  })
  .strict()
  .superRefine(({ pattern, flags }, ctx) => {
    const problem = patternProblem(pattern, flags);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['pattern'] });
  });

/** Each metric type with the config it needs; the simulation runner evaluates them. */
export const METRIC_CONFIGS = {
  llm_judge: z.strictObject({
    criterion: Text,
    /** Answered one by one in the judge's single request: the score is the share met. */
    requirements: z.array(z.string().trim().min(1).max(500)).min(1).max(20).optional(),
  }),
  tool_called: z.strictObject({
    tool: z.string().min(1),
    arguments: z.record(z.string(), z.unknown()).optional(),
  }),
  tool_not_called: z.strictObject({ tool: z.string().min(1) }),
  contains: z.strictObject({ text: Text, caseSensitive: z.boolean().optional() }),
  not_contains: z.strictObject({ text: Text, caseSensitive: z.boolean().optional() }),
  regex: Regex,
  max_turns: z.strictObject({ max: z.number().int().min(1).max(1_000) }),
  max_latency_ms: z.strictObject({ max: z.number().positive().max(600_000) }),
  ended_by: z.strictObject({ who: z.enum(['agent', 'caller']) }),
  /** Audio simulations: the agent's response latency (p90 of the call's turns, or the slowest). */
  max_response_latency_ms: z.strictObject({
    max: z.number().positive().max(600_000),
    on: z.enum(['p90', 'max']).default('p90'),
  }),
  /** Audio simulations: connect to the agent's first sound. */
  max_time_to_first_audio_ms: z.strictObject({ max: z.number().positive().max(600_000) }),
  /** Audio simulations: total time the agent talked over the caller. */
  max_talk_over_ms: z.strictObject({ max: z.number().min(0).max(600_000) }),
  /** Audio simulations: how fast the agent's audio stops once the caller barges in. */
  max_barge_in_stop_ms: z.strictObject({
    max: z.number().positive().max(600_000),
    on: z.enum(['p90', 'max']).default('max'),
  }),
  /** Audio simulations: backchannels ("mm-hmm") the agent stopped talking for. */
  max_false_yields: z.strictObject({ max: z.number().int().min(0).max(1_000) }),
  /** Audio simulations: the agent speaks into every silence the caller keeps, within `withinMs`. */
  reprompts_after_silence: z.strictObject({
    withinMs: z.number().positive().max(600_000).default(10_000),
  }),
  /** Audio simulations: the word error rate of what the agent's recognition heard of the caller. */
  max_asr_wer: z.strictObject({ max: z.number().min(0).max(10) }),
} as const;

export type MetricType = keyof typeof METRIC_CONFIGS;

/** The config of a metric of type T, as validated when its scorecard was saved. */
export type MetricConfigOf<T extends MetricType> = z.infer<(typeof METRIC_CONFIGS)[T]>;
