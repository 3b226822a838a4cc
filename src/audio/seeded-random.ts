/**
 * Reproducible randomness for audio simulation: a run's noise offset, packet loss and jitter are
 * drawn from a seed so that a failing call can be replayed sample for sample.
 */
import { randomBytes } from 'node:crypto';

const MULBERRY_STEP = 0x6d2b79f5;

/**
 * mulberry32: a 32-bit state generator, uniform on [0, 1). Small and fast, with a full 2^32
 * period; statistically fine for simulation (not for anything secret).
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + MULBERRY_STEP) >>> 0;
    return mulberryOutput(state) / 4294967296;
  };
}

/** mulberry32's output function: the state scrambled to an unsigned 32-bit integer. */
function mulberryOutput(state: number): number {
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return (t ^ (t >>> 14)) >>> 0;
}

/**
 * seededRandom's generator in bulk, for hot loops (a comparison's bootstraps draw tens of millions
 * of numbers, and a closure call each costs several times a loop over a local state): fills `out`
 * with the next outputs as unsigned 32-bit integers, so out[i] / 2^32 is exactly the number
 * seededRandom(seed) would return in that place. Start with `state` = the seed and pass the
 * returned state to the next call.
 */
export function fillSeeded(state: number, out: Uint32Array): number {
  let s = state >>> 0;
  for (let i = 0; i < out.length; i++) {
    s = (s + MULBERRY_STEP) >>> 0;
    out[i] = mulberryOutput(s);
  }
  return s;
}

/** A fresh unsigned 32-bit seed from the operating system's generator. */
export function randomSeed(): number {
  return randomBytes(4).readUInt32LE(0);
}

/**
 * The seed of run `run` (1-based) of an execution whose root seed is `root`: run 1 takes the root
 * itself (so a simulation's seed, given back as an execution's, replays it), every later run a
 * seed mixed from both. Two executions with the same root give run r the same seed (common random
 * numbers), and the runs of one execution differ.
 */
export function runSeed(root: number, run: number): number {
  if (run === 1) return root >>> 0;
  // One splitmix32-style round over the pair: cheap, and neighbouring runs land far apart.
  let z = (root ^ Math.imul(run, 0x9e3779b9)) >>> 0;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
  return (z ^ (z >>> 16)) >>> 0;
}
