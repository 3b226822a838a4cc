import type { Comparison } from '../domain/comparisons.js';
import type { ComparedSimulation } from '../store/comparison-reads.js';
import { erroredOf, pairSides } from './pairing.js';
import { caseRows, metricRows, overallRow } from './rows.js';
import {
  bootstrapInputs,
  intervalsOf,
  scoreIntervals,
  type ScoreIntervals,
} from './score-intervals.js';
import { offerToThread } from './compare-thread.js';
import { allDrawn, drawClaimed, drawMissing, splitResults, splitWork } from './split-bootstraps.js';
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

/** Everything but the voice rows, from the paired sides and their score intervals. */
function withoutVoice(
  i: ComparisonInputs,
  { pairs, unpaired }: ReturnType<typeof pairSides>,
  scores: ScoreIntervals,
): Omit<Built, 'voice'> {
  const b = i.baseline.simulations;
  const c = i.candidate.simulations;
  const flaky = flakiness(b, c);
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
  const paired = pairSides(i.baseline.simulations, i.candidate.simulations);
  return { ...withoutVoice(i, paired, scoreIntervals(paired.pairs, seed)), voice };
}

/**
 * buildComparison with the voice bootstrap on the compare thread (./compare-thread.ts) while this
 * thread draws the score resamples and builds the score rows; the compare thread then helps with
 * the score resamples left (./split-bootstraps.ts). The same comparison, sooner on two cores.
 */
export async function buildComparisonConcurrently(i: ComparisonInputs): Promise<Built> {
  const seed = seedOf(i);
  // Asked first: the compare thread starts on it while this thread pairs the sides.
  const voice = voiceRowsOffThread(i.baseline.simulations, i.candidate.simulations, seed);
  // Its failure is answered below, after any wait for the score draws: not unhandled meanwhile.
  voice.catch(() => undefined);
  const paired = pairSides(i.baseline.simulations, i.candidate.simulations);
  const inputs = bootstrapInputs(paired.pairs, seed);
  const { work, plan } = splitWork(inputs.quantities, inputs.options);
  // Asked after the voice bootstrap: the thread helps once that is done.
  const helped = offerToThread({ kind: 'split', work });
  drawClaimed(work, () => plan);
  if (!allDrawn(work)) {
    await helped;
    drawMissing(work, plan);
  }
  const scores = intervalsOf(inputs.metrics, splitResults(work, plan));
  return { ...withoutVoice(i, paired, scores), voice: await voice };
}
