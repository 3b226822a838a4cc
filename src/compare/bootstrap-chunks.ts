/*
 * The general draw loop of the shared score bootstrap (./bootstrap-shared.ts): a stratum's draws
 * summing the first four quantities as it draws, and four more columns' sums over kept draws.
 * Its common case has a leaner loop (./bootstrap-draws.ts).
 */

/** The draws of the resample under way, and the generator's state. */
export interface Draws {
  picks: Int32Array;
  state: number;
}

/**
 * One stratum's draws of a resample, summing the first chunk of quantities as it draws: index
 * ⌊u · size⌋ of a mulberry32 output u / 2³² (seededRandom's generator, inlined: a call per draw
 * costs more than the draw). The draws are kept in `picks` for the other sums, the generator's
 * state in `draws`.
 */
export function drawStratum(chunk: Chunk, draws: Draws, from: number, to: number): void {
  const { c0, c1, c2, c3, running, own } = chunk;
  const { picks } = draws;
  const size = to - from;
  let s = draws.state;
  let a0 = running[0]!;
  let a1 = running[1]!;
  let a2 = running[2]!;
  let a3 = running[3]!;
  let g0 = 0;
  let g1 = 0;
  let g2 = 0;
  let g3 = 0;
  for (let k = from; k < to; k++) {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const i = from + Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * size);
    picks[k] = i;
    const v0 = c0[i]!;
    const v1 = c1[i]!;
    const v2 = c2[i]!;
    const v3 = c3[i]!;
    a0 += v0;
    a1 += v1;
    a2 += v2;
    a3 += v3;
    g0 += v0;
    g1 += v1;
    g2 += v2;
    g3 += v3;
  }
  running[0] = a0;
  running[1] = a1;
  running[2] = a2;
  running[3] = a3;
  own[0] = g0;
  own[1] = g1;
  own[2] = g2;
  own[3] = g3;
  draws.state = s;
}

/** Quantities summed in one pass: four independent sums keep the processor's adders busy. */
export const CHUNK = 4;

/**
 * Four columns' sums over the draws [from, to): added to `running` (in draw order, so the first
 * quantity's sum is bit for bit a single loop's) and written alone to `own` (a group's part).
 * Written out without destructuring or arrays: this is the innermost loop.
 */
export function chunkSums(chunk: Chunk, picks: Int32Array, from: number, to: number): void {
  const { c0, c1, c2, c3, running, own } = chunk;
  let a0 = running[0]!;
  let a1 = running[1]!;
  let a2 = running[2]!;
  let a3 = running[3]!;
  let g0 = 0;
  let g1 = 0;
  let g2 = 0;
  let g3 = 0;
  for (let k = from; k < to; k++) {
    const i = picks[k]!;
    const v0 = c0[i]!;
    const v1 = c1[i]!;
    const v2 = c2[i]!;
    const v3 = c3[i]!;
    a0 += v0;
    a1 += v1;
    a2 += v2;
    a3 += v3;
    g0 += v0;
    g1 += v1;
    g2 += v2;
    g3 += v3;
  }
  running[0] = a0;
  running[1] = a1;
  running[2] = a2;
  running[3] = a3;
  own[0] = g0;
  own[1] = g1;
  own[2] = g2;
  own[3] = g3;
}

/** Four columns summed together, with their running and own sums. */
export interface Chunk {
  c0: Float64Array;
  c1: Float64Array;
  c2: Float64Array;
  c3: Float64Array;
  running: Float64Array;
  own: Float64Array;
}

export function chunkOf(columns: Float64Array[], first: number, zero: Float64Array): Chunk {
  const at = (k: number) => columns[first + k] ?? zero;
  const sums = { running: new Float64Array(CHUNK), own: new Float64Array(CHUNK) };
  return { c0: at(0), c1: at(1), c2: at(2), c3: at(3), ...sums };
}
