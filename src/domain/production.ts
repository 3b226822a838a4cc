import { resultStatus, type MetricResult } from './simulations.js';

/**
 * The figures of production monitoring, as pure functions of scored calls: the agent analytics'
 * `production` block and the production alerts compute them the same way, and the tests check
 * them by hand.
 */

/** One evaluated call, as the figures need it. */
export interface ScoredCall {
  callId: string;
  /** When the call started (ISO); null: the provider did not say. */
  startedAt: string | null;
  agentVersion: number | null;
  score: number | null;
  /** null: the evaluation could not reach a verdict (counted as not passed). */
  passed: boolean | null;
  results: MetricResult[];
}

/** A stored evaluation (src/store/evaluation-rows.ts) as the figures read it. */
export const scoredCallOf = (e: {
  callId: string;
  callStartedAt: string | null;
  agentVersion: number | null;
  score: number | null;
  passed: boolean | null;
  results: MetricResult[];
}): ScoredCall => ({
  callId: e.callId,
  startedAt: e.callStartedAt,
  agentVersion: e.agentVersion,
  score: e.score,
  passed: e.passed,
  results: e.results,
});

/** The smoothing of the trend alert when the condition gives none. */
export const DEFAULT_TREND_ALPHA = 0.3;

const round2 = (x: number): number => Math.round(x * 100) / 100;

/** The mean of the numbers, to two decimals; null for none. */
export const meanOf = (xs: number[]): number | null =>
  xs.length ? round2(xs.reduce((a, b) => a + b, 0) / xs.length) : null;

/** A result the call could not compute: left out of every figure. */
export const isNotApplicable = (r: MetricResult): boolean => resultStatus(r) === 'not_applicable';

/**
 * Whether the call passed, overall or on one metric; null when it does not count (the metric
 * was not applicable to it, or it has no result for the metric).
 */
export function outcomeOf(call: ScoredCall, metricId?: string): boolean | null {
  if (metricId === undefined) return call.passed === true;
  const r = call.results.find((x) => x.metric_id === metricId);
  if (!r || isNotApplicable(r)) return null;
  return r.passed === true;
}

/** The counted outcomes of the calls, in the order given. */
export const outcomesOf = (calls: ScoredCall[], metricId?: string): boolean[] =>
  calls.map((c) => outcomeOf(c, metricId)).filter((o): o is boolean => o !== null);

/** Percent of the outcomes that passed, to two decimals; null for none. */
export function passRateOf(outcomes: boolean[]): number | null {
  if (!outcomes.length) return null;
  return round2((100 * outcomes.filter(Boolean).length) / outcomes.length);
}

/**
 * How far the recent outcomes fall below the window's pass rate, in points: the pass rate minus
 * the EWMA of the outcomes in order (100 passed, 0 not), seeded with that pass rate. Recent
 * failures pull the EWMA down, so the gap grows; failures long past are forgotten. Null for no
 * outcomes. `alpha` in (0, 1]: the weight of each new outcome.
 */
export function trendGap(outcomes: boolean[], alpha: number = DEFAULT_TREND_ALPHA): number | null {
  if (!outcomes.length) return null;
  const rate = (100 * outcomes.filter(Boolean).length) / outcomes.length;
  let ewma = rate;
  for (const passed of outcomes) ewma = alpha * (passed ? 100 : 0) + (1 - alpha) * ewma;
  return round2(rate - ewma);
}

/** Calls in start order (unknown starts first, then by id: the order is always the same). */
export function inStartOrder(calls: ScoredCall[]): ScoredCall[] {
  const at = (c: ScoredCall) => (c.startedAt === null ? -Infinity : Date.parse(c.startedAt));
  return [...calls].sort((a, b) => at(a) - at(b) || a.callId.localeCompare(b.callId));
}

/** Evaluated, passed, pass rate and mean score of a group of calls. */
export function groupFigures(calls: ScoredCall[]) {
  const passed = calls.filter((c) => c.passed === true).length;
  return {
    evaluated: calls.length,
    passed,
    passRate: passRateOf(calls.map((c) => c.passed === true)),
    avgScore: meanOf(calls.map((c) => c.score).filter((s): s is number => s !== null)),
  };
}

/**
 * The mean score per category over every applicable result with a score; a category that was
 * only ever not applicable (or never scored) is left out. Sorted by name.
 */
export function categoryScores(calls: ScoredCall[]): { category: string; score: number }[] {
  const scores = new Map<string, number[]>();
  for (const c of calls)
    for (const r of c.results) {
      if (isNotApplicable(r) || r.score === null) continue;
      scores.set(r.category, [...(scores.get(r.category) ?? []), r.score]);
    }
  return [...scores]
    .map(([category, xs]) => ({ category, score: meanOf(xs)! }))
    .sort((a, b) => a.category.localeCompare(b.category));
}

/** The calls grouped by a key, keys sorted ascending (by `compare`). */
function groupBy<K>(
  calls: ScoredCall[],
  keyOf: (c: ScoredCall) => K,
  compare: (a: K, b: K) => number,
): [K, ScoredCall[]][] {
  const groups = new Map<K, ScoredCall[]>();
  for (const c of calls) {
    const k = keyOf(c);
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  return [...groups].sort((a, b) => compare(a[0], b[0]));
}

/** Figures per UTC day the calls started on, oldest first (calls without a start left out). */
export function byDay(calls: ScoredCall[]) {
  const dated = calls.filter((c) => c.startedAt !== null);
  return groupBy(
    dated,
    (c) => new Date(c.startedAt!).toISOString().slice(0, 10),
    (a, b) => a.localeCompare(b),
  ).map(([date, group]) => {
    const { evaluated, passRate, avgScore } = groupFigures(group);
    return { date, evaluated, passRate, avgScore };
  });
}

/** Figures per agent version, oldest first; calls from before the first synced version last (null). */
export function byVersion(calls: ScoredCall[]) {
  return groupBy(
    calls,
    (c) => c.agentVersion,
    (a, b) => (a === null ? 1 : b === null ? -1 : a - b),
  ).map(([version, group]) => {
    const { evaluated, passRate, avgScore } = groupFigures(group);
    return { version, evaluated, passRate, avgScore };
  });
}
