import type { Comparison } from '../domain/comparisons.js';
import type { ComparedSimulation } from '../store/comparison-reads.js';
import { erroredOf, pairSides } from './pairing.js';
import { caseRows, metricRows, overallRow } from './rows.js';
import { scoreIntervals } from './score-intervals.js';
import { conditionsDiffer, flakiness, groupCount, sampleSize, sideSummary } from './sides.js';
import { seedFrom } from './statistics.js';
import { voiceRows, voiceRowsOffThread } from './voice.js';

/** What a comparison is built from: both sides' executions and simulations, and the names now. */
export interface ComparisonInputs {
  baseline: { executionIds: string[]; simulations: ComparedSimulation[] };
  candidate: { executionIds: string[]; simulations: ComparedSimulation[] };
  rescored: boolean;
  /** Scenario and persona names by id. */
  names: Map<string, string>;
}

/**
 * The seed of every interval: the paired inputs themselves (ids, outcomes, scores, audio figures),
 * so the same inputs give the same intervals, and a rescored baseline another.
 */
function seedOf(i: ComparisonInputs): number {
  const side = (sims: readonly ComparedSimulation[]) =>
    sims.map((s) => [s.id, s.status, s.passed, s.score, s.latencies.length]);
  return seedFrom([side(i.baseline.simulations), side(i.candidate.simulations), i.rescored]);
}

type Built = Omit<Comparison, 'id' | 'created_at'>;

/** Everything but the voice rows, which are built beside it (`buildComparisonConcurrently`). */
function withoutVoice(i: ComparisonInputs, seed: number): Omit<Built, 'voice'> {
  const b = i.baseline.simulations;
  const c = i.candidate.simulations;
  const { pairs, unpaired } = pairSides(b, c);
  const flaky = flakiness(b, c);
  const scores = scoreIntervals(pairs, seed);
  return {
    baseline: sideSummary(i.baseline.executionIds, b),
    candidate: sideSummary(i.candidate.executionIds, c),
    rescored_baseline: i.rescored,
    overall: overallRow(pairs, scores, groupCount([...b, ...c])),
    rows: caseRows(pairs, { scores, names: i.names, flaky: flaky.flaky }),
    metrics: metricRows(pairs, scores),
    unpaired,
    errored: erroredOf(b, c),
    flakiness: flaky.flakiness,
    sample_size: sampleSize([...b, ...c]),
    // Rescored, both sides were judged by the candidate's scorecard: that condition no longer differs.
    conditions_differ: conditionsDiffer(b, c).filter((d) => !i.rescored || d.field !== 'scorecard'),
  };
}

/** The comparison of two sides (without its id and time, which the service gives it). */
export function buildComparison(i: ComparisonInputs): Built {
  const seed = seedOf(i);
  const voice = voiceRows(i.baseline.simulations, i.candidate.simulations, seed);
  return { ...withoutVoice(i, seed), voice };
}

/**
 * buildComparison with the voice bootstrap on the compare thread (./compare-thread.ts) while this
 * thread draws the score intervals and builds the rest: the same comparison, sooner on two cores.
 */
export async function buildComparisonConcurrently(i: ComparisonInputs): Promise<Built> {
  const seed = seedOf(i);
  const voice = voiceRowsOffThread(i.baseline.simulations, i.candidate.simulations, seed);
  const built = withoutVoice(i, seed);
  return { ...built, voice: await voice };
}
