/*
 * One side of a ratio bootstrap (./bootstrap.ts, word-weighted WER): its calls' numerators and
 * denominators, sorted so the caller's order does not move the interval, and a resampler that
 * pools a resample's sums without building it.
 */

export interface RatioSide {
  numerators: Float64Array;
  denominators: Float64Array;
  /** Σnum / Σden, or null when Σden is 0 (no words: no rate). */
  ratio: number | null;
  /** Every call has the same ratio (calls with nothing over nothing change no pooled ratio). */
  constant: boolean;
}

function checkedCalls(
  calls: readonly (readonly [number, number])[],
  side: string,
): (readonly [number, number])[] {
  for (const [numerator, denominator] of calls) {
    if (!Number.isFinite(numerator) || !Number.isFinite(denominator) || denominator < 0) {
      throw new RangeError(`${side} ratios need finite numerators and denominators ≥ 0`);
    }
  }
  return [...calls].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
}

/** Whether every call's num/den is the same ratio, compared by cross-multiplying (no rounding). */
function sameRatio(numerators: Float64Array, denominators: Float64Array): boolean {
  let first = -1;
  for (let i = 0; i < numerators.length; i++) {
    if (denominators[i] === 0) {
      if (numerators[i] !== 0) return false;
      continue;
    }
    if (first < 0) first = i;
    else if (numerators[i]! * denominators[first]! !== numerators[first]! * denominators[i]!) {
      return false;
    }
  }
  return true;
}

export function ratioSide(calls: readonly (readonly [number, number])[], side: string): RatioSide {
  const sorted = checkedCalls(calls, side);
  const numerators = Float64Array.from(sorted, (call) => call[0]);
  const denominators = Float64Array.from(sorted, (call) => call[1]);
  let num = 0;
  let den = 0;
  for (let i = 0; i < sorted.length; i++) {
    num += numerators[i]!;
    den += denominators[i]!;
  }
  return {
    numerators,
    denominators,
    ratio: den > 0 ? num / den : null,
    constant: sameRatio(numerators, denominators),
  };
}

/**
 * Σnum / Σden of one resample of the side's calls, picked by as many generator outputs (NaN when
 * Σden is 0).
 */
export function pooledRatio(side: RatioSide, draws: Uint32Array): number {
  const { numerators, denominators } = side;
  const n = numerators.length;
  let num = 0;
  let den = 0;
  for (let k = 0; k < n; k++) {
    const i = Math.floor((draws[k]! / 4294967296) * n);
    num += numerators[i]!;
    den += denominators[i]!;
  }
  return den > 0 ? num / den : NaN;
}
