import { CONDITION_FIELDS, type Comparison, type ComparisonSide } from '../domain/comparisons.js';
import type { ComparedSimulation } from '../store/comparison-reads.js';
import { groupOf, hasOutcome } from './pairing.js';
import { passK, runsPerGroup } from './statistics.js';

/*
 * What is said of each side as a whole: what it ran (executions, versions, hashes, cost), how
 * flaky its cases were, the runs a clear answer would take, and the conditions the sides differ in.
 */

const distinct = <T>(values: readonly (T | null | undefined)[]): T[] => [
  ...new Set(values.filter((v): v is T => v !== null && v !== undefined)),
];

/** The sum of the side's costs; null when any simulation's is unknown (unpriced, or older). */
function costOf(sims: readonly ComparedSimulation[]): number | null {
  let sum = 0;
  for (const s of sims) {
    if (s.cost_usd === null) return null;
    sum += s.cost_usd;
  }
  return sims.length === 0 ? null : sum;
}

export function sideSummary(
  executionIds: string[],
  sims: readonly ComparedSimulation[],
): ComparisonSide {
  return {
    execution_ids: executionIds,
    simulations: sims.length,
    agent_versions: distinct(sims.map((s) => s.agent_config?.version_id)).sort((a, b) => a - b),
    agent_config_hashes: distinct(sims.map((s) => s.agent_config?.hash)).sort(),
    scenario_hashes: distinct(sims.map((s) => s.scenario_hash)).sort(),
    scorecard_hashes: distinct(sims.map((s) => s.scorecard_hash)).sort(),
    cost_usd: costOf(sims),
  };
}

/** Each case's outcomes on a side (simulations with an outcome only), by case. */
function outcomesByGroup(sims: readonly ComparedSimulation[]): Map<string, boolean[]> {
  const out = new Map<string, boolean[]>();
  for (const s of sims) {
    if (!hasOutcome(s)) continue;
    const key = groupOf(s);
    const runs = out.get(key);
    if (runs) runs.push(s.passed === true);
    else out.set(key, [s.passed === true]);
  }
  return out;
}

const disagree = (runs: readonly boolean[]) => runs.includes(true) && runs.includes(false);

type SideFlakiness = Comparison['flakiness']['baseline'];

function flakinessOf(groups: Map<string, boolean[]>): SideFlakiness {
  return {
    pass_k: passK([...groups.values()]),
    disagreeing: [...groups.entries()]
      .filter(([, runs]) => disagree(runs))
      .map(([key]) => {
        const [scenario_id, persona_id] = JSON.parse(key) as [string, string | null];
        return { scenario_id, persona_id };
      }),
  };
}

/** pass^k and the disagreeing cases of each side, and which cases were flaky on which side. */
export function flakiness(
  baseline: readonly ComparedSimulation[],
  candidate: readonly ComparedSimulation[],
): {
  flakiness: Comparison['flakiness'];
  flaky: (group: string) => { baseline: boolean; candidate: boolean };
} {
  const b = outcomesByGroup(baseline);
  const c = outcomesByGroup(candidate);
  return {
    flakiness: { baseline: flakinessOf(b), candidate: flakinessOf(c) },
    flaky: (group) => ({
      baseline: disagree(b.get(group) ?? []),
      candidate: disagree(c.get(group) ?? []),
    }),
  };
}

/** The scenario × persona cases of both sides. */
export const groupCount = (sims: readonly ComparedSimulation[]): number =>
  new Set(sims.map(groupOf)).size;

/**
 * Runs per case to tell a 10-point change at 80% power, from the pooled observed pass rate of
 * both sides (an even rate when nothing has an outcome yet), and executions of at most 20 runs.
 */
export function sampleSize(sims: readonly ComparedSimulation[]): Comparison['sample_size'] {
  const judged = sims.filter(hasOutcome);
  const rate = judged.length ? judged.filter((s) => s.passed).length / judged.length : 0.5;
  const runs = runsPerGroup(rate, Math.max(1, groupCount(sims)));
  return { runs_per_group: runs, executions: Math.ceil(runs / 20) };
}

const CONDITION_OF: Record<
  (typeof CONDITION_FIELDS)[number],
  (s: ComparedSimulation) => string | null
> = {
  scenario: (s) => s.scenario_hash,
  scorecard: (s) => s.scorecard_hash,
  channel: (s) => s.channel,
  mode: (s) => s.mode,
  line: (s) => s.line?.profile ?? null,
};

/** Hashes unknown on a side (simulations made before they were recorded) tell nothing. */
const UNKNOWN_WHEN_NONE = new Set(['scenario', 'scorecard']);

/** The conditions whose sets of values differ between the sides: a warning, not a verdict. */
export function conditionsDiffer(
  baseline: readonly ComparedSimulation[],
  candidate: readonly ComparedSimulation[],
): Comparison['conditions_differ'] {
  return CONDITION_FIELDS.flatMap((field) => {
    const b = distinct(baseline.map(CONDITION_OF[field])).sort();
    const c = distinct(candidate.map(CONDITION_OF[field])).sort();
    if (UNKNOWN_WHEN_NONE.has(field) && (b.length === 0 || c.length === 0)) return [];
    return b.join('\n') === c.join('\n') ? [] : [{ field, baseline: b, candidate: c }];
  });
}
