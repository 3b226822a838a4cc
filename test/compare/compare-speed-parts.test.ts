import { afterAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/audio/seeded-random.js';
import { percentileInterval, sortedQuantile } from '../../src/compare/bootstrap-parts.js';
import { sharedPairedBootstrap, type PairQuantities } from '../../src/compare/bootstrap-shared.js';
import {
  closeCompareThread,
  compareThreadAnswered,
  compareThreadUp,
  runOffThread,
} from '../../src/compare/compare-thread.js';
import { sampledQuantile } from '../../src/compare/sampled-quantile.js';

// What makes a comparison cheaper without changing it: quantiles of many values bracketed from a
// sample (exactly a sort's), and the compare thread found up by a caller that never yields to the
// event loop (a script comparing again and again). Inputs come from fixed seeds.

afterAll(() => closeCompareThread());

/** n values of a kind: few distinct (ties), continuous, one value, sorted or reversed. */
function valuesOf(kind: string, n: number, seed: number): Float64Array {
  const random = seededRandom(seed);
  const draw: Record<string, (i: number) => number> = {
    ties: () => Math.floor(random() * 12) / 4,
    continuous: () => random() * 200 - 100,
    skewed: () => Math.exp(random() * 8) * (random() < 0.01 ? -1 : 1),
    constant: () => 7.5,
    ascending: (i) => i / 3,
    descending: (i) => -i / 3,
  };
  return Float64Array.from({ length: n }, (_, i) => draw[kind]!(i));
}

describe('sampled quantiles', () => {
  it('are exactly the type-7 quantiles of the sorted values, or null for the caller to select', () => {
    let sampled = 0;
    for (const kind of ['ties', 'continuous', 'skewed', 'constant', 'ascending', 'descending'])
      for (const n of [2_048, 5_000, 10_000, 20_001])
        for (const q of [0.025, 0.975, 0.5, 0.05 / 110, 1 - 0.05 / 110]) {
          const values = valuesOf(kind, n, n + Math.round(q * 1000));
          const before = Float64Array.from(values);
          const sorted = Float64Array.from(values).sort();
          const got = sampledQuantile(values, q);
          expect(values).toEqual(before);
          if (got === null) continue;
          sampled++;
          expect(got).toBe(sortedQuantile(sorted, q));
        }
    // The bracket holds for nearly all of them (a tie-heavy or constant array may be left over).
    expect(sampled).toBeGreaterThan(90);
  });

  it('leave small arrays, extreme quantiles and values that are not numbers to the caller', () => {
    expect(sampledQuantile(valuesOf('continuous', 1_000, 1), 0.5)).toBeNull();
    expect(sampledQuantile(valuesOf('continuous', 10_000, 2), 0)).toBeNull();
    expect(sampledQuantile(valuesOf('continuous', 10_000, 3), 1)).toBeNull();
    const withNaN = valuesOf('continuous', 10_000, 4);
    withNaN[5_000] = Number.NaN;
    expect(sampledQuantile(withNaN, 0.5)).toBeNull();
  });

  it('give the percentile interval exactly, whichever way it is found', () => {
    for (const kind of ['ties', 'continuous', 'skewed', 'constant', 'ascending'])
      for (const confidence of [0.95, 1 - 0.05 / 55]) {
        const values = valuesOf(kind, 10_000, 17);
        const sorted = Float64Array.from(values).sort();
        const alpha = 1 - confidence;
        expect(percentileInterval(values, confidence)).toEqual([
          sortedQuantile(sorted, alpha / 2),
          sortedQuantile(sorted, 1 - alpha / 2),
        ]);
      }
  });
});

describe('the compare thread, asked without a turn of the event loop', () => {
  /** 1,000 pairs in 50 groups: large enough for the thread (ten million draws). */
  function pairsOf(): PairQuantities[] {
    const random = seededRandom(5);
    return Array.from({ length: 1_000 }, (_, i) => ({
      group: `g${i % 50}`,
      values: [Math.round(random() * 100) - 50, random() * 10],
    }));
  }

  it('is found up once its code has loaded, and answers the same intervals', async () => {
    const job = { kind: 'scores' as const, pairs: pairsOf(), options: { seed: 3, quantities: 2 } };
    const here = sharedPairedBootstrap(job.pairs, job.options);
    // The first large job starts the thread and runs here (the thread is not up yet).
    const before = compareThreadAnswered();
    expect(await runOffThread(job)).toEqual(here);
    expect(compareThreadAnswered()).toBe(before);
    // Waiting without yielding to the event loop (as a caller busy comparing does): the thread
    // sets its flag when its code has loaded, which no message event needs to deliver.
    const pause = new Int32Array(new SharedArrayBuffer(4));
    for (let waited = 0; !compareThreadUp() && waited < 60_000; waited += 10)
      Atomics.wait(pause, 0, 0, 10);
    expect(compareThreadUp()).toBe(true);
    expect(await runOffThread(job)).toEqual(here);
    expect(compareThreadAnswered()).toBe(before + 1);
  });
});
