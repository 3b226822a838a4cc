import type { Comparison, VoiceMeasure, VoiceRow } from '../domain/comparisons.js';
import type { ComparedSimulation } from '../store/comparison-reads.js';
import type { CallFigures } from '../store/voice-figures.js';
import { seedFrom, verdictOf } from './statistics.js';
import { runHere, runOffThread } from './compare-thread.js';
import type { CallValues, VoiceBootstrapResult, VoiceStatistic } from './voice-bootstrap.js';

/*
 * Voice rows: what the two sides' audio calls measured, lower is better for each. Intervals come
 * from resampling calls (95% percentile bootstrap, every row from one set of draws:
 * ./voice-bootstrap.ts); a row is regressed or improved only when its interval lies wholly beyond
 * the measure's minimum effect.
 */

/** An audio call as voice rows read it. */
interface Call {
  figures: CallFigures;
  latencies: number[];
  noise: string;
  line: string;
}

/**
 * Resamples of calls for the voice rows. The issue fixes 10,000 for the score interval; for voice
 * rows it says only "95% bootstrap resampling calls": 1,000, the customary floor for a 95%
 * percentile interval (its ends are the 25th and 975th of 1,000). Every row, overall and by
 * condition, comes from the same draws (./voice-bootstrap.ts), yet each resample still reads every
 * reply of every call: at 10,000 the voice rows would cost more than all the score rows.
 */
export const VOICE_RESAMPLES = 1_000;

const MS = 50;
const PER_CALL = 0.1;

type Values = (c: Call) => number | null | undefined;

/** Measures of one number per call, read by their side's mean, and their minimum effect. */
const MEAN_MEASURES: [VoiceMeasure, Values, number][] = [
  ['talk_over_count', (c) => c.figures.talk_over_count, PER_CALL],
  ['talk_over_ms', (c) => c.figures.talk_over_ms, MS],
  ['long_silences', (c) => c.figures.long_silences, PER_CALL],
  ['barge_in_stop_p90_ms', (c) => c.figures.barge_in_stop_p90_ms, MS],
  ['barge_ins_not_stopped', (c) => c.figures.barge_ins_not_stopped, PER_CALL],
  ['false_yields', (c) => c.figures.false_yields, PER_CALL],
  ['misheard', (c) => c.figures.misheard, PER_CALL],
];

/** Word-weighted WER: a call's errors over its words (none without recognition or words). */
function werOf(c: Call): [number, number] | null {
  const { asr_errors: errors, asr_words: words } = c.figures;
  return errors !== null && words !== null && words > 0 ? [errors, words] : null;
}

const conditionKey = (c: Call) => JSON.stringify([c.noise, c.line]);
const orNull = (v: number | null | undefined) => (v === undefined ? null : v);

function valuesOf(c: Call): CallValues {
  return {
    condition: conditionKey(c),
    means: MEAN_MEASURES.map(([, read]) => orNull(read(c))),
    medians: [c.figures.time_to_first_audio_ms],
    pooled: c.latencies,
    ratio: werOf(c),
  };
}

/** The bootstrap's statistics: the means, then the median (TTFA), p50 and p90, the ratio (WER). */
const [TTFA, P50, P90, WER] = [0, 1, 2, 3].map((k) => MEAN_MEASURES.length + k) as [
  number,
  number,
  number,
  number,
];

/** The rows, in the list's order, and the statistic each reads. */
const ROWS: { measure: VoiceMeasure; at: number; has: (c: Call) => boolean; minEffect: number }[] =
  [
    {
      measure: 'response_latency_p50_ms',
      at: P50,
      has: (c) => c.latencies.length > 0,
      minEffect: MS,
    },
    {
      measure: 'response_latency_p90_ms',
      at: P90,
      has: (c) => c.latencies.length > 0,
      minEffect: MS,
    },
    {
      measure: 'time_to_first_audio_ms',
      at: TTFA,
      has: (c) => c.figures.time_to_first_audio_ms !== null,
      minEffect: MS,
    },
    ...MEAN_MEASURES.map(([measure, read, minEffect], m) => ({
      measure,
      at: m,
      has: (c: Call) => orNull(read(c)) !== null,
      minEffect,
    })),
    { measure: 'wer', at: WER, has: (c) => werOf(c) !== null, minEffect: 0.01 },
  ];

/** Every measure some call of either side has, in the list's order. */
function rowsOf(sides: [Call[], Call[]], statistics: VoiceStatistic[]): VoiceRow[] {
  const rows = ROWS.map(({ measure, at, has, minEffect }): VoiceRow => {
    const [b, c] = sides.map((calls) => calls.filter(has).length) as [number, number];
    const s = statistics[at]!;
    const counted = b > 0 && c > 0;
    const interval = counted ? s.interval : null;
    return {
      measure,
      direction: 'lower_is_better',
      calls: { baseline: b, candidate: c },
      baseline: b > 0 ? s.baseline : null,
      candidate: c > 0 ? s.candidate : null,
      difference: counted ? s.difference : null,
      interval,
      verdict: verdictOf(interval, Math.min(b, c), { higherIsBetter: false, minEffect }),
    };
  });
  return rows.filter((r) => r.calls.baseline + r.calls.candidate > 0);
}

/** Audio calls that ran (completed, or failed after the call), as the execution's figures read them. */
function callsOf(sims: readonly ComparedSimulation[]): Call[] {
  return sims.flatMap((s) =>
    s.mode === 'audio' && s.figures && (s.status === 'completed' || s.status === 'failed')
      ? [
          {
            figures: s.figures,
            latencies: s.latencies,
            // Calls from before realistic callers ran on a studio line without noise.
            noise: s.figures.noise ?? 'none',
            line: s.figures.line ?? s.line?.profile ?? 'studio',
          },
        ]
      : [],
  );
}

/** The rows of both sides' calls, from their bootstrap. */
function rowsFrom(
  b: Call[],
  c: Call[],
  result: VoiceBootstrapResult,
): NonNullable<Comparison['voice']> {
  const conditions = new Map<string, { noise: string; line: string }>();
  for (const x of [...b, ...c]) conditions.set(conditionKey(x), x);
  const of = (calls: Call[], key: string) => calls.filter((x) => conditionKey(x) === key);
  return {
    rows: rowsOf([b, c], result.overall),
    by_conditions: [...conditions.entries()].map(([key, { noise, line }]) => ({
      noise,
      line,
      rows: rowsOf([of(b, key), of(c, key)], result.byCondition.get(key)!),
    })),
  };
}

/** Both sides' audio calls and their bootstrap's job; null unless both sides have some. */
function voiceJob(
  baseline: readonly ComparedSimulation[],
  candidate: readonly ComparedSimulation[],
  seed: number,
) {
  const b = callsOf(baseline);
  const c = callsOf(candidate);
  if (b.length === 0 || c.length === 0) return null;
  const job = {
    kind: 'voice' as const,
    baseline: b.map(valuesOf),
    candidate: c.map(valuesOf),
    options: { seed: seedFrom([seed, 'voice']), percentiles: [50, 90], resamples: VOICE_RESAMPLES },
  };
  return { b, c, job };
}

/** Voice rows, overall and by noise × line; null unless both sides have audio calls. */
export function voiceRows(
  baseline: readonly ComparedSimulation[],
  candidate: readonly ComparedSimulation[],
  seed: number,
): Comparison['voice'] {
  const voice = voiceJob(baseline, candidate, seed);
  return voice && rowsFrom(voice.b, voice.c, runHere(voice.job));
}

/**
 * voiceRows with the bootstrap on the compare thread (./compare-thread.ts) when it is up: the
 * caller's thread is free until it awaits them. The same rows.
 */
export async function voiceRowsOffThread(
  baseline: readonly ComparedSimulation[],
  candidate: readonly ComparedSimulation[],
  seed: number,
): Promise<Comparison['voice']> {
  const voice = voiceJob(baseline, candidate, seed);
  return voice && rowsFrom(voice.b, voice.c, await runOffThread(voice.job));
}
