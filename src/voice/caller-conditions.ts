import { LINE_PRESETS, LineSimulator, type LineSpec } from '../audio/line.js';
import { loadNoiseBed } from '../audio/noise-beds.js';
import { NoiseMixer } from '../audio/noise-mixer.js';
import { randomSeed, seededRandom } from '../audio/seeded-random.js';
import {
  DEFAULT_SNR_DB,
  type CallerBehaviours,
  type LineChoice,
  type PersonaNoise,
  type SimulationLine,
} from '../domain/callers.js';
import { CallerDice } from './caller-dice.js';

/**
 * What a simulated caller's audio goes through: the noise around it and the line it calls on,
 * with one seed for everything random (losses, jitter, where the noise loop starts, and the
 * persona's behaviours), so a failing run replays with the same line and the same caller.
 */

/** The line a simulation runs on: the execution's choice, else the scenario's, else studio. */
export function simulationLine(
  choice: LineChoice | null | undefined,
  seed?: number,
): SimulationLine {
  const picked = choice ?? 'studio';
  const spec: LineSpec = typeof picked === 'string' ? LINE_PRESETS[picked] : picked;
  return {
    profile: typeof picked === 'string' ? picked : 'custom',
    codec: spec.codec,
    sample_rate: spec.sampleRate,
    loss_percent: spec.lossPercent,
    jitter_ms: spec.jitterMs,
    latency_ms: spec.latencyMs,
    seed: seed ?? randomSeed(),
  };
}

const specOf = (line: SimulationLine): LineSpec => ({
  codec: line.codec,
  sampleRate: line.sample_rate === 8000 ? 8000 : 16000,
  lossPercent: line.loss_percent,
  jitterMs: line.jitter_ms,
  latencyMs: line.latency_ms,
});

/** The persona's noise: its bed, and the SNR it is mixed at (null without a bed). */
export function noiseOf(persona: {
  backgroundNoise: string;
  difficulty: string;
  noise: PersonaNoise | null;
}): { bed: string; snrDb: number | null } {
  if (persona.backgroundNoise === 'none') return { bed: 'none', snrDb: null };
  const snrDb =
    persona.noise?.snrDb ?? DEFAULT_SNR_DB[persona.difficulty] ?? DEFAULT_SNR_DB.medium!;
  return { bed: persona.backgroundNoise, snrDb };
}

export interface CallerConditions {
  line: SimulationLine;
  noise: { bed: string; snrDb: number | null };
  behaviours: CallerBehaviours | null;
}

/**
 * The caller's sound on one call at `callRate`: its line and its noise (none on a studio line, or
 * without a bed). Made where the call's frames run; the bed is loaded by the caller (it can fail).
 */
export function soundOnCall(
  c: CallerConditions,
  bed: Int16Array | null,
  callRate: number,
): { line: LineSimulator | null; noise: NoiseMixer | null } {
  // Separate streams, so a behaviour rolled more or less often never moves the line's losses.
  const seed = c.line.seed >>> 0;
  const line =
    c.line.profile === 'studio'
      ? null
      : new LineSimulator({ spec: specOf(c.line), callRate, random: seededRandom(seed) });
  const noise =
    bed && c.noise.snrDb !== null
      ? new NoiseMixer({
          bed,
          sampleRate: callRate,
          snrDb: c.noise.snrDb,
          random: seededRandom((seed + 0x51ed) >>> 0),
        })
      : null;
  return { line, noise };
}

/** The caller's behaviours on one call, on a stream of the seed of their own. */
export const callerDice = (c: CallerConditions): CallerDice =>
  new CallerDice(c.behaviours, seededRandom(((c.line.seed >>> 0) ^ 0x9e3779b9) >>> 0));

/** The conditions' parts for one call at `callRate`: its sound and its behaviours. */
export function conditionsOnCall(
  c: CallerConditions,
  bed: Int16Array | null,
  callRate: number,
): { line: LineSimulator | null; noise: NoiseMixer | null; dice: CallerDice } {
  return { ...soundOnCall(c, bed, callRate), dice: callerDice(c) };
}

/** The persona's noise bed, read before dialling: a missing file fails the run, naming it. */
export async function noiseBedFor(
  c: CallerConditions,
  noiseDir: string,
): Promise<Int16Array | null> {
  return c.noise.snrDb === null ? null : loadNoiseBed(noiseDir, c.noise.bed);
}
