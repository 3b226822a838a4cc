import type { Interval } from '../domain/comparisons.js';
import { sampledQuantile } from './sampled-quantile.js';

/*
 * The shared pieces of the bootstraps (./bootstrap.ts): sorted, checked inputs and the percentile
 * interval of the resampled statistics.
 */

/**
 * The type-7 q-quantile of ascending values (R's default, NumPy's `linear`): with h = (n − 1)q,
 * x[⌊h⌋] + (h − ⌊h⌋)(x[⌊h⌋ + 1] − x[⌊h⌋]). The bootstraps' draw-count quantile matches it exactly.
 */
export function sortedQuantile(sorted: ArrayLike<number>, q: number): number {
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const fraction = h - lo;
  const atLo = sorted[lo]!;
  if (fraction === 0) return atLo;
  const atHi = sorted[lo + 1]!;
  return atHi === atLo ? atLo : atLo + fraction * (atHi - atLo);
}

/**
 * The percentile interval: the α/2 and 1 − α/2 type-7 quantiles of the statistics, exactly as
 * sorting them would give. A comparison takes some sixty intervals of 10,000 resamples: those are
 * bracketed from a sample and read in about one pass each (./sampled-quantile.ts); fewer values,
 * or a bracket that missed, are found by selection (the statistics are then reordered in place),
 * which reads each array a few times where a sort would pass over it some fourteen.
 */
export function percentileInterval(statistics: Float64Array, confidence: number): Interval {
  const alpha = 1 - confidence;
  // Many values: bracketed from a sample, in about one pass each (./sampled-quantile.ts).
  const sampledLow = sampledQuantile(statistics, alpha / 2);
  const sampledHigh = sampledLow === null ? null : sampledQuantile(statistics, 1 - alpha / 2);
  if (sampledLow !== null && sampledHigh !== null) return [sampledLow, sampledHigh];
  const low = selectedQuantile(statistics, alpha / 2, 0);
  const high = selectedQuantile(statistics, 1 - alpha / 2, low.rank + 1);
  return [low.value, high.value];
}

/**
 * The type-7 q-quantile of `values` by selection, knowing that positions below `from` already
 * hold the `from` smallest (in any order). Leaves rank ⌊h⌋'s value at that position.
 */
function selectedQuantile(values: Float64Array, q: number, from: number) {
  const h = (values.length - 1) * q;
  const rank = Math.floor(h);
  const fraction = h - rank;
  select(values, rank, Math.min(from, rank), values.length - 1);
  const atLo = values[rank]!;
  if (fraction === 0) return { rank, value: atLo };
  // Everything after `rank` is no smaller: the next rank's value is their minimum.
  let atHi = values[rank + 1]!;
  for (let i = rank + 2; i < values.length; i++) if (values[i]! < atHi) atHi = values[i]!;
  return { rank, value: atHi === atLo ? atLo : atLo + fraction * (atHi - atLo) };
}

/**
 * Quickselect (Hoare's partition, median-of-three pivot) on values[lo..hi]: afterwards values[k]
 * holds the value a sort would put there, with no larger value before it and no smaller after.
 */
function select(values: Float64Array, k: number, lo: number, hi: number): void {
  while (hi > lo) {
    const a = values[lo]!;
    const b = values[(lo + hi) >>> 1]!;
    const c = values[hi]!;
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : a < c ? a : b < c ? c : b;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (values[i]! < pivot) i++;
      while (values[j]! > pivot) j--;
      if (i <= j) {
        const swap = values[i]!;
        values[i++] = values[j]!;
        values[j--] = swap;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

/** Whether every value is the same (true for one value). */
export function isConstant(values: ArrayLike<number>): boolean {
  for (let i = 1; i < values.length; i++) if (values[i] !== values[0]) return false;
  return true;
}

/** An ascending copy of a side's values, refusing non-finite ones (a bug upstream, not data). */
export function sortedFinite(values: readonly number[], side: string): number[] {
  for (const value of values) {
    if (!Number.isFinite(value)) throw new RangeError(`${side} values must be finite numbers`);
  }
  return [...values].sort((a, b) => a - b);
}
