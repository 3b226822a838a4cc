import type { Store } from '../store/index.js';

/** How simulations run: the pool size and the per-simulation limits a scenario may override. */
export interface SimulationSettings {
  concurrency: number;
  maxTurns: number;
  maxDurationMs: number;
}

export const SIMULATION_LIMITS = {
  concurrency: { min: 1, max: 64 },
  maxTurns: { min: 1, max: 200 },
  maxDurationMs: { min: 1_000, max: 3_600_000 },
} as const;

/** The stored settings, field by field over the engine's defaults (its options, else 4 / 20 / 5 minutes). */
export async function simulationSettings(
  store: Store,
  defaults: SimulationSettings,
): Promise<SimulationSettings> {
  const stored = await store.settings.get<Partial<SimulationSettings>>('simulations');
  return { ...defaults, ...(stored ?? {}) };
}
