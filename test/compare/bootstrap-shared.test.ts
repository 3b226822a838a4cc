import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/audio/seeded-random.js';
import { percentileInterval, sortedQuantile } from '../../src/compare/bootstrap-parts.js';
import { sharedPairedBootstrap, type PairQuantities } from '../../src/compare/bootstrap-shared.js';
import type { Interval } from '../../src/domain/comparisons.js';
import { pairedBootstrap, type ScorePair } from '../../src/compare/statistics.js';

// The shared bootstrap of src/compare/bootstrap-shared.ts (every score row from one set of
// draws), the pooling of groups of one pair, and the selection behind every percentile interval.
// Every "random" input comes from a fixed seed: each test gives the same numbers on every run.

function normals(random: () => number, count: number, centre: number, spread: number): number[] {
  return Array.from({ length: count }, () => {
    const u = 1 - random();
    return centre + spread * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
  });
}

function shuffled<T>(values: readonly T[], seed: number): T[] {
  const random = seededRandom(seed);
  const out = [...values];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const inside = (interval: Interval | null, value: number): boolean =>
  interval !== null && interval[0] <= value && value <= interval[1];

const width = (interval: Interval | null) => interval![1] - interval![0];

/** Pairs in groups of `size` (the last groups of one when `singles`), score differences ~ N(3, 10). */
function scorePairs(seed: number, groups: number, size: number, singles = 0): ScorePair[] {
  const random = seededRandom(seed);
  const sizes = [...Array<number>(groups).fill(size), ...Array<number>(singles).fill(1)];
  return sizes.flatMap((n, g) =>
    normals(random, n, 3, 10).map((d) => ({ group: `g${g}`, baseline: 50, candidate: 50 + d })),
  );
}

const asQuantities = (pairs: readonly ScorePair[]): PairQuantities[] =>
  pairs.map((p) => ({ group: p.group, values: [p.candidate - p.baseline] }));

describe('sharedPairedBootstrap', () => {
  it('is pairedBootstrap, draw for draw, for one quantity every pair has', () => {
    for (const pairs of [scorePairs(1, 20, 7), scorePairs(2, 10, 4, 6), scorePairs(3, 0, 0, 12)]) {
      const shared = sharedPairedBootstrap(asQuantities(pairs), { seed: 41, quantities: 1 });
      expect(shared.overall[0]).toEqual(pairedBootstrap(pairs, { seed: 41 }));
      const fewer = { seed: 9, resamples: 500, confidence: 0.99 };
      expect(
        sharedPairedBootstrap(asQuantities(pairs), { ...fewer, quantities: 1 }).overall[0],
      ).toEqual(pairedBootstrap(pairs, fewer));
    }
  });

  it('gives each quantity its own mean; a pair missing one is no outcome for it', () => {
    const random = seededRandom(5);
    // Quantity 1 is missing on every third pair, and those pairs carry a huge value elsewhere.
    const pairs: PairQuantities[] = Array.from({ length: 600 }, (_, i) => ({
      group: `g${i % 30}`,
      values: [random() * 10, i % 3 === 0 ? null : 5 + normals(random, 1, 0, 4)[0]!, -2],
    }));
    const { overall } = sharedPairedBootstrap(pairs, { seed: 3, quantities: 3 });
    const seen = pairs.flatMap((p) => (p.values[1] === null ? [] : [p.values[1]!]));
    expect(overall[1]!.difference).toBeCloseTo(seen.reduce((a, b) => a + b, 0) / seen.length, 10);
    expect(inside(overall[1]!.interval, 5)).toBe(true);
    // 95% normal half-width with sd 4 over 400 pairs: 1.96 · 4 / 20 ≈ 0.39.
    expect(width(overall[1]!.interval)).toBeGreaterThan(2 * 0.39 * 0.75);
    expect(width(overall[1]!.interval)).toBeLessThan(2 * 0.39 * 1.25);
    expect(overall[2]).toEqual({ difference: -2, interval: [-2, -2] });
  });

  it("gives a group's rows from its part of the resamples: a bootstrap of that group alone", () => {
    const pairs = scorePairs(8, 6, 40, 2);
    const { groups } = sharedPairedBootstrap(asQuantities(pairs), {
      seed: 4,
      quantities: 1,
      grouped: 1,
    });
    for (const g of ['g0', 'g3', 'g5']) {
      const own = pairs.filter((p) => p.group === g);
      const alone = pairedBootstrap(own, { seed: 99 });
      const [shared] = groups.get(g)!;
      // Other draws than a bootstrap of the group alone, the same statistic: equal estimates,
      // intervals of the same width within resampling noise.
      expect(shared!.difference).toBe(alone.difference);
      expect(width(shared!.interval) / width(alone.interval)).toBeGreaterThan(0.85);
      expect(width(shared!.interval) / width(alone.interval)).toBeLessThan(1.15);
    }
    // A group of one pair (pooled for resampling) is its one difference, as a group of one was.
    const single = pairs.find((p) => p.group === 'g6')!;
    const d = single.candidate - single.baseline;
    expect(groups.get('g6')).toEqual([{ difference: d, interval: [d, d] }]);
  });

  it('sums every quantity over the same draws, however many quantities and groups', () => {
    const random = seededRandom(31);
    // Quantity 5 repeats quantity 0: over the same draws it must give the same results exactly,
    // whether its sums run as it is drawn, stratum by stratum, or over all the draws at once.
    const pairs: PairQuantities[] = scorePairs(6, 12, 6, 4).map((p) => {
      const d = p.candidate - p.baseline;
      return { group: p.group, values: [d, random(), random() < 0.5 ? null : 1, 2, null, d] };
    });
    for (const grouped of [0, 1, 6]) {
      const out = sharedPairedBootstrap(pairs, { seed: 8, quantities: 6, grouped, resamples: 700 });
      expect(out.overall[5]).toEqual(out.overall[0]);
      expect(out.overall[4]).toEqual({ difference: null, interval: null });
      for (const results of out.groups.values()) {
        expect(results).toHaveLength(grouped);
        if (grouped === 6) expect(results[5]).toEqual(results[0]);
      }
      const alone = pairedBootstrap(
        pairs.map((p) => ({ group: p.group, baseline: 0, candidate: p.values[0]! })),
        { seed: 8, resamples: 700 },
      );
      expect(out.overall[0]).toEqual(alone);
    }
  });

  it('is deterministic and free of the order pairs come in', () => {
    const pairs: PairQuantities[] = scorePairs(12, 8, 5, 3).map((p, i) => ({
      group: p.group,
      values: [p.candidate - p.baseline, i % 4 === 0 ? null : i % 7],
    }));
    const options = { seed: 17, quantities: 2, grouped: 2, resamples: 2_000 };
    const once = sharedPairedBootstrap(pairs, options);
    expect(sharedPairedBootstrap(shuffled(pairs, 1), options)).toEqual(once);
    expect(sharedPairedBootstrap(pairs, { ...options, seed: 18 }).overall).not.toEqual(
      once.overall,
    );
  });

  it('answers nulls with no pairs, or for a quantity no pair has; refuses bad input', () => {
    expect(sharedPairedBootstrap([], { seed: 1, quantities: 2 }).overall).toEqual([
      { difference: null, interval: null },
      { difference: null, interval: null },
    ]);
    const pairs = [
      { group: 'a', values: [1, null] },
      { group: 'a', values: [2, null] },
    ];
    expect(sharedPairedBootstrap(pairs, { seed: 1, quantities: 2 }).overall[1]).toEqual({
      difference: null,
      interval: null,
    });
    expect(() => sharedPairedBootstrap(pairs, { seed: 1, quantities: 3 })).toThrow(RangeError);
    expect(() =>
      sharedPairedBootstrap([{ group: 'a', values: [Number.NaN] }], { seed: 1, quantities: 1 }),
    ).toThrow(RangeError);
    expect(() => sharedPairedBootstrap(pairs, { seed: 1, quantities: 2, grouped: 3 })).toThrow(
      RangeError,
    );
  });
});

describe('one run per scenario × persona group', () => {
  it('pools the groups of one pair: the interval has width and covers the true difference', () => {
    // 30 groups of one pair each: resampled within their groups, every resample would be the
    // sample itself and the interval [d̄, d̄].
    const one = scorePairs(77, 0, 0, 30);
    const { interval } = pairedBootstrap(one, { seed: 1 });
    expect(width(interval)).toBeGreaterThan(0);
    const shared = sharedPairedBootstrap(asQuantities(one), { seed: 1, quantities: 1 });
    expect(width(shared.overall[0]!.interval)).toBeGreaterThan(0);
    let covered = 0;
    const experiments = 200;
    for (let e = 0; e < experiments; e++) {
      const pairs = scorePairs(5_000 + e, 0, 0, 30);
      if (inside(pairedBootstrap(pairs, { seed: e, resamples: 1_000 }).interval, 3)) covered++;
    }
    // A percentile bootstrap of 30 normal values covers ~93%; Binomial(200, 0.93) lies in
    // 174..196 with probability > 0.998 (zero-width intervals would cover none).
    expect(covered).toBeGreaterThanOrEqual(174);
    expect(covered).toBeLessThanOrEqual(196);
  });
});

describe('percentileInterval', () => {
  it('gives exactly the quantiles of the sorted values, ties and all', () => {
    const random = seededRandom(21);
    for (const [n, confidence] of [
      [10_000, 0.95],
      [1, 0.95],
      [2, 0.9],
      [37, 0.99],
      [1_000, 1 - 0.05 / 12],
    ] as const) {
      const values = Float64Array.from({ length: n }, () => Math.floor(random() * 50) / 4);
      const sorted = Float64Array.from(values).sort();
      const alpha = 1 - confidence;
      expect(percentileInterval(values, confidence)).toEqual([
        sortedQuantile(sorted, alpha / 2),
        sortedQuantile(sorted, 1 - alpha / 2),
      ]);
    }
  });
});
