import {
  MIN_PAIRS,
  type CaseRow,
  type ComparisonStats,
  type MetricRow,
  type SideRate,
} from '../domain/comparisons.js';
import type { ComparedResult } from '../store/compared-figures.js';
import { hasOutcome, withOutcomes, type Pair } from './pairing.js';
import type { BootstrapResult } from './bootstrap-options.js';
import { metricNames, type ScoreIntervals } from './score-intervals.js';
import {
  bonferroniConfidence,
  newcombeInterval,
  verdictOf,
  wilsonInterval,
  type Proportion,
} from './statistics.js';

/*
 * The rows of a comparison: overall, per scenario × persona case, per scorecard metric. The
 * pass-rate difference's interval makes the verdict; the score's bootstrap interval (every row's
 * from one shared bootstrap, ./score-intervals.ts) is shown and never decides.
 */

/** One side's outcome in a pair, for one row: passed, and its score when it has one. */
export interface Outcome {
  passed: boolean;
  score: number | null;
}

export interface RowPair {
  group: string;
  baseline: Outcome;
  candidate: Outcome;
}

/** How a row's statistics are made: its score bootstrap, m of its table, its case count. */
export interface RowOptions {
  score: BootstrapResult;
  /** Rows in its table (Bonferroni): 1 for the overall row. */
  m: number;
  /** Scenario × persona groups the row covers (runs_needed is per group). */
  groups: number;
}

const NOTHING: BootstrapResult = { difference: null, interval: null };

const mean = (values: readonly number[]): number | null =>
  values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;

function sideRate(x: Proportion): SideRate {
  return {
    ...x,
    pass_rate: x.total === 0 ? null : x.passed / x.total,
    interval: wilsonInterval(x),
  };
}

/** The row's score: the means of its scored pairs, the difference and interval bootstrapped. */
function scoreOf(pairs: readonly RowPair[], score: BootstrapResult): ComparisonStats['score'] {
  const scored = pairs.filter((p) => p.baseline.score !== null && p.candidate.score !== null);
  return {
    baseline_mean: mean(scored.map((p) => p.baseline.score!)),
    candidate_mean: mean(scored.map((p) => p.candidate.score!)),
    difference: score.difference,
    interval: score.interval,
  };
}

/** The statistics of one row over its pairs (each side with an outcome). */
export function statsOf(pairs: readonly RowPair[], o: RowOptions): ComparisonStats {
  const count = (side: 'baseline' | 'candidate'): Proportion => ({
    passed: pairs.filter((p) => p[side].passed).length,
    total: pairs.length,
  });
  const b = count('baseline');
  const c = count('candidate');
  const interval = newcombeInterval(b, c);
  const verdict = verdictOf(interval, pairs.length);
  // Many rows, many tests: the adjusted verdict reads the interval at 1 − 0.05/m.
  const adjusted = o.m <= 1 ? interval : newcombeInterval(b, c, bonferroniConfidence(o.m));
  return {
    pairs: pairs.length,
    baseline: sideRate(b),
    candidate: sideRate(c),
    difference: {
      value: pairs.length === 0 ? null : (c.passed - b.passed) / pairs.length,
      interval,
    },
    score: scoreOf(pairs, o.score),
    verdict,
    adjusted_verdict: verdictOf(adjusted, pairs.length),
    runs_needed:
      verdict === 'insufficient_data' ? Math.ceil(MIN_PAIRS / Math.max(1, o.groups)) : null,
  };
}

const outcomeOf = (s: Pair['baseline']): Outcome => ({ passed: s.passed === true, score: s.score });

/** The overall row: every pair with outcomes on both sides. */
export function overallRow(
  pairs: readonly Pair[],
  scores: ScoreIntervals,
  groups: number,
): ComparisonStats {
  const rowPairs = withOutcomes(pairs).map((p) => ({
    group: p.group,
    baseline: outcomeOf(p.baseline),
    candidate: outcomeOf(p.candidate),
  }));
  return statsOf(rowPairs, { score: scores.overall, m: 1, groups });
}

/** Worst first: regressed rows, then by the pass-rate difference, lowest first (none last). */
export function worstFirst<R extends Pick<ComparisonStats, 'verdict' | 'difference'>>(
  rows: R[],
): R[] {
  const rank = (r: R) => (r.verdict === 'regressed' ? 0 : 1);
  const value = (r: R) => r.difference.value ?? Number.POSITIVE_INFINITY;
  return [...rows].sort((a, b) => rank(a) - rank(b) || value(a) - value(b));
}

/** A side's simulations of a case disagree: some passed, some did not. */
export type FlakyOf = (group: string) => { baseline: boolean; candidate: boolean };

/** One row per scenario × persona case of the pairs, worst first. */
export function caseRows(
  pairs: readonly Pair[],
  o: { scores: ScoreIntervals; names: Map<string, string>; flaky: FlakyOf },
): CaseRow[] {
  const byGroup = new Map<string, Pair[]>();
  for (const p of pairs) {
    const members = byGroup.get(p.group);
    if (members) members.push(p);
    else byGroup.set(p.group, [p]);
  }
  const m = byGroup.size;
  const rows = [...byGroup.entries()].map(([group, all]): CaseRow => {
    const { scenario_id, persona_id } = all[0]!;
    const rowPairs = withOutcomes(all).map((p) => ({
      group,
      baseline: outcomeOf(p.baseline),
      candidate: outcomeOf(p.candidate),
    }));
    return {
      scenario_id,
      scenario_name: o.names.get(scenario_id) ?? null,
      persona_id,
      persona_name: persona_id === null ? null : (o.names.get(persona_id) ?? null),
      ...statsOf(rowPairs, { score: o.scores.byGroup.get(group) ?? NOTHING, m, groups: 1 }),
      errored: {
        baseline: all.filter((p) => !hasOutcome(p.baseline)).length,
        candidate: all.filter((p) => !hasOutcome(p.candidate)).length,
      },
      flaky: o.flaky(group),
    };
  });
  return worstFirst(rows);
}

/** A metric's result by name, when it judged (not applicable, or unknown: none). */
function metricOutcome(results: readonly ComparedResult[], name: string): Outcome | null {
  const r = results.find((x) => x.name === name);
  return r && r.passed !== null ? { passed: r.passed, score: r.score } : null;
}

/** One row per metric name across the scorecards, worst first. */
export function metricRows(pairs: readonly Pair[], scores: ScoreIntervals): MetricRow[] {
  const judged = withOutcomes(pairs);
  const unique = metricNames(judged);
  const rows = unique.map((metric): MetricRow => {
    const rowPairs: RowPair[] = judged.flatMap((p) => {
      const b = metricOutcome(p.baseline.results, metric);
      const c = metricOutcome(p.candidate.results, metric);
      return b && c ? [{ group: p.group, baseline: b, candidate: c }] : [];
    });
    const groups = new Set(rowPairs.map((p) => p.group)).size;
    return {
      metric,
      ...statsOf(rowPairs, {
        score: scores.byMetric.get(metric) ?? NOTHING,
        m: unique.length,
        groups,
      }),
    };
  });
  return worstFirst(rows);
}
