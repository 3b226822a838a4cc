import { afterAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/audio/seeded-random.js';
import { stateAfter } from '../../src/compare/bootstrap-draws.js';
import { sharedPairedBootstrap, type PairQuantities } from '../../src/compare/bootstrap-shared.js';
import {
  closeCompareThread,
  compareThreadUp,
  offerToThread,
  runOffThread,
} from '../../src/compare/compare-thread.js';
import {
  allDrawn,
  drawClaimed,
  drawMissing,
  splitResults,
  splitWork,
} from '../../src/compare/split-bootstraps.js';
import { packColumns, unpackSums } from '../../src/compare/voice-packing.js';

// A comparison's score bootstrap split in chunks of resamples between two threads (the same
// intervals however the chunks fell), the generator's jump ahead that allows it, and the voice
// sums' packing of whole-number columns (the same sums as column by column). Inputs come from
// fixed seeds.

afterAll(() => closeCompareThread());

/** Pairs in `groups` groups (some of one pair): whole-number scores, and fractional values. */
function pairsOf(seed: number, count: number, groups: number): PairQuantities[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => ({
    group: i < 3 ? `single${i}` : `g${i % groups}`,
    values: [
      Math.round(random() * 100) - 50,
      random() * 10,
      random() < 0.2 ? null : Math.round(random() * 40),
      random() - 0.5,
      Math.round(random() * 3),
    ],
  }));
}

describe('the generator jumped ahead', () => {
  it('is where that many draws leave it', () => {
    const random = seededRandom(0);
    for (const seed of [0, 1, 77, 2 ** 32 - 1]) {
      let state = seed >>> 0;
      for (let k = 1; k <= 1_000; k++) {
        state = (state + 0x6d2b79f5) >>> 0;
        if (k % 97 === 0 || k === 1_000) expect(stateAfter(seed, k)).toBe(state);
      }
      // Far ahead (past 2³² draws) still mod 2³², as steps of whole resamples.
      const far = Math.floor(random() * 2 ** 40);
      expect(stateAfter(stateAfter(seed, far), 1_000)).toBe(stateAfter(seed, far + 1_000));
    }
    expect(stateAfter(5, 0)).toBe(5);
  });
});

describe('a score bootstrap split in chunks', () => {
  for (const [name, options] of [
    ['four quantities, the first grouped (the lean draws)', { quantities: 4, grouped: 1 }],
    ['five quantities, two grouped (every sum after the draws)', { quantities: 5, grouped: 2 }],
  ] as const)
    it(`gives one thread's intervals however the chunks fell: ${name}`, () => {
      const pairs = pairsOf(9, 400, 20);
      const full = { ...options, seed: 31, resamples: 2_100 };
      const whole = sharedPairedBootstrap(
        pairs.map((p) => ({ ...p, values: p.values.slice(0, options.quantities) })),
        full,
      );
      const cut = pairs.map((p) => ({ ...p, values: p.values.slice(0, options.quantities) }));
      // Another thread claims the first three chunks and stops having drawn one of them.
      const { work, plan } = splitWork(cut, full);
      const other = splitWork(cut, full).plan;
      work.counters[0] = 3;
      drawMissing({ ...work, chunks: 1 }, other);
      expect(drawClaimed(work, () => plan)).toBe(work.chunks - 3);
      expect(allDrawn(work)).toBe(false);
      drawMissing(work, plan);
      expect(allDrawn(work)).toBe(true);
      expect(splitResults(work, plan)).toEqual(whole);
    });

  it('is helped by the compare thread, with the same intervals', async () => {
    const pairs = pairsOf(4, 1_000, 50).map((p) => ({ ...p, values: p.values.slice(0, 2) }));
    const options = { seed: 8, quantities: 2, grouped: 1 };
    const whole = sharedPairedBootstrap(pairs, options);
    // The thread comes up with the first large job (that one runs here).
    await runOffThread({ kind: 'scores', pairs, options });
    const pause = new Int32Array(new SharedArrayBuffer(4));
    for (let waited = 0; !compareThreadUp() && waited < 60_000; waited += 10)
      Atomics.wait(pause, 0, 0, 10);
    expect(compareThreadUp()).toBe(true);
    // Offered alone, the thread claims every chunk: this thread finds none left.
    const { work, plan } = splitWork(pairs, options);
    expect(await offerToThread({ kind: 'split', work })).toBe(true);
    expect(drawClaimed(work, () => plan)).toBe(0);
    expect(allDrawn(work)).toBe(true);
    expect(splitResults(work, plan)).toEqual(whole);
    // Offered and drawn here at once: shared somehow, the same numbers.
    const again = splitWork(pairs, options);
    const helped = offerToThread({ kind: 'split', work: again.work });
    drawClaimed(again.work, () => again.plan);
    await helped;
    expect(allDrawn(again.work)).toBe(true);
    expect(splitResults(again.work, again.plan)).toEqual(whole);
  });
});

describe('voice sums packed', () => {
  /** Σ weight · value column by column, in call order (the sums as they were taken unpacked). */
  const plainSums = (columns: Float64Array[], weights: Float64Array) =>
    columns.map((column) => column.reduce((sum, v, i) => sum + weights[i]! * v, 0));

  it('give every column its own sum exactly, whole-number columns packed', () => {
    const random = seededRandom(12);
    const calls = 1_000;
    const column = (f: () => number) => Float64Array.from({ length: calls }, f);
    const columns = [
      column(() => 1),
      column(() => Math.floor(random() * 3)),
      column(() => Math.round(random() * 700)),
      column(() => random() * 3), // fractional: summed as it is
      column(() => Math.round(random() * 10) - 5), // below zero: as it is
      column(() => 64),
      column(() => (random() < 0.5 ? 0 : 1)),
      column(() => Math.round(random() * 2 ** 30)), // too wide to share a float
      column(() => 0),
    ];
    const packed = packColumns(columns, calls);
    // The whole-number columns ≥ 0 share fewer floats than they are.
    expect(packed.summed.length).toBeLessThan(columns.length);
    expect(packed.mod[3]).toBe(0);
    expect(packed.mod[4]).toBe(0);
    for (let trial = 0; trial < 20; trial++) {
      // A resample's weights: draw counts adding up to the calls.
      const weights = new Float64Array(calls);
      for (let k = 0; k < calls; k++) weights[Math.floor(random() * calls)]!++;
      const sums = plainSums(packed.summed, weights);
      const out = new Float64Array(columns.length + 2);
      unpackSums(packed, Float64Array.from(sums), out, 2);
      expect([...out.subarray(2)]).toEqual(plainSums(columns, weights));
    }
  });
});
