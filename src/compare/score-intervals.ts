import type { ComparedResult } from '../store/compared-figures.js';
import type { BootstrapResult } from './bootstrap-options.js';
import {
  sharedPairedBootstrap,
  type PairQuantities,
  type SharedBootstrapResult,
} from './bootstrap-shared.js';
import { withOutcomes, type Pair } from './pairing.js';
import { seedFrom } from './statistics.js';

/*
 * Every score interval of a comparison from one bootstrap (./bootstrap-shared.ts): the overall
 * row's, each scenario × persona case's (its group's part of each resample) and each metric's, so
 * that two executions of 1,000 simulations draw ten million pairs once, not once per row.
 */

/** The score bootstrap of each row: overall, by case (group), by metric name. */
export interface ScoreIntervals {
  overall: BootstrapResult;
  byGroup: Map<string, BootstrapResult>;
  byMetric: Map<string, BootstrapResult>;
}

const NOTHING: BootstrapResult = { difference: null, interval: null };

/** A metric's score difference in a pair: both sides judged it and scored it (else none). */
function metricDifference(
  baseline: readonly ComparedResult[],
  candidate: readonly ComparedResult[],
  name: string,
): number | null {
  const b = baseline.find((r) => r.name === name);
  const c = candidate.find((r) => r.name === name);
  if (!b || !c || b.passed === null || c.passed === null) return null;
  return b.score === null || c.score === null ? null : c.score - b.score;
}

/** Metric names across both sides' results, in the order first met. */
export function metricNames(pairs: readonly Pair[]): string[] {
  const names = new Set<string>();
  // A metric no simulation could measure (an audio figure in a text run) is not applicable on
  // both sides: a row for it could only ever say "insufficient data", so it gets none.
  for (const p of pairs)
    for (const r of [...p.baseline.results, ...p.candidate.results])
      if (r.passed !== null) names.add(r.name);
  return [...names];
}

/** The bootstrap's inputs: per judged pair, the score's difference then each metric's. */
export function bootstrapInputs(pairs: readonly Pair[], seed: number) {
  const judged = withOutcomes(pairs);
  const metrics = metricNames(judged);
  const quantities: PairQuantities[] = judged.map((p) => ({
    group: p.group,
    values: [
      p.baseline.score === null || p.candidate.score === null
        ? null
        : p.candidate.score - p.baseline.score,
      ...metrics.map((m) => metricDifference(p.baseline.results, p.candidate.results, m)),
    ],
  }));
  const options = { seed: seedFrom([seed, 'scores']), quantities: 1 + metrics.length, grouped: 1 };
  return { metrics, quantities, options };
}

export function intervalsOf(
  metrics: readonly string[],
  result: SharedBootstrapResult,
): ScoreIntervals {
  const { overall, groups } = result;
  return {
    overall: overall[0] ?? NOTHING,
    byGroup: new Map([...groups].map(([group, results]) => [group, results[0] ?? NOTHING])),
    byMetric: new Map(metrics.map((m, i) => [m, overall[i + 1] ?? NOTHING])),
  };
}

/**
 * The score intervals of every row, over the pairs where both sides have an outcome: quantity 0
 * is the simulation score's difference (grouped: each case gets its own), then one quantity per
 * metric. Seeded from the comparison's seed, so the same inputs give the same intervals.
 */
export function scoreIntervals(pairs: readonly Pair[], seed: number): ScoreIntervals {
  const { metrics, quantities, options } = bootstrapInputs(pairs, seed);
  return intervalsOf(metrics, sharedPairedBootstrap(quantities, options));
}
