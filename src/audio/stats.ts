/** Percentiles for timing figures (latency, pacing jitter), by nearest rank. */

/**
 * The nearest-rank percentile: the smallest value with at least `p` percent of the values at or
 * below it. `p` is in percent (50 for the median, 99 for p99); `p = 0` gives the minimum. Null for
 * no values.
 */
export function percentile(values: number[], p: number): number | null {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile wants p in [0, 100], got ${p}`);
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1]!;
}

export interface Summary {
  p50: number | null;
  p90: number | null;
  max: number | null;
}

/** p50, p90 and max of `values` (all null when there are none). */
export function summarize(values: number[]): Summary {
  if (values.length === 0) return { p50: null, p90: null, max: null };
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number): number => sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1]!;
  return { p50: at(50), p90: at(90), max: sorted[sorted.length - 1]! };
}
