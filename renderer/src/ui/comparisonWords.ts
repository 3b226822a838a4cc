import type { OutputOf } from '../client';

/**
 * A comparison in a tester's English: verdicts, differences with their intervals ("−12 points, 95%
 * CI −25 to +1"), voice measures with their units, and the sample-size advice. Pure functions, so
 * the screen and its tests read the same words.
 */

export type Comparison = OutputOf<'comparisons.get'>['comparison'];
export type Verdict = Comparison['overall']['verdict'];
export type Stats = Comparison['overall'];
export type SideRateOf = Stats['baseline'];
export type CaseRow = Comparison['rows'][number];
export type MetricRow = Comparison['metrics'][number];
export type VoiceRow = NonNullable<Comparison['voice']>['rows'][number];
export type Interval = [number, number];

export const VERDICT_WORDS: Record<Verdict, string> = {
  regressed: 'Regressed',
  improved: 'Improved',
  no_significant_difference: 'No significant difference',
  insufficient_data: 'Insufficient data',
};

export const VERDICT_COLORS: Record<Verdict, 'error' | 'success' | 'default'> = {
  regressed: 'error',
  improved: 'success',
  no_significant_difference: 'default',
  insufficient_data: 'default',
};

/** What each verdict means, for its tooltip. */
export const VERDICT_HELP: Record<Verdict, string> = {
  regressed:
    'The whole 95% interval of the pass-rate difference lies below zero: the candidate passes less often, beyond chance',
  improved:
    'The whole 95% interval of the pass-rate difference lies above zero: the candidate passes more often, beyond chance',
  no_significant_difference:
    'The 95% interval of the pass-rate difference includes zero: any change seen could be chance',
  insufficient_data:
    'Fewer than 5 pairs had an outcome on both sides: too few to tell change from chance',
};

export const BONFERRONI_HELP =
  'Adjusted (Bonferroni): with many rows tested at once some look different by chance, so each row is checked at confidence 1 − 0.05 ÷ the number of rows; gates read this mark.';

/** A signed number with a real minus sign: "+3", "−12", "0". */
export function signed(n: number, digits = 0): string {
  const factor = 10 ** digits;
  const rounded = Math.round(n * factor) / factor;
  const text = Math.abs(rounded).toFixed(digits);
  if (rounded > 0) return `+${text}`;
  if (rounded < 0) return `−${text}`;
  return text;
}

/** A rate (a fraction) as a whole percentage: "83%", or a dash. */
export const percent = (rate: number | null | undefined): string =>
  rate === null || rate === undefined ? '—' : `${Math.round(rate * 100)}%`;

/** A pass-rate difference (fractions) in points with its interval: "−12 points, 95% CI −25 to +1". */
export function pointsWords(value: number | null, interval: Interval | null): string {
  if (value === null) return 'no pairs to compare';
  const head = `${signed(value * 100)} points`;
  if (!interval) return head;
  return `${head}, 95% CI ${signed(interval[0] * 100)} to ${signed(interval[1] * 100)}`;
}

/** A score difference (0..100 scale) with its interval: "−45.2, 95% CI −50 to −40.1". */
export function scoreWords(value: number | null, interval: Interval | null): string {
  if (value === null) return 'no scores to compare';
  const head = signed(value, 1);
  if (!interval) return head;
  return `${head}, 95% CI ${signed(interval[0], 1)} to ${signed(interval[1], 1)}`;
}

/** With too few pairs for a verdict, how many runs per case would do; else null. */
export function runsNeededWords(stats: Stats): string | null {
  if (stats.verdict !== 'insufficient_data' || stats.runs_needed === null) return null;
  return `${stats.runs_needed} runs per case needed for a verdict`;
}

/** A hash cut to its first 8 characters (the whole one is in the tooltip and the copy). */
export const shortHash = (hash: string): string => hash.slice(0, 8);

/** An id cut to its last 8 characters: ids start with their kind and time, alike for a day. */
export const shortId = (id: string): string => id.slice(-8);

/** A cost in dollars, or why there is none. */
export const costWords = (usd: number | null): string =>
  usd === null ? 'unpriced' : `$${usd < 1 ? usd.toFixed(4) : usd.toFixed(2)}`;

/** The sample-size advice of a comparison, in one sentence. */
export function sampleSizeWords(size: Comparison['sample_size']): string {
  const runs = size.runs_per_group === 1 ? '1 run' : `${size.runs_per_group} runs`;
  const executions = size.executions === 1 ? '1 execution' : `${size.executions} executions`;
  return `To detect a 10-point change: ${runs} per case, ${executions} (of at most 20 runs)`;
}

type Measure = VoiceRow['measure'];

/** Each voice measure's name, unit and meaning. */
export const MEASURES: Record<Measure, { label: string; unit: 'ms' | 'per call' | 'wer' }> = {
  response_latency_p50_ms: { label: 'Response latency p50', unit: 'ms' },
  response_latency_p90_ms: { label: 'Response latency p90', unit: 'ms' },
  time_to_first_audio_ms: { label: 'Time to first audio (median)', unit: 'ms' },
  talk_over_count: { label: 'Talk-overs', unit: 'per call' },
  talk_over_ms: { label: 'Talk-over time', unit: 'ms' },
  long_silences: { label: 'Silences over 3 s', unit: 'per call' },
  barge_in_stop_p90_ms: { label: 'Barge-in stop p90', unit: 'ms' },
  barge_ins_not_stopped: { label: 'Barge-ins not stopped', unit: 'per call' },
  false_yields: { label: 'False yields', unit: 'per call' },
  misheard: { label: 'Misheard turns', unit: 'per call' },
  wer: { label: 'Word error rate', unit: 'wer' },
};

/** A number of a measure, in its unit's precision, signed or not, without the unit. */
function measureNumber(measure: Measure, value: number, sign: boolean): string {
  const { unit } = MEASURES[measure];
  const scaled = unit === 'wer' ? value * 100 : value;
  const digits = unit === 'ms' ? 0 : unit === 'wer' ? 1 : 2;
  if (sign) return signed(scaled, digits);
  return (Math.round(scaled * 10 ** digits) / 10 ** digits).toString();
}

const unitOf = (measure: Measure) =>
  MEASURES[measure].unit === 'wer' ? '%' : ` ${MEASURES[measure].unit}`;

/** A voice measure's value in its unit: "420 ms", "0.3 per call", "12.5%". */
export const measureValue = (measure: Measure, value: number | null): string =>
  value === null ? '—' : `${measureNumber(measure, value, false)}${unitOf(measure)}`;

/** A voice row's difference and interval, the unit said once: "+120 ms, 95% CI +60 to +180 ms". */
export function measureDifference(row: VoiceRow): string {
  if (row.difference === null) return '—';
  const unit = unitOf(row.measure);
  const head = `${measureNumber(row.measure, row.difference, true)}${unit}`;
  if (!row.interval) return head;
  const [low, high] = row.interval.map((n) => measureNumber(row.measure, n, true));
  return `${head}, 95% CI ${low} to ${high}${unit}`;
}

/** A case's name: "Refund by chat × Dana" (deleted ones say so). */
export const caseName = (row: Pick<CaseRow, 'scenario_name' | 'persona_name' | 'persona_id'>) =>
  `${row.scenario_name ?? '(deleted scenario)'} × ${
    row.persona_name ?? (row.persona_id ? '(deleted persona)' : 'no persona')
  }`;
