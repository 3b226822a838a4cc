import { fillSeeded } from '../audio/seeded-random.js';
import { settings, type BootstrapResult } from './bootstrap-options.js';
import { isConstant, percentileInterval, sortedFinite, sortedQuantile } from './bootstrap-parts.js';
import { pooledRatio, ratioSide, type RatioSide } from './bootstrap-ratio.js';
import { strataOf } from './bootstrap-strata.js';

/*
 * Seeded percentile bootstraps. Every function takes a seed and draws from seededRandom's
 * generator (mulberry32, in bulk through fillSeeded), so the same inputs and seed give the same
 * interval bit for bit; inputs are sorted first (groups by key, values ascending) so the order a
 * caller happens to read rows in does not move the interval. The loops reuse typed arrays and
 * allocate nothing per resample: a comparison of two executions runs several of these at 10,000
 * resamples and must cost less than reading the executions from the store.
 *
 * A draw's index is ⌊(u / 2³²) · size⌋ for a generator output u: exactly ⌊seededRandom() · size⌋.
 * It is written out in each loop rather than called: V8 ran the loops up to 3× slower once such a
 * shared helper had been optimised from several call sites.
 */

/** One pair's scores: its group (scenario × persona) and each side's score. */
export interface ScorePair {
  group: string;
  baseline: number;
  candidate: number;
}

type Statistic = (values: readonly number[]) => number;

const NOTHING: BootstrapResult = { difference: null, interval: null };

/**
 * The differences in resampling strata (./bootstrap-strata.ts): groups of two or more in key
 * order, then the groups of one pooled; each stratum's differences ascending.
 */
function groupedDifferences(pairs: readonly ScorePair[]): {
  differences: Float64Array;
  offsets: Int32Array;
} {
  const items = pairs.map(({ group, baseline, candidate }) => {
    const difference = candidate - baseline;
    if (!Number.isFinite(difference)) {
      throw new RangeError(`pair scores must be finite numbers (group ${group})`);
    }
    return { group, difference };
  });
  const strata = strataOf(
    items,
    (x) => x.group,
    (a, b) => a.difference - b.difference,
  );
  return {
    differences: Float64Array.from(strata.items, (x) => x.difference),
    offsets: strata.offsets,
  };
}

/**
 * The paired mean difference (candidate − baseline) and its percentile bootstrap interval:
 * `resamples` (default 10,000) resamples drawing pairs with replacement within each group (each
 * group keeps its size), from a generator seeded with `seed`; the interval is the (α/2, 1 − α/2)
 * type-7 quantiles of the resampled means. Null difference and interval with no pairs; a
 * zero-variance input (every pair differs by the same d) gives exactly [d, d].
 * Resampling within groups sees only the spread inside each group: a group of k pairs shows
 * (k − 1)/k of it (measured coverage of a nominal 95%: ~92% with groups of 10, ~88% with groups
 * of 3). A group of one pair would show none, so the groups of one pair are pooled into one
 * stratum (./bootstrap-strata.ts): one run per group still gives an interval of the spread
 * between groups.
 */
export function pairedBootstrap(
  pairs: readonly ScorePair[],
  options: { seed: number; confidence?: number; resamples?: number },
): BootstrapResult {
  const { confidence, resamples } = settings(options);
  if (pairs.length === 0) return NOTHING;
  const { differences, offsets } = groupedDifferences(pairs);
  const n = differences.length;
  if (isConstant(differences)) {
    return { difference: differences[0]!, interval: [differences[0]!, differences[0]!] };
  }
  let total = 0;
  for (let i = 0; i < n; i++) total += differences[i]!;
  const draws = new Uint32Array(n);
  let state = options.seed;
  const means = new Float64Array(resamples);
  const groups = offsets.length - 1;
  for (let r = 0; r < resamples; r++) {
    state = fillSeeded(state, draws);
    let sum = 0;
    for (let g = 0; g < groups; g++) {
      const start = offsets[g]!;
      const size = offsets[g + 1]! - start;
      for (let k = start; k < start + size; k++) {
        sum += differences[start + Math.floor((draws[k]! / 4294967296) * size)]!;
      }
    }
    means[r] = sum / n;
  }
  return { difference: total / n, interval: percentileInterval(means, confidence) };
}

/** The arithmetic mean (NaN for no values). Recognised by the bootstraps, which sum in place. */
export const mean: Statistic = (values) => {
  let sum = 0;
  for (const value of values) sum += value;
  return sum / values.length;
};

/** Statistics the bootstraps compute without building each resample: mean and quantiles. */
const KNOWN = new WeakMap<Statistic, { kind: 'mean' } | { kind: 'quantile'; q: number }>([
  [mean, { kind: 'mean' }],
]);

/**
 * The q-quantile (0 ≤ q ≤ 1, type 7 as R's default and NumPy's `linear`; NaN for no values).
 * Recognised by the bootstraps, which find it from draw counts instead of sorting each resample.
 */
export function percentile(q: number): Statistic {
  if (!(q >= 0 && q <= 1)) throw new RangeError(`a percentile needs 0 ≤ q ≤ 1, got ${q}`);
  const statistic: Statistic = (values) =>
    values.length === 0 ? NaN : sortedQuantile(Float64Array.from(values).sort(), q);
  KNOWN.set(statistic, { kind: 'quantile', q });
  return statistic;
}

/** The median: percentile(0.5). */
export const median: Statistic = percentile(0.5);

/**
 * One resample of a side (with replacement, its own size) from as many fresh generator outputs,
 * returning its statistic.
 */
type Resampler = (draws: Uint32Array) => number;

function meanResampler(sorted: readonly number[]): Resampler {
  const n = sorted.length;
  return (draws) => {
    let sum = 0;
    for (let k = 0; k < n; k++) sum += sorted[Math.floor((draws[k]! / 4294967296) * n)]!;
    return sum / n;
  };
}

/**
 * The q-quantile of a resample from how often each (sorted) value was drawn: O(n) a resample, no
 * sort. Equal to sorting the resample and interpolating between ranks ⌊h⌋ and ⌊h⌋ + 1.
 */
function quantileResampler(sorted: readonly number[], q: number): Resampler {
  const n = sorted.length;
  const counts = new Uint32Array(n);
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const fraction = h - lo;
  return (draws) => {
    counts.fill(0);
    for (let k = 0; k < n; k++) counts[Math.floor((draws[k]! / 4294967296) * n)]!++;
    let seen = 0;
    let i = 0;
    while (seen + counts[i]! <= lo) seen += counts[i++]!;
    const atLo = sorted[i]!;
    // Rank ⌊h⌋ + 1 is the same value when this one was drawn again (or is not needed).
    if (fraction === 0 || seen + counts[i]! > lo + 1) return atLo;
    let j = i + 1;
    while (counts[j] === 0) j++;
    return atLo + fraction * (sorted[j]! - atLo);
  };
}

/** Any other statistic: fills one reused buffer with the draws, in draw order. */
function bufferResampler(sorted: readonly number[], statistic: Statistic): Resampler {
  const n = sorted.length;
  const buffer = sorted.slice();
  return (draws) => {
    for (let k = 0; k < n; k++) buffer[k] = sorted[Math.floor((draws[k]! / 4294967296) * n)]!;
    return statistic(buffer);
  };
}

function resamplerFor(sorted: readonly number[], statistic: Statistic): Resampler {
  const known = KNOWN.get(statistic);
  if (known?.kind === 'mean') return meanResampler(sorted);
  if (known?.kind === 'quantile') return quantileResampler(sorted, known.q);
  return bufferResampler(sorted, statistic);
}

/**
 * Two independent samples (calls of each side): `statistic(candidate) − statistic(baseline)` and
 * its percentile bootstrap interval, resampling each side's values with replacement (each keeps
 * its size; the baseline's resample is drawn first). `mean`, `median` and `percentile(q)` from
 * this module run without building resamples; any other statistic gets each resample in a reused
 * array it must not keep. Null with an empty side; both sides constant give exactly [d, d].
 */
export function bootstrapDifference(
  baseline: readonly number[],
  candidate: readonly number[],
  options: { statistic: Statistic; seed: number; confidence?: number; resamples?: number },
): BootstrapResult {
  const { confidence, resamples } = settings(options);
  if (baseline.length === 0 || candidate.length === 0) return NOTHING;
  const base = sortedFinite(baseline, 'baseline');
  const cand = sortedFinite(candidate, 'candidate');
  const difference = options.statistic(cand) - options.statistic(base);
  if (isConstant(base) && isConstant(cand))
    return { difference, interval: [difference, difference] };
  const baseStatistic = resamplerFor(base, options.statistic);
  const candStatistic = resamplerFor(cand, options.statistic);
  const baseDraws = new Uint32Array(base.length);
  const candDraws = new Uint32Array(cand.length);
  let state = options.seed;
  const differences = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    state = fillSeeded(state, baseDraws);
    state = fillSeeded(state, candDraws);
    differences[r] = candStatistic(candDraws) - baseStatistic(baseDraws);
  }
  return { difference, interval: percentileInterval(differences, confidence) };
}

/**
 * Ratio statistics resampled by call (word-weighted WER: pooled errors over pooled words). Each
 * value is one call's `[numerator, denominator]` (finite, denominator ≥ 0); the statistic is
 * Σnum / Σden of a resample. Null when a side is empty or its Σden is 0; a resample whose Σden is
 * 0 has no ratio and is left out of the quantiles. Every call of each side at one ratio gives
 * exactly [d, d].
 */
export function bootstrapRatioDifference(
  baseline: readonly (readonly [number, number])[],
  candidate: readonly (readonly [number, number])[],
  options: { seed: number; confidence?: number; resamples?: number },
): BootstrapResult {
  const { confidence, resamples } = settings(options);
  if (baseline.length === 0 || candidate.length === 0) return NOTHING;
  const base: RatioSide = ratioSide(baseline, 'baseline');
  const cand: RatioSide = ratioSide(candidate, 'candidate');
  if (base.ratio === null || cand.ratio === null) return NOTHING;
  const difference = cand.ratio - base.ratio;
  if (base.constant && cand.constant) return { difference, interval: [difference, difference] };
  const baseDraws = new Uint32Array(baseline.length);
  const candDraws = new Uint32Array(candidate.length);
  let state = options.seed;
  const differences = new Float64Array(resamples);
  let kept = 0;
  for (let r = 0; r < resamples; r++) {
    state = fillSeeded(state, baseDraws);
    state = fillSeeded(state, candDraws);
    const b = pooledRatio(base, baseDraws);
    const c = pooledRatio(cand, candDraws);
    if (!Number.isNaN(b) && !Number.isNaN(c)) differences[kept++] = c - b;
  }
  if (kept === 0) return { difference, interval: null };
  return { difference, interval: percentileInterval(differences.subarray(0, kept), confidence) };
}
