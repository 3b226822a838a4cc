import { z } from 'zod';
import { passFailKappa, type PassFailConfusion } from './kappa.js';
import { isRecord, UserRef } from './records.js';
import { ReviewTarget } from './reviews.js';

/**
 * How far an `llm_judge` metric's judge agrees with people (#37): the latest human label of each
 * labelled result against the judge's verdict on it. Pure: the store counts, this decides.
 */

/** Fewer labels than this: too few to say anything (agreement and kappa are left out). */
export const MIN_LABELS = 10;
/** From this many labels the figures are trusted (`calibrated`); between, `provisional`. */
export const CALIBRATED_LABELS = 50;

export const CALIBRATION_STATUSES = [
  'insufficient_data',
  'provisional',
  'calibrated',
  'stale',
] as const;
export type CalibrationStatus = (typeof CALIBRATION_STATUSES)[number];

const PassFail = z.enum(['pass', 'fail']);

export const Disagreement = z.object({
  target: ReviewTarget,
  judge: PassFail,
  human: PassFail,
  reviewer: UserRef,
  note: z.string().nullable().describe("The reviewer's note on the label"),
});
export type Disagreement = z.infer<typeof Disagreement>;

export const MetricCalibration = z.object({
  metric_id: z.string(),
  name: z.string(),
  status: z
    .enum(CALIBRATION_STATUSES)
    .describe(
      `insufficient_data under ${MIN_LABELS} labels, provisional under ${CALIBRATED_LABELS}, calibrated from ${CALIBRATED_LABELS}; stale when the judge model or rubric in force differs from the labelled results'`,
    ),
  labels: z
    .number()
    .int()
    .describe(
      'Labelled results, each once with its latest label (not_applicable labels and errored or not applicable results left out)',
    ),
  agreement: z.number().nullable().describe('Share of labels the judge agreed with, 0 to 1'),
  kappa: z.number().nullable().describe("Cohen's kappa; null when undefined or too few labels"),
  confusion: z.object({
    both_pass: z.number().int(),
    judge_pass_human_fail: z.number().int(),
    judge_fail_human_pass: z.number().int(),
    both_fail: z.number().int(),
  }),
  disagreements: z
    .array(Disagreement)
    .describe('The labels the judge disagreed with, latest first (at most 100)'),
  judge_model: z
    .string()
    .nullable()
    .describe('The judge model of the labelled results (the one most of them carry)'),
  rubric_hash: z
    .string()
    .nullable()
    .describe('The rubric hash of the labelled results (the one most of them carry)'),
  judge_model_in_force: z.string().nullable().describe("The judge role's model now"),
  rubric_hash_in_force: z
    .string()
    .describe("The hash of the metric's criterion and requirements now"),
});
export type MetricCalibration = z.infer<typeof MetricCalibration>;

/** Labelled results counted by the judge's verdict, the human's, and the judge that gave it. */
export interface LabelCount {
  judgePassed: boolean;
  humanPassed: boolean;
  judgeModel: string | null;
  rubricHash: string | null;
  count: number;
}

/** The judge's verdict on one metric of a judged result, as a label records it beside itself. */
export interface JudgeSnapshot {
  /** null: no verdict to hold a label against (no such result, an error, not applicable). */
  passed: boolean | null;
  judgeModel: string | null;
  rubricHash: string | null;
}

const textOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/**
 * The judge's verdict on `metricId` in a stored results list (a simulation's or an evaluation's):
 * errored and not applicable results have none. The calibration's SQL reads the same fields.
 */
export function judgeSnapshot(results: unknown, metricId: string): JudgeSnapshot {
  const found = Array.isArray(results)
    ? (results as unknown[]).find(
        (r): r is Record<string, unknown> => isRecord(r) && r.metric_id === metricId,
      )
    : undefined;
  if (!found) return { passed: null, judgeModel: null, rubricHash: null };
  const usable =
    (found.error === undefined || found.error === null) &&
    found.status !== 'error' &&
    found.status !== 'not_applicable' &&
    typeof found.passed === 'boolean';
  return {
    passed: usable ? (found.passed as boolean) : null,
    judgeModel: textOrNull(found.judge_model),
    rubricHash: textOrNull(found.rubric_hash),
  };
}

/** The judge and rubric now in force for a metric. */
export interface JudgeInForce {
  judgeModel: string | null;
  rubricHash: string;
}

function confusionOf(counts: readonly LabelCount[]): PassFailConfusion {
  const c = { both_pass: 0, judge_pass_human_fail: 0, judge_fail_human_pass: 0, both_fail: 0 };
  for (const { judgePassed, humanPassed, count } of counts) {
    if (judgePassed && humanPassed) c.both_pass += count;
    else if (judgePassed) c.judge_pass_human_fail += count;
    else if (humanPassed) c.judge_fail_human_pass += count;
    else c.both_fail += count;
  }
  return c;
}

/** The judge model and rubric hash most labelled results carry (ties: the first counted). */
function commonJudge(counts: readonly LabelCount[]) {
  const tally = new Map<
    string,
    { judgeModel: string | null; rubricHash: string | null; n: number }
  >();
  for (const c of counts) {
    const key = JSON.stringify([c.judgeModel, c.rubricHash]);
    const seen = tally.get(key) ?? { judgeModel: c.judgeModel, rubricHash: c.rubricHash, n: 0 };
    seen.n += c.count;
    tally.set(key, seen);
  }
  let best: { judgeModel: string | null; rubricHash: string | null; n: number } | null = null;
  for (const t of tally.values()) if (!best || t.n > best.n) best = t;
  return best;
}

/**
 * Stale: some labelled result was judged by another model or on another rubric than the ones in
 * force, so the figures describe (at least partly) a judge that no longer scores.
 */
const isStale = (counts: readonly LabelCount[], now: JudgeInForce): boolean =>
  counts.some(
    (c) => c.count > 0 && (c.judgeModel !== now.judgeModel || c.rubricHash !== now.rubricHash),
  );

function statusOf(labels: number, stale: boolean): CalibrationStatus {
  if (stale) return 'stale';
  if (labels < MIN_LABELS) return 'insufficient_data';
  return labels < CALIBRATED_LABELS ? 'provisional' : 'calibrated';
}

/** One metric's calibration from its label counts, its disagreements and the judge in force. */
export function metricCalibration(
  metric: { id: string; name: string },
  data: { counts: readonly LabelCount[]; disagreements: Disagreement[]; now: JudgeInForce },
): MetricCalibration {
  const { counts, now } = data;
  const confusion = confusionOf(counts);
  const labels =
    confusion.both_pass +
    confusion.judge_pass_human_fail +
    confusion.judge_fail_human_pass +
    confusion.both_fail;
  const enough = labels >= MIN_LABELS;
  const { observed, kappa } = passFailKappa(confusion);
  const common = commonJudge(counts);
  return {
    metric_id: metric.id,
    name: metric.name,
    status: statusOf(labels, isStale(counts, now)),
    labels,
    agreement: enough ? observed : null,
    kappa: enough ? kappa : null,
    confusion,
    disagreements: data.disagreements,
    judge_model: common?.judgeModel ?? null,
    rubric_hash: common?.rubricHash ?? null,
    judge_model_in_force: now.judgeModel,
    rubric_hash_in_force: now.rubricHash,
  };
}
