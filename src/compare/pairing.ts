import type { Comparison } from '../domain/comparisons.js';
import type { ComparedSimulation } from '../store/comparison-reads.js';

/*
 * Pairing: a baseline simulation and a candidate simulation that ran the same case (scenario ×
 * persona × agent) as the same run. Pooled executions can hold a key more than once: the k-th
 * simulation of a key on one side pairs with the k-th on the other, in the order they were queued.
 */

export type SideName = 'baseline' | 'candidate';

export interface Pair {
  /** Scenario × persona: the case (and the bootstrap's resampling group). */
  group: string;
  scenario_id: string;
  persona_id: string | null;
  baseline: ComparedSimulation;
  candidate: ComparedSimulation;
}

export type Unpaired = Comparison['unpaired'][number];

/**
 * A simulation with an outcome: completed and judged. Failed, cancelled and skipped ones (and a
 * completed one with nothing to judge it on) have none, and their pairs leave every statistic.
 */
export const hasOutcome = (s: ComparedSimulation): boolean =>
  s.status === 'completed' && s.passed !== null;

type Case = Pick<ComparedSimulation, 'scenario_id' | 'persona_id'>;

/** Each simulation's case key, made once: pairing, rows, flakiness and sizes all ask for it. */
const groups = new WeakMap<Case, string>();

/** The case of a simulation: scenario × persona. */
export function groupOf(s: Case): string {
  let key = groups.get(s);
  if (key === undefined) {
    key = JSON.stringify([s.scenario_id, s.persona_id]);
    groups.set(s, key);
  }
  return key;
}

/** Each simulation of a side by its pairing key (case × agent × run, then its occurrence). */
function keyed(side: readonly ComparedSimulation[]): Map<string, ComparedSimulation> {
  const seen = new Map<string, number>();
  const out = new Map<string, ComparedSimulation>();
  for (const s of side) {
    // The case's key is a JSON array and the agent's a JSON string: together they stay unambiguous.
    const base = `${groupOf(s)}${JSON.stringify(s.agent_id)}${s.run}`;
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    out.set(`${base}#${n}`, s);
  }
  return out;
}

const unpairedOf = (s: ComparedSimulation, side: SideName): Unpaired => ({
  simulation_id: s.id,
  side,
  scenario_id: s.scenario_id,
  persona_id: s.persona_id,
});

/** The pairs of two sides (whatever their outcomes), and the simulations left without a partner. */
export function pairSides(
  baseline: readonly ComparedSimulation[],
  candidate: readonly ComparedSimulation[],
): { pairs: Pair[]; unpaired: Unpaired[] } {
  const candidates = keyed(candidate);
  const pairs: Pair[] = [];
  const unpaired: Unpaired[] = [];
  for (const [key, b] of keyed(baseline)) {
    const c = candidates.get(key);
    if (!c) {
      unpaired.push(unpairedOf(b, 'baseline'));
      continue;
    }
    candidates.delete(key);
    pairs.push({
      group: groupOf(b),
      scenario_id: b.scenario_id,
      persona_id: b.persona_id,
      baseline: b,
      candidate: c,
    });
  }
  for (const c of candidates.values()) unpaired.push(unpairedOf(c, 'candidate'));
  return { pairs, unpaired };
}

/** Pairs where both sides have an outcome: the ones every statistic reads. */
export const withOutcomes = (pairs: readonly Pair[]): Pair[] =>
  pairs.filter((p) => hasOutcome(p.baseline) && hasOutcome(p.candidate));

/** The simulations of both sides without an outcome, counted by side, with their ids. */
export function erroredOf(
  baseline: readonly ComparedSimulation[],
  candidate: readonly ComparedSimulation[],
): Comparison['errored'] {
  const b = baseline.filter((s) => !hasOutcome(s));
  const c = candidate.filter((s) => !hasOutcome(s));
  return {
    baseline: b.length,
    candidate: c.length,
    simulation_ids: [...b, ...c].map((s) => s.id),
  };
}
