import { MIN_PAIRS, type Interval, type Verdict } from '../domain/comparisons.js';
import { canonicalHash } from '../kernel/canonical-hash.js';
import { normalQuantile } from './normal-quantile.js';

/*
 * The statistics of comparisons, as pure functions of counts and numbers: no store, no clock.
 * Pass rates get score intervals (Wilson for one side, Newcombe's hybrid for the difference):
 * exact-looking Wald intervals collapse to zero width at 0 of n and n of n, which is exactly where
 * an agent that always (or never) passes sits. Scores and voice measures get seeded percentile
 * bootstraps (./bootstrap.ts), so the same inputs always give the same interval.
 */

export { normalQuantile } from './normal-quantile.js';
export {
  pairedBootstrap,
  bootstrapDifference,
  bootstrapRatioDifference,
  mean,
  median,
  percentile,
  type ScorePair,
} from './bootstrap.js';
export { sharedPairedBootstrap, type PairQuantities } from './bootstrap-shared.js';

/** A side's outcomes: passes among total. */
export interface Proportion {
  passed: number;
  total: number;
}

/** The two-sided critical value z(1 − (1 − confidence)/2), e.g. 1.959964 at 0.95. */
export function twoSidedZ(confidence: number): number {
  if (!(confidence > 0 && confidence < 1)) {
    throw new RangeError(`confidence must lie strictly between 0 and 1, got ${confidence}`);
  }
  return normalQuantile(1 - (1 - confidence) / 2);
}

function checkProportion(x: Proportion): void {
  const { passed, total } = x;
  if (!Number.isInteger(passed) || !Number.isInteger(total) || passed < 0 || passed > total) {
    throw new RangeError(`a proportion needs integers 0 ≤ passed ≤ total, got ${passed}/${total}`);
  }
}

/**
 * The Wilson score interval of passed/total at `confidence` (default 0.95), no continuity
 * correction; null when total is 0. 0 of n has lower bound exactly 0 and n of n upper bound
 * exactly 1 (the formula gives them up to rounding), and the interval is clamped to [0, 1].
 */
export function wilsonInterval(x: Proportion, confidence = 0.95): Interval | null {
  checkProportion(x);
  const z = twoSidedZ(confidence);
  const n = x.total;
  if (n === 0) return null;
  const p = x.passed / n;
  const z2n = (z * z) / n;
  const centre = (p + z2n / 2) / (1 + z2n);
  const half = (z / (1 + z2n)) * Math.sqrt((p * (1 - p)) / n + z2n / (4 * n));
  const low = x.passed === 0 ? 0 : Math.max(0, centre - half);
  const high = x.passed === n ? 1 : Math.min(1, centre + half);
  return [low, high];
}

/**
 * Newcombe's hybrid score interval (1998, method 10, no continuity correction) for the difference
 * of two independent proportions, candidate − baseline; null when either total is 0. With
 * d = p2 − p1 (p2 the candidate), [l, u] each side's Wilson interval:
 * L = d − √((p2 − l2)² + (u1 − p1)²), U = d + √((u2 − p2)² + (p1 − l1)²).
 */
export function newcombeInterval(
  baseline: Proportion,
  candidate: Proportion,
  confidence = 0.95,
): Interval | null {
  const side1 = wilsonInterval(baseline, confidence);
  const side2 = wilsonInterval(candidate, confidence);
  if (!side1 || !side2) return null;
  const p1 = baseline.passed / baseline.total;
  const p2 = candidate.passed / candidate.total;
  const [l1, u1] = side1;
  const [l2, u2] = side2;
  const d = p2 - p1;
  const low = d - Math.hypot(p2 - l2, u1 - p1);
  const high = d + Math.hypot(u2 - p2, p1 - l1);
  return [Math.max(-1, low), Math.min(1, high)];
}

/**
 * The verdict rule: under MIN_PAIRS pairs (or a null interval) `insufficient_data`; else
 * `regressed` when the interval lies wholly below 0, `improved` wholly above, else
 * `no_significant_difference`. An interval touching 0 decides nothing.
 * `higherIsBetter` false (voice rows) swaps the sides; `minEffect` (≥ 0, default 0) demands the
 * whole interval lie beyond it: for a lower-is-better measure `regressed` when low > minEffect,
 * `improved` when high < −minEffect.
 */
export function verdictOf(
  interval: Interval | null,
  count: number,
  options: { higherIsBetter?: boolean; minEffect?: number } = {},
): Verdict {
  const { higherIsBetter = true, minEffect = 0 } = options;
  if (!(minEffect >= 0)) throw new RangeError(`minEffect must be ≥ 0, got ${minEffect}`);
  if (count < MIN_PAIRS || !interval) return 'insufficient_data';
  const [low, high] = interval;
  const above = low > minEffect;
  const below = high < -minEffect;
  if (above) return higherIsBetter ? 'improved' : 'regressed';
  if (below) return higherIsBetter ? 'regressed' : 'improved';
  return 'no_significant_difference';
}

/**
 * The confidence that applies Bonferroni's correction over m tests at family-wise 0.05:
 * 1 − 0.05/m. A table of no rows tests nothing and is treated as m = 1 (0.95).
 */
export function bonferroniConfidence(m: number): number {
  if (Number.isNaN(m)) throw new RangeError('bonferroniConfidence needs a number of tests');
  return 1 - 0.05 / Math.max(1, m);
}

/**
 * Runs per scenario × persona group to detect a `delta` (default 0.10) change in pass rate at
 * `power` (default 0.8), two-sided `alpha` (default 0.05), from the pooled observed rate (clamped
 * to [0.05, 0.95] so an all-pass or all-fail history still asks for data; an unknown rate, NaN,
 * counts as 0.5, the most demanding): ceil((z(1−α/2) + z(power))² · 2p(1−p) / δ² / groups), at
 * least 1. Fewer than one group counts as one.
 */
export function runsPerGroup(
  pooledRate: number,
  groups: number,
  options: { delta?: number; alpha?: number; power?: number } = {},
): number {
  const { delta = 0.1, alpha = 0.05, power = 0.8 } = options;
  if (!(delta > 0 && delta <= 1)) throw new RangeError(`delta must lie in (0, 1], got ${delta}`);
  if (!(power > 0 && power < 1)) throw new RangeError(`power must lie in (0, 1), got ${power}`);
  const p = Number.isFinite(pooledRate) ? Math.min(0.95, Math.max(0.05, pooledRate)) : 0.5;
  const z = twoSidedZ(1 - alpha) + normalQuantile(power);
  const total = (z * z * 2 * p * (1 - p)) / (delta * delta);
  return Math.max(1, Math.ceil(total / Math.max(1, groups)));
}

/**
 * pass^k: the share of groups whose runs all passed (null with no groups). A group with no runs
 * (every simulation errored) has no outcome and is left out.
 */
export function passK(groups: readonly (readonly boolean[])[]): number | null {
  const judged = groups.filter((runs) => runs.length > 0);
  if (judged.length === 0) return null;
  return judged.filter((runs) => runs.every(Boolean)).length / judged.length;
}

/**
 * A 32-bit seed from the inputs (their canonical JSON): the same inputs, the same intervals.
 * The first 4 bytes of the canonical SHA-256, big-endian, as an unsigned integer.
 */
export function seedFrom(inputs: unknown): number {
  return Number.parseInt(canonicalHash(inputs).slice(0, 8), 16) >>> 0;
}
