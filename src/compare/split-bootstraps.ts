import {
  resampledOf,
  sharedDraws,
  sharedPlan,
  sharedResults,
  type PairQuantities,
  type Resampled,
  type SharedBootstrapOptions,
  type SharedBootstrapResult,
  type SharedPlan,
} from './bootstrap-shared.js';

/*
 * A comparison's score bootstrap split between the engine's thread and the compare thread in
 * chunks of resamples, each claimed by whichever thread is free first (an atomic counter in shared
 * memory) and drawn into shared arrays. A resample's draws start at a fixed place in the
 * generator's stream (mulberry32 steps its state by a constant: ./bootstrap-draws.ts, stateAfter),
 * so every chunk's numbers are the same whoever drew it: the intervals are exactly those of one
 * thread drawing them all, however the chunks fell. The compare thread first draws the voice rows'
 * bootstrap, then helps with whatever score chunks are left.
 */

/** Resamples a chunk: about a millisecond of draws, so the last chunk leaves little idle time. */
const CHUNK = 250;

/** What both threads see of a score bootstrap: its inputs and the shared memory. */
export interface SplitWork {
  pairs: PairQuantities[];
  options: SharedBootstrapOptions;
  out: Resampled;
  /** The next chunk to claim, then the chunks drawn. */
  counters: Int32Array;
  /** Per chunk: 1 once drawn. */
  drawn: Int32Array;
  chunks: number;
}

const sharedInts = (length: number) => new Int32Array(new SharedArrayBuffer(length * 4));

/** The bootstrap's shared memory, and this thread's plan of it. */
export function splitWork(
  pairs: PairQuantities[],
  options: SharedBootstrapOptions,
): { work: SplitWork; plan: SharedPlan } {
  const plan = sharedPlan(pairs, options);
  const chunks = Math.ceil(plan.resamples / CHUNK);
  const out = resampledOf(plan, true);
  const work = { pairs, options, out, counters: sharedInts(2), drawn: sharedInts(chunks), chunks };
  return { work, plan };
}

/** Draws chunk k into the shared arrays and marks it drawn. */
function drawChunk(work: SplitWork, plan: SharedPlan, k: number): void {
  sharedDraws(plan, work.out, { from: k * CHUNK, to: Math.min(plan.resamples, (k + 1) * CHUNK) });
  Atomics.store(work.drawn, k, 1);
  Atomics.add(work.counters, 1, 1);
}

/**
 * Claims and draws chunks until none is left to claim; answers how many it drew. The plan is made
 * (`plan()`) only once a chunk is claimed: a thread finding none left lays nothing out.
 */
export function drawClaimed(work: SplitWork, plan: () => SharedPlan): number {
  let drew = 0;
  while (Atomics.load(work.counters, 0) < work.chunks) {
    const k = Atomics.add(work.counters, 0, 1);
    if (k >= work.chunks) break;
    drawChunk(work, plan(), k);
    drew++;
  }
  return drew;
}

/** Whether every chunk has been drawn. */
export const allDrawn = (work: SplitWork): boolean =>
  Atomics.load(work.counters, 1) === work.chunks;

/** Draws the chunks no thread drew (the compare thread stopped with some claimed). */
export function drawMissing(work: SplitWork, plan: SharedPlan): void {
  for (let k = 0; k < work.chunks; k++)
    if (Atomics.load(work.drawn, k) === 0) drawChunk(work, plan, k);
}

/** The results, once every chunk is drawn. */
export const splitResults = (work: SplitWork, plan: SharedPlan): SharedBootstrapResult =>
  sharedResults(plan, work.out);
