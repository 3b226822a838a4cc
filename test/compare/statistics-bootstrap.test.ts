import { describe, expect, it } from 'vitest';
import { fillSeeded, seededRandom } from '../../src/audio/seeded-random.js';
import type { Interval } from '../../src/domain/comparisons.js';
import {
  bootstrapDifference,
  bootstrapRatioDifference,
  mean,
  median,
  normalQuantile,
  pairedBootstrap,
  percentile,
  type ScorePair,
} from '../../src/compare/statistics.js';

// The bootstraps of src/compare/bootstrap.ts through their public face, statistics.ts. Every
// "random" input here comes from a fixed seed, so each test gives the same numbers on every run.

/** Normal deviates from a seed (Box–Muller), for inputs whose true mean is known. */
function normals(seed: number, count: number, centre: number, spread: number): number[] {
  const random = seededRandom(seed);
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

/**
 * Pairs in `groups` groups (400 in 40 by default) whose candidate scores exceed the baseline's by
 * 3 on average (sd 10).
 */
function pairsWithShift(seed: number, count = 400, groups = 40): ScorePair[] {
  const noise = normals(seed, count, 3, 10);
  return noise.map((difference, i) => ({
    group: `scenario-${i % groups}`,
    baseline: 50 + (i % 7),
    candidate: 50 + (i % 7) + difference,
  }));
}

describe('fillSeeded', () => {
  it("draws seededRandom's numbers, in bulk, across calls", () => {
    const random = seededRandom(12345);
    const expected = Array.from({ length: 10 }, () => random());
    const first = new Uint32Array(4);
    const rest = new Uint32Array(6);
    const state = fillSeeded(12345, first);
    fillSeeded(state, rest);
    expect([...first, ...rest].map((u) => u / 2 ** 32)).toEqual(expected);
  });
});

describe('pairedBootstrap', () => {
  it('answers nulls with no pairs', () => {
    expect(pairedBootstrap([], { seed: 1 })).toEqual({ difference: null, interval: null });
  });

  it('gives a zero-width interval at the difference when every pair differs alike', () => {
    // 10.1 − 10 is not a round binary number: a mean of nine copies would not give it back exactly.
    const pairs = Array.from({ length: 9 }, (_, i) => ({
      group: `g${i % 3}`,
      baseline: 10,
      candidate: 10.1,
    }));
    const d = 10.1 - 10;
    const result = pairedBootstrap(pairs, { seed: 5 });
    expect(result).toEqual({ difference: d, interval: [d, d] });
  });

  it('resamples within groups: groups that are each constant leave no spread', () => {
    // Pooled resampling would mix the +5 and −5 pairs; within groups every resample is 3 × 5 +
    // 7 × (−5) over 10 = −2.
    const pairs = [
      ...Array.from({ length: 3 }, () => ({ group: 'a', baseline: 10, candidate: 15 })),
      ...Array.from({ length: 7 }, () => ({ group: 'b', baseline: 10, candidate: 5 })),
    ];
    expect(pairedBootstrap(pairs, { seed: 9 })).toEqual({ difference: -2, interval: [-2, -2] });
  });

  it('gives the same interval for the same pairs and seed, whatever their order', () => {
    const pairs = pairsWithShift(21);
    const once = pairedBootstrap(pairs, { seed: 77 });
    expect(pairedBootstrap(pairs, { seed: 77 })).toEqual(once);
    expect(pairedBootstrap(shuffled(pairs, 3), { seed: 77 })).toEqual(once);
    expect(pairedBootstrap(pairs, { seed: 78 }).interval).not.toEqual(once.interval);
  });

  it('covers a known mean difference, about as wide as normal theory says', () => {
    const pairs = pairsWithShift(4);
    const { difference, interval } = pairedBootstrap(pairs, { seed: 8 });
    const sample = pairs.map((p) => p.candidate - p.baseline);
    expect(difference).toBeCloseTo(mean(sample), 10);
    expect(inside(interval, 3)).toBe(true);
    // 95% normal half-width with sd 10 over 400 pairs: 1.96 · 10 / 20 ≈ 0.98.
    const width = interval![1] - interval![0];
    expect(width).toBeGreaterThan(2 * 0.98 * 0.8);
    expect(width).toBeLessThan(2 * 0.98 * 1.2);
  });

  it('covers the true difference in about 95% of repeated experiments', () => {
    let covered = 0;
    const experiments = 200;
    for (let e = 0; e < experiments; e++) {
      // Groups of 10: resampling within groups sees (1 − 1/10) of the variance, so ~93.7%.
      const pairs = pairsWithShift(1000 + e, 60, 6);
      if (inside(pairedBootstrap(pairs, { seed: e, resamples: 1000 }).interval, 3)) covered++;
    }
    // Binomial(200, 0.937) lies in 176..199 with probability > 0.999.
    expect(covered).toBeGreaterThanOrEqual(176);
    expect(covered).toBeLessThanOrEqual(199);
  });

  it('widens with the confidence (Bonferroni)', () => {
    const pairs = pairsWithShift(11);
    const narrow = pairedBootstrap(pairs, { seed: 2 }).interval!;
    const wide = pairedBootstrap(pairs, { seed: 2, confidence: 1 - 0.05 / 12 }).interval!;
    expect(wide[0]).toBeLessThan(narrow[0]);
    expect(wide[1]).toBeGreaterThan(narrow[1]);
  });

  it('refuses bad options and non-finite scores', () => {
    const pairs = pairsWithShift(1, 10);
    expect(() => pairedBootstrap(pairs, { seed: 1, resamples: 0 })).toThrow(RangeError);
    expect(() => pairedBootstrap(pairs, { seed: 1, resamples: 2.5 })).toThrow(RangeError);
    expect(() => pairedBootstrap(pairs, { seed: 1, confidence: 1 })).toThrow(RangeError);
    const broken = [{ group: 'a', baseline: 1, candidate: Number.NaN }];
    expect(() => pairedBootstrap(broken, { seed: 1 })).toThrow(RangeError);
  });
});

describe('percentile, median and mean', () => {
  it('are type-7 quantiles and the arithmetic mean', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(percentile(0.9)([1, 2, 3, 4, 10])).toBeCloseTo(7.6, 12);
    expect(percentile(0)([5, -1, 3])).toBe(-1);
    expect(percentile(1)([5, -1, 3])).toBe(5);
    expect(median([7])).toBe(7);
    expect(median([])).toBeNaN();
    expect(mean([1, 2, 6])).toBe(3);
    expect(() => percentile(1.5)).toThrow(RangeError);
  });
});

describe('bootstrapDifference', () => {
  const baseline = normals(31, 300, 800, 120);
  const candidate = normals(32, 250, 900, 150);

  it('answers nulls with an empty side', () => {
    const none = { difference: null, interval: null };
    expect(bootstrapDifference([], candidate, { statistic: mean, seed: 1 })).toEqual(none);
    expect(bootstrapDifference(baseline, [], { statistic: mean, seed: 1 })).toEqual(none);
  });

  it('gives exactly [d, d] when both sides are constant', () => {
    const result = bootstrapDifference([0.1, 0.1, 0.1], [0.4, 0.4], { statistic: mean, seed: 3 });
    const d = mean([0.4, 0.4]) - mean([0.1, 0.1, 0.1]);
    expect(result).toEqual({ difference: d, interval: [d, d] });
  });

  it.each([
    ['mean', mean],
    ['median', median],
    ['p90', percentile(0.9)],
  ] as const)(
    'computes the %s without building resamples, exactly as building them would',
    (_, statistic) => {
      const fast = bootstrapDifference(baseline, candidate, { statistic, seed: 17 });
      const built = bootstrapDifference(baseline, candidate, {
        statistic: (values) => statistic(values),
        seed: 17,
      });
      expect(fast).toEqual(built);
      const expected = statistic(candidate) - statistic(baseline);
      expect(Math.abs(fast.difference! - expected)).toBeLessThan(1e-9);
    },
  );

  it('hands any other statistic a resample of the side’s size', () => {
    const sizes = new Set<number>();
    const range = (values: readonly number[]) => {
      sizes.add(values.length);
      return Math.max(...values) - Math.min(...values);
    };
    const result = bootstrapDifference([1, 5, 9], [2, 4, 6, 8], {
      statistic: range,
      seed: 4,
      resamples: 50,
    });
    expect(sizes).toEqual(new Set([3, 4]));
    expect(result.difference).toBe(6 - 8);
    expect(result.interval![0]).toBeGreaterThanOrEqual(-8);
    expect(result.interval![1]).toBeLessThanOrEqual(6);
  });

  it('covers a known difference of means and is deterministic and order-free', () => {
    const once = bootstrapDifference(baseline, candidate, { statistic: mean, seed: 23 });
    expect(inside(once.interval, 100)).toBe(true);
    // Normal theory: 1.96 · √(120²/300 + 150²/250) ≈ 23.5 either side.
    const half = normalQuantile(0.975) * Math.sqrt(120 ** 2 / 300 + 150 ** 2 / 250);
    const width = once.interval![1] - once.interval![0];
    expect(width).toBeGreaterThan(2 * half * 0.8);
    expect(width).toBeLessThan(2 * half * 1.2);
    const again = bootstrapDifference(shuffled(baseline, 1), shuffled(candidate, 2), {
      statistic: mean,
      seed: 23,
    });
    expect(again).toEqual(once);
  });
});

describe('bootstrapRatioDifference', () => {
  it('pools numerators over denominators (word-weighted), not a mean of ratios', () => {
    const baseline: [number, number][] = [
      [1, 1],
      [0, 9],
    ];
    const candidate: [number, number][] = [
      [3, 10],
      [3, 10],
    ];
    const result = bootstrapRatioDifference(baseline, candidate, { seed: 1 });
    expect(result.difference).toBeCloseTo(0.3 - 0.1, 15);
  });

  it('answers nulls for an empty side or one with no words', () => {
    const none = { difference: null, interval: null };
    expect(bootstrapRatioDifference([], [[1, 2]], { seed: 1 })).toEqual(none);
    expect(
      bootstrapRatioDifference(
        [
          [0, 0],
          [0, 0],
        ],
        [[1, 2]],
        { seed: 1 },
      ),
    ).toEqual(none);
  });

  it('gives exactly [d, d] when every call of each side has one ratio', () => {
    const result = bootstrapRatioDifference(
      [
        [1, 10],
        [2, 20],
        [0, 0],
      ],
      [
        [3, 10],
        [6, 20],
      ],
      { seed: 6 },
    );
    const d = 9 / 30 - 3 / 30;
    expect(result).toEqual({ difference: d, interval: [d, d] });
  });

  it('covers a known error-rate difference, deterministically and whatever the order', () => {
    const random = seededRandom(99);
    const calls = (rate: number): [number, number][] =>
      Array.from({ length: 200 }, () => {
        const words = 20 + Math.floor(random() * 40);
        let errors = 0;
        for (let w = 0; w < words; w++) if (random() < rate) errors++;
        return [errors, words];
      });
    const baseline = calls(0.1);
    const candidate = calls(0.15);
    const once = bootstrapRatioDifference(baseline, candidate, { seed: 12 });
    expect(inside(once.interval, 0.05)).toBe(true);
    expect(once.interval![0]).toBeGreaterThan(0);
    expect(bootstrapRatioDifference(shuffled(baseline, 5), candidate, { seed: 12 })).toEqual(once);
  });

  it('refuses negative or non-finite counts', () => {
    expect(() => bootstrapRatioDifference([[1, -2]], [[1, 2]], { seed: 1 })).toThrow(RangeError);
    expect(() => bootstrapRatioDifference([[1, 2]], [[Infinity, 2]], { seed: 1 })).toThrow(
      RangeError,
    );
  });
});
