/** What pairing reads of a simulation: its agent and its run (the case is already chosen). */
export interface PairedSim {
  agent_id: string | null;
  run: number | null;
}

/** A baseline and a candidate simulation of one case and run; null where a side has none. */
export interface Pair<S extends PairedSim> {
  key: string;
  run: number | null;
  baseline: S | null;
  candidate: S | null;
}

/**
 * Pairs as the engine makes them: the same agent and run, the k-th occurrence of a key on one side
 * with the k-th on the other (pooled executions repeat keys). A simulation without a partner is
 * shown alone, on its side.
 */
export function pairUp<S extends PairedSim>(baseline: S[], candidate: S[]): Pair<S>[] {
  const keyed = (sims: S[]) => {
    const seen = new Map<string, number>();
    return sims.map((s) => {
      const base = JSON.stringify([s.agent_id, s.run]);
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      return { key: `${base}#${n}`, sim: s };
    });
  };
  const pairs = new Map<string, Pair<S>>();
  for (const { key, sim } of keyed(baseline))
    pairs.set(key, { key, run: sim.run, baseline: sim, candidate: null });
  for (const { key, sim } of keyed(candidate)) {
    const found = pairs.get(key);
    if (found) found.candidate = sim;
    else pairs.set(key, { key, run: sim.run, baseline: null, candidate: sim });
  }
  return [...pairs.values()].sort((a, b) => (a.run ?? 0) - (b.run ?? 0));
}
