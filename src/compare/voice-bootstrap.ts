import type { Interval } from '../domain/comparisons.js';
import { settings } from './bootstrap-options.js';
import { percentileInterval } from './bootstrap-parts.js';
import { unpackSums } from './voice-packing.js';
import { drawWeights, sideLayout, type CallValues, type SideLayout } from './voice-sides.js';
import { accumulate, nearestRank, type7 } from './weighted-table.js';

export type { CallValues } from './voice-sides.js';

/*
 * Every voice row from one bootstrap resampling calls. Each resample draws each side's calls once
 * (within their condition, noise × line, a condition of one call pooled with the others of one:
 * the same reasoning as ./bootstrap-strata.ts), as draw counts per call, and every measure of the
 * side overall and of each condition is read from those counts: means as weighted sums, medians
 * and reply percentiles from the sorted tables of ./weighted-table.ts (no resample is sorted),
 * the WER as pooled errors over pooled words. A condition's rows thus use its part of the overall
 * resample, a bootstrap of that condition's calls alone; a side with a single call in a condition
 * keeps that call there (its rows say insufficient_data anyway). Overall rows are stratified by
 * condition: the noise and the line are set by the scenario and persona, not drawn by chance.
 */

/** A measure of both sides: each side's value, the difference (candidate − baseline), its interval. */
export interface VoiceStatistic {
  baseline: number | null;
  candidate: number | null;
  difference: number | null;
  interval: Interval | null;
}

export interface VoiceBootstrapResult {
  /** Per statistic: the means, then the medians, the percentiles, and the ratio. */
  overall: VoiceStatistic[];
  byCondition: Map<string, VoiceStatistic[]>;
}

export interface VoiceBootstrapOptions {
  seed: number;
  percentiles: readonly number[];
  confidence?: number;
  resamples?: number;
}

interface Shape {
  means: number;
  medians: number;
  percentiles: readonly number[];
  /** Statistics per scope (overall, or a condition): means + medians + percentiles + ratio. */
  K: number;
  /** Scopes: 0 overall, 1 + c condition c. */
  scopes: number;
}

/**
 * Four columns' weighted sums (Σ weight · value) over calls [from, to), from column `first` on,
 * into out[at + first ..]:
 * four independent sums a pass keep the processor's adders busy where one would wait on itself.
 */
function weighted4(
  columns: Float64Array[],
  weights: Float64Array,
  range: Int32Array,
  out: Float64Array,
) {
  const from = range[0]!;
  const to = range[1]!;
  const first = range[2]!;
  const at = range[3]!;
  const c0 = columns[first]!;
  const c1 = columns[first + 1]!;
  const c2 = columns[first + 2]!;
  const c3 = columns[first + 3]!;
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  for (let i = from; i < to; i++) {
    const w = weights[i]!;
    s0 += w * c0[i]!;
    s1 += w * c1[i]!;
    s2 += w * c2[i]!;
    s3 += w * c3[i]!;
  }
  out[at + first] = s0;
  out[at + first + 1] = s1;
  out[at + first + 2] = s2;
  out[at + first + 3] = s3;
}

/**
 * The means and the ratio of every scope, from the calls' weights, into out[scope × K + k]. Each
 * condition's column sums (./voice-sides.ts: a column of ones, the means, the ratio's parts, the
 * presence of measures some calls miss) land in the side's scratch, summed over conditions last.
 */
function evaluateSums(side: SideLayout, weights: Float64Array, shape: Shape, out: Float64Array) {
  const { columns, scratch, range, countAt, packed, sums } = side;
  const width = columns.length;
  const M = shape.means;
  scratch.fill(0, 0, width);
  for (let c = 0; c + 1 < shape.scopes; c++) {
    range[0] = side.from[c]!;
    range[1] = side.to[c]!;
    range[3] = 0;
    for (let first = 0; first < packed.summed.length; first += 4) {
      range[2] = first;
      weighted4(packed.summed, weights, range, sums);
    }
    const at = (c + 1) * width;
    unpackSums(packed, sums, scratch, at);
    for (let k = 0; k < width; k++) scratch[k]! += scratch[at + k]!;
  }
  for (let scope = 0; scope < shape.scopes; scope++) {
    const sums = scope * width;
    const at = scope * shape.K;
    for (let m = 0; m < M; m++) out[at + m] = scratch[sums + 1 + m]! / scratch[sums + countAt[m]!]!;
    const den = scratch[sums + M + 2]!;
    out[at + shape.K - 1] = den > 0 ? scratch[sums + M + 1]! / den : NaN;
  }
}

/** Every statistic of every scope (NaN where a scope has nothing to measure). */
function evaluate(side: SideLayout, weights: Float64Array, shape: Shape, out: Float64Array) {
  evaluateSums(side, weights, shape, out);
  const { K, means: M, medians: D, percentiles } = shape;
  for (let d = 0; d < D; d++) {
    const table = side.medians[d]!;
    accumulate(table, weights);
    for (let scope = 0; scope < shape.scopes; scope++)
      out[scope * K + M + d] = type7(table, scope - 1, 0.5);
  }
  accumulate(side.pooled, weights);
  for (let scope = 0; scope < shape.scopes; scope++)
    for (let p = 0; p < percentiles.length; p++)
      out[scope * K + M + D + p] = nearestRank(side.pooled, scope - 1, percentiles[p]!);
}

/** Whether the side's values of a mean measure (or its ratios) are all alike in [from, to). */
function alike(side: SideLayout, k: number, shape: Shape, range: [number, number]): boolean {
  const seen = new Set<number>();
  for (let i = range[0]; i < range[1]; i++) {
    const call = side.calls[i]!;
    if (k < shape.means) {
      const v = call.means[k];
      if (v !== null && v !== undefined) seen.add(v);
    } else if (k === shape.K - 1 && call.ratio && call.ratio[1] > 0) {
      seen.add(call.ratio[0] / call.ratio[1]);
    } else if (k === shape.K - 1 && call.ratio && call.ratio[0] !== 0) return false;
  }
  return seen.size <= 1;
}

function shapeOf(calls: readonly CallValues[], percentiles: readonly number[], scopes: number) {
  const means = calls[0]?.means.length ?? 0;
  const medians = calls[0]?.medians.length ?? 0;
  for (const c of calls) {
    if (c.means.length !== means || c.medians.length !== medians)
      throw new RangeError('every call needs the same measures');
    const numbers = [...c.means, ...c.medians, ...c.pooled, ...(c.ratio ?? [])];
    if (numbers.some((v) => v !== null && !Number.isFinite(v)))
      throw new RangeError('call values must be finite numbers or null');
    if (c.ratio && c.ratio[1] < 0) throw new RangeError('a ratio needs a denominator ≥ 0');
  }
  for (const q of percentiles)
    if (!(q > 0 && q <= 100)) throw new RangeError(`a percentile lies in (0, 100], got ${q}`);
  return { means, medians, percentiles, K: means + medians + percentiles.length + 1, scopes };
}

/**
 * A side's statistics in a resample: its own, but its values as they are in a condition where it
 * has a single call (that call stays there: ./voice-sides.ts).
 */
function fixSingles(
  side: SideLayout,
  K: number,
  values: { own: Float64Array; point: Float64Array },
) {
  for (let c = 0; c < side.from.length; c++)
    if (side.to[c]! - side.from[c]! === 1)
      for (let at = (c + 1) * K; at < (c + 2) * K; at++) values.own[at] = values.point[at]!;
}

interface Sides {
  b: SideLayout;
  c: SideLayout;
  shape: Shape;
  /** Each side's statistics over its calls as they are (every weight 1). */
  point: { b: Float64Array; c: Float64Array };
  confidence: number;
  seed: number;
  resamples: number;
  /** The conditions' keys, in scope order (scope c + 1 is condition c). */
  conditions: string[];
}

/**
 * The resampled differences, statistic by statistic: (scope × K + k) × R + r. A resample's are
 * written together (one cache line or two), then laid out by statistic once at the end.
 */
function resampleDifferences(x: Sides): Float64Array {
  const { b, c, shape, point } = x;
  const R = x.resamples;
  const size = shape.scopes * shape.K;
  const byResample = new Float64Array(size * R);
  const weights = { b: new Float64Array(b.calls.length), c: new Float64Array(c.calls.length) };
  const values = {
    b: { own: new Float64Array(size), point: point.b },
    c: { own: new Float64Array(size), point: point.c },
  };
  let state = x.seed >>> 0;
  for (let r = 0; r < R; r++) {
    state = drawWeights(weights.b, b.strata, state);
    state = drawWeights(weights.c, c.strata, state);
    evaluate(b, weights.b, shape, values.b.own);
    evaluate(c, weights.c, shape, values.c.own);
    fixSingles(b, shape.K, values.b);
    fixSingles(c, shape.K, values.c);
    const [own, other] = [values.c.own, values.b.own];
    for (let at = 0; at < size; at++) byResample[r * size + at] = own[at]! - other[at]!;
  }
  const differences = new Float64Array(size * R);
  for (let at = 0; at < size; at++)
    for (let r = 0; r < R; r++) differences[at * R + r] = byResample[r * size + at]!;
  return differences;
}

const orNull = (v: number) => (Number.isNaN(v) ? null : v);

/** The statistic at `at` (scope × K + k): both sides' values, their difference and interval. */
function statisticOf(x: Sides, at: number, resampled: Float64Array): VoiceStatistic {
  const { b, c, shape, point } = x;
  const [baseline, candidate] = [orNull(point.b[at]!), orNull(point.c[at]!)];
  if (baseline === null || candidate === null)
    return { baseline, candidate, difference: null, interval: null };
  const difference = candidate - baseline;
  const scope = Math.floor(at / shape.K);
  const k = at % shape.K;
  const range = (side: SideLayout): [number, number] =>
    scope === 0 ? [0, side.calls.length] : [side.from[scope - 1]!, side.to[scope - 1]!];
  // Means and ratios alike on both sides: exactly [d, d] (sums of copies need not give d back).
  const sums = k < shape.means || k === shape.K - 1;
  if (sums && alike(b, k, shape, range(b)) && alike(c, k, shape, range(c)))
    return { baseline, candidate, difference, interval: [difference, difference] };
  let kept = 0;
  for (let i = 0; i < resampled.length; i++)
    if (!Number.isNaN(resampled[i]!)) resampled[kept++] = resampled[i]!;
  const interval =
    kept === 0 ? null : percentileInterval(resampled.subarray(0, kept), x.confidence);
  return { baseline, candidate, difference, interval };
}

/**
 * Both sides' voice statistics, overall and per condition, with percentile bootstrap intervals of
 * their differences: `resamples` resamples (default 10,000) of each side's calls within their
 * conditions, the baseline's drawn first in each, from one generator seeded with `seed`. Per
 * scope the statistics are each mean measure, each median measure (type 7), each nearest-rank
 * percentile of the pooled values, then the pooled ratio; a side with nothing to measure gives
 * nulls. Both sides' values alike (means, ratio) give exactly [d, d].
 */
export function voiceBootstrap(
  baseline: readonly CallValues[],
  candidate: readonly CallValues[],
  options: VoiceBootstrapOptions,
): VoiceBootstrapResult {
  const x = voicePlan(baseline, candidate, options);
  const { shape, resamples } = x;
  const differences = resampleDifferences(x);
  const scope = (s: number) =>
    Array.from({ length: shape.K }, (_, k) => {
      const at = s * shape.K + k;
      return statisticOf(x, at, differences.subarray(at * resamples, (at + 1) * resamples));
    });
  return {
    overall: scope(0),
    byCondition: new Map(x.conditions.map((key, c) => [key, scope(c + 1)])),
  };
}

/** Both sides laid out, checked, with their point statistics. */
function voicePlan(
  baseline: readonly CallValues[],
  candidate: readonly CallValues[],
  options: VoiceBootstrapOptions,
): Sides {
  const { confidence, resamples } = settings(options);
  const conditions = [...new Set([...baseline, ...candidate].map((x) => x.condition))].sort();
  const shape = shapeOf([...baseline, ...candidate], options.percentiles, conditions.length + 1);
  const b = sideLayout(baseline, conditions, shape);
  const c = sideLayout(candidate, conditions, shape);
  const size = shape.scopes * shape.K;
  const point = { b: new Float64Array(size), c: new Float64Array(size) };
  evaluate(b, new Float64Array(b.calls.length).fill(1), shape, point.b);
  evaluate(c, new Float64Array(c.calls.length).fill(1), shape, point.c);
  return { b, c, shape, point, confidence, seed: options.seed, resamples, conditions };
}
