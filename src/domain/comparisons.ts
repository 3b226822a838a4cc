import { z } from 'zod';
import { Timestamp } from './records.js';

/**
 * The comparison of two sets of executions (a baseline and a candidate), defined once: the
 * comparison domain (`src/compare/`) builds it, the store keeps it whole, the operations, the CLI
 * and the comparison screen read it. Rates are fractions (0..1), intervals `[low, high]` at 95%
 * unless said, and every difference is candidate − baseline.
 */

export const VERDICTS = [
  'regressed',
  'improved',
  'no_significant_difference',
  'insufficient_data',
] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Fewer pairs (or calls a side, for voice rows) than this: `insufficient_data`. */
export const MIN_PAIRS = 5;

export const Interval = z.tuple([z.number(), z.number()]).describe('[low, high]');
export type Interval = z.infer<typeof Interval>;

/** One side's pass rate over a row's pairs, with its 95% Wilson score interval. */
export const SideRate = z.object({
  passed: z.number().int(),
  total: z.number().int(),
  pass_rate: z.number().nullable().describe('passed / total; null with no pairs'),
  interval: Interval.nullable().describe('95% Wilson score interval; null with no pairs'),
});
export type SideRate = z.infer<typeof SideRate>;

/** The statistics of one table row: overall, a scenario × persona case, or a scorecard metric. */
export const ComparisonStats = z.object({
  pairs: z.number().int().describe('Pairs where both sides have an outcome'),
  baseline: SideRate,
  candidate: SideRate,
  difference: z.object({
    value: z.number().nullable(),
    interval: Interval.nullable().describe("Newcombe's hybrid score interval (method 10)"),
  }),
  score: z.object({
    baseline_mean: z.number().nullable(),
    candidate_mean: z.number().nullable(),
    difference: z.number().nullable().describe('Paired mean difference of scores (0..100)'),
    interval: Interval.nullable().describe(
      '95% percentile bootstrap over pairs, 10,000 resamples within scenario × persona groups, seeded from the inputs',
    ),
  }),
  verdict: z
    .enum(VERDICTS)
    .describe(
      'The pass-rate difference interval decides: regressed wholly below 0, improved wholly above; the score interval never decides',
    ),
  adjusted_verdict: z
    .enum(VERDICTS)
    .describe('The same rule at confidence 1 − 0.05/m (Bonferroni, m = rows of this table)'),
  runs_needed: z
    .number()
    .int()
    .nullable()
    .describe('insufficient_data: runs per scenario × persona that would give enough pairs'),
});
export type ComparisonStats = z.infer<typeof ComparisonStats>;

/** Simulations of a row (or the whole comparison) that had no outcome: errored, cancelled, skipped. */
export const ErroredCounts = z.object({
  baseline: z.number().int(),
  candidate: z.number().int(),
});

export const CaseRow = ComparisonStats.extend({
  scenario_id: z.string(),
  scenario_name: z.string().nullable().describe('Its name now; null once deleted'),
  persona_id: z.string().nullable(),
  persona_name: z.string().nullable(),
  errored: ErroredCounts.describe('Pairs left out because a side had no outcome'),
  flaky: z
    .object({ baseline: z.boolean(), candidate: z.boolean() })
    .describe("A side's runs of this case disagree (some passed, some did not)"),
});
export type CaseRow = z.infer<typeof CaseRow>;

export const MetricRow = ComparisonStats.extend({
  metric: z.string().describe("The metric's name (metrics are matched by name across scorecards)"),
});
export type MetricRow = z.infer<typeof MetricRow>;

export const VOICE_MEASURES = [
  'response_latency_p50_ms',
  'response_latency_p90_ms',
  'time_to_first_audio_ms',
  'talk_over_count',
  'talk_over_ms',
  'long_silences',
  'barge_in_stop_p90_ms',
  'barge_ins_not_stopped',
  'false_yields',
  'misheard',
  'wer',
] as const;
export type VoiceMeasure = (typeof VOICE_MEASURES)[number];

export const VoiceRow = z.object({
  measure: z.enum(VOICE_MEASURES),
  direction: z.literal('lower_is_better'),
  calls: z.object({ baseline: z.number().int(), candidate: z.number().int() }),
  baseline: z.number().nullable(),
  candidate: z.number().nullable(),
  difference: z.number().nullable(),
  interval: Interval.nullable().describe('95% bootstrap resampling calls'),
  verdict: z
    .enum(VERDICTS)
    .describe(
      'regressed/improved: the interval wholly on one side of 0 and beyond the minimum effect (50 ms, 0.01 WER, 0.1 per call)',
    ),
});
export type VoiceRow = z.infer<typeof VoiceRow>;

/** What one side of a comparison is: its executions and what they tested. */
export const ComparisonSide = z.object({
  execution_ids: z.array(z.string()),
  simulations: z.number().int(),
  agent_versions: z
    .array(z.number().int())
    .describe('agent_config.version_id values seen, ascending (http agents have none)'),
  agent_config_hashes: z.array(z.string()).describe('Distinct agent_config.hash values'),
  scenario_hashes: z.array(z.string()),
  scorecard_hashes: z.array(z.string()),
  cost_usd: z
    .number()
    .nullable()
    .describe('Sum of its simulations’ cost; null when any is unpriced'),
});
export type ComparisonSide = z.infer<typeof ComparisonSide>;

export const CONDITION_FIELDS = ['scenario', 'scorecard', 'channel', 'mode', 'line'] as const;

export const Comparison = z.object({
  id: z.string(),
  created_at: Timestamp,
  baseline: ComparisonSide,
  candidate: ComparisonSide,
  rescored_baseline: z
    .boolean()
    .describe("The baseline's stored transcripts were scored again with the candidate's scorecard"),
  overall: ComparisonStats,
  rows: z.array(CaseRow).describe('Per scenario × persona, worst first'),
  metrics: z.array(MetricRow),
  unpaired: z.array(
    z.object({
      simulation_id: z.string(),
      side: z.enum(['baseline', 'candidate']),
      scenario_id: z.string(),
      persona_id: z.string().nullable(),
    }),
  ),
  errored: z
    .object({
      baseline: z.number().int(),
      candidate: z.number().int(),
      simulation_ids: z.array(z.string()),
    })
    .describe('Failed, cancelled and skipped simulations: no outcome, in no statistic'),
  flakiness: z.object({
    baseline: z.object({
      pass_k: z.number().nullable().describe('Share of groups whose runs all passed'),
      disagreeing: z.array(
        z.object({ scenario_id: z.string(), persona_id: z.string().nullable() }),
      ),
    }),
    candidate: z.object({
      pass_k: z.number().nullable(),
      disagreeing: z.array(
        z.object({ scenario_id: z.string(), persona_id: z.string().nullable() }),
      ),
    }),
  }),
  sample_size: z.object({
    runs_per_group: z
      .number()
      .int()
      .describe(
        'Runs per scenario × persona to detect a 10-point change at 80% power (two-sided 5%)',
      ),
    executions: z.number().int().describe('Executions of at most 20 runs that takes'),
  }),
  conditions_differ: z
    .array(
      z.object({
        field: z.enum(CONDITION_FIELDS),
        baseline: z.array(z.string()),
        candidate: z.array(z.string()),
      }),
    )
    .describe('A test edit is no agent change: the sides did not run under the same conditions'),
  voice: z
    .object({
      rows: z.array(VoiceRow),
      by_conditions: z.array(
        z.object({ noise: z.string(), line: z.string(), rows: z.array(VoiceRow) }),
      ),
    })
    .nullable()
    .describe('Both sides have audio simulations; else null'),
});
export type Comparison = z.infer<typeof Comparison>;

/** A side as asked for: one execution, or several pooled. */
export const ComparisonSideInput = z.union([
  z.strictObject({ executionId: z.string().min(1) }),
  z.strictObject({ executionIds: z.array(z.string().min(1)).min(1).max(50) }),
]);
export type ComparisonSideInput = z.infer<typeof ComparisonSideInput>;
