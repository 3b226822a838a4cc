/*
 * A type-7 quantile of many values (a bootstrap's 10,000 resampled statistics) in about one pass:
 * a sorted sample of the values brackets the two ranks the quantile reads, one pass counts the
 * values below the bracket and gathers those inside it, and sorting those few gives the ranks. The
 * ranks are exact (the same values a sort would put there), checked by the counts: when the
 * bracket misses them, the caller selects them over all the values instead. A comparison takes
 * some sixty intervals, two quantiles each: quickselect passed over each array several times.
 */

/** Values sampled for the bracket (every n/SAMPLE-th value). */
const SAMPLE = 256;
/** The bracket's half-width in sample positions: the ranks fall outside it very rarely. */
const MARGIN = 8;
/** Below this many values the caller's own selection is as quick. */
const MIN_VALUES = 2_048;

/** Reused between calls: the sample, and the values gathered inside the bracket. */
const sample = new Float64Array(SAMPLE);
let inside = new Float64Array(0);

/** The sample's bracket around rank k of n: the values [low, high] (inclusive). */
function bracketOf(values: Float64Array, k: number): { low: number; high: number } {
  const n = values.length;
  const step = n / SAMPLE;
  for (let j = 0; j < SAMPLE; j++) sample[j] = values[Math.floor(j * step)]!;
  sample.sort();
  const at = Math.floor((k / n) * SAMPLE);
  const low = at - MARGIN < 0 ? Number.NEGATIVE_INFINITY : sample[at - MARGIN]!;
  const high = at + 1 + MARGIN >= SAMPLE ? Number.POSITIVE_INFINITY : sample[at + 1 + MARGIN]!;
  return { low, high };
}

/**
 * The values of ranks k and k + 1 (0-based, ascending; k + 1 < n), or null when the bracket
 * missed them (or too many values lie inside it to be worth sorting).
 */
function ranksNear(values: Float64Array, k: number): [number, number] | null {
  const { low, high } = bracketOf(values, k);
  const n = values.length;
  if (inside.length < n) inside = new Float64Array(n);
  let below = 0;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (v < low) below++;
    else if (v <= high) inside[count++] = v;
    else if (!(v > high)) return null; // not a number: the caller's selection decides
  }
  // Both ranks inside the bracket: below them fewer than k values, past them more than k + 1.
  if (below > k || below + count < k + 2 || count > n / 4) return null;
  const kept = inside.subarray(0, count).sort();
  return [kept[k - below]!, kept[k + 1 - below]!];
}

/**
 * The type-7 q-quantile (0 < q < 1) of the values as `sortedQuantile` of their sorted copy gives
 * it, or null where the caller should select it itself. The values are left as they were.
 */
export function sampledQuantile(values: Float64Array, q: number): number | null {
  const n = values.length;
  if (n < MIN_VALUES || !(q > 0 && q < 1)) return null;
  const h = (n - 1) * q;
  const rank = Math.floor(h);
  const fraction = h - rank;
  if (rank + 1 >= n) return null;
  const ranks = ranksNear(values, rank);
  if (!ranks) return null;
  const [atLo, atHi] = ranks;
  if (fraction === 0) return atLo;
  return atHi === atLo ? atLo : atLo + fraction * (atHi - atLo);
}
