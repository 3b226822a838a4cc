import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MIN_PAIRS, type Interval } from '../../src/domain/comparisons.js';
import {
  bonferroniConfidence,
  newcombeInterval,
  normalQuantile,
  passK,
  runsPerGroup,
  seedFrom,
  verdictOf,
  wilsonInterval,
} from '../../src/compare/statistics.js';
import reference from '../fixtures/statistics/scipy-statsmodels.json' with { type: 'json' };

// The reference values are SciPy's and statsmodels' answers, made by
// test/fixtures/statistics/make-fixtures.py (tests never run Python).

const contains = (outer: Interval, inner: Interval): boolean =>
  outer[0] <= inner[0] && inner[1] <= outer[1];

function expectInterval(
  actual: Interval | null,
  expected: readonly number[],
  digits: number,
): void {
  expect(actual).not.toBeNull();
  const tolerance = 10 ** -digits;
  expect(Math.abs(actual![0] - expected[0]!)).toBeLessThan(tolerance);
  expect(Math.abs(actual![1] - expected[1]!)).toBeLessThan(tolerance);
}

describe('normalQuantile', () => {
  it('matches scipy.stats.norm.ppf within 1e-9 from p = 1e-10 to 1 − 1e-10', () => {
    expect(reference.normal_quantiles.length).toBeGreaterThan(30);
    for (const { p, z } of reference.normal_quantiles) {
      expect(Math.abs(normalQuantile(p) - z), `p = ${p}`).toBeLessThan(1e-9);
    }
  });

  it('is antisymmetric and increasing across the whole range', () => {
    let previous = -Infinity;
    for (let e = -10; e < 0; e += 0.05) {
      const p = 10 ** e;
      expect(normalQuantile(p)).toBeGreaterThan(previous);
      previous = normalQuantile(p);
      expect(Math.abs(normalQuantile(p) + normalQuantile(1 - p))).toBeLessThan(1e-6);
    }
    expect(normalQuantile(0.5)).toBe(0);
  });

  it('answers ∓Infinity at 0 and 1 and refuses probabilities outside [0, 1]', () => {
    expect(normalQuantile(0)).toBe(-Infinity);
    expect(normalQuantile(1)).toBe(Infinity);
    expect(() => normalQuantile(-0.1)).toThrow(RangeError);
    expect(() => normalQuantile(1.5)).toThrow(RangeError);
    expect(() => normalQuantile(Number.NaN)).toThrow(RangeError);
  });
});

describe('wilsonInterval', () => {
  it('matches statsmodels proportion_confint(method="wilson") on the whole grid', () => {
    for (const { passed, total, confidence, interval } of reference.wilson) {
      expectInterval(wilsonInterval({ passed, total }, confidence), interval, 12);
    }
  });

  it('gives 0 of n a lower bound of exactly 0 and n of n an upper bound of exactly 1', () => {
    for (const n of [1, 2, 5, 20, 1000]) {
      const none = wilsonInterval({ passed: 0, total: n })!;
      const all = wilsonInterval({ passed: n, total: n })!;
      expect(none[0]).toBe(0);
      expect(none[1]).toBeGreaterThan(0);
      expect(all[1]).toBe(1);
      expect(all[0]).toBeLessThan(1);
      // Mirror images: 0 of n and n of n are the same interval reflected about one half.
      expect(Math.abs(none[1] - (1 - all[0]))).toBeLessThan(1e-12);
    }
  });

  it('handles n = 1 and answers null with no outcomes', () => {
    // 1 of 1: the lower bound is n / (n + z²) with z = z(0.975) = 1.959963984540054.
    const z = 1.959963984540054;
    expectInterval(wilsonInterval({ passed: 1, total: 1 }), [1 / (1 + z * z), 1], 12);
    expectInterval(wilsonInterval({ passed: 0, total: 1 }), [0, (z * z) / (1 + z * z)], 12);
    expect(wilsonInterval({ passed: 0, total: 0 })).toBeNull();
  });

  it('refuses impossible counts and confidences', () => {
    expect(() => wilsonInterval({ passed: 3, total: 2 })).toThrow(RangeError);
    expect(() => wilsonInterval({ passed: -1, total: 2 })).toThrow(RangeError);
    expect(() => wilsonInterval({ passed: 0.5, total: 2 })).toThrow(RangeError);
    expect(() => wilsonInterval({ passed: 1, total: 2 }, 1)).toThrow(RangeError);
    expect(() => wilsonInterval({ passed: 1, total: 2 }, 0)).toThrow(RangeError);
  });
});

describe('newcombeInterval (method 10)', () => {
  // Newcombe (1998), Statistics in Medicine 17:873-890, Table II, method 10, at 4 decimals. The paper
  // subtracts the second proportion from the first: its first proportion is our candidate.
  const published: [candidate: string, baseline: string, low: number, high: number][] = [
    ['56/70', '48/80', 0.0524, 0.3339],
    ['9/10', '3/10', 0.1705, 0.809],
    ['6/7', '2/7', 0.0582, 0.8062],
    ['5/56', '0/29', -0.0381, 0.1926],
    ['0/10', '0/20', -0.1611, 0.2775],
    ['0/10', '0/10', -0.2775, 0.2775],
    ['10/10', '0/20', 0.6791, 1],
    ['10/10', '0/10', 0.6075, 1],
  ];
  const proportion = (text: string) => {
    const [passed, total] = text.split('/').map(Number);
    return { passed: passed!, total: total! };
  };

  it.each(published)('%s − %s gives %f to %f', (candidate, baseline, low, high) => {
    const interval = newcombeInterval(proportion(baseline), proportion(candidate))!;
    expect(Math.abs(interval[0] - low)).toBeLessThan(0.00005 + 1e-12);
    expect(Math.abs(interval[1] - high)).toBeLessThan(0.00005 + 1e-12);
  });

  it('matches statsmodels confint_proportions_2indep(method="newcomb") on the whole grid', () => {
    for (const { baseline, candidate, confidence, interval } of reference.newcombe) {
      expectInterval(newcombeInterval(baseline, candidate, confidence), interval, 12);
    }
  });

  it('is the mirror image when the sides swap, and null when a side has no outcomes', () => {
    const a = { passed: 3, total: 10 };
    const b = { passed: 8, total: 12 };
    const forward = newcombeInterval(a, b)!;
    const backward = newcombeInterval(b, a)!;
    expect(Math.abs(forward[0] + backward[1])).toBeLessThan(1e-12);
    expect(Math.abs(forward[1] + backward[0])).toBeLessThan(1e-12);
    expect(newcombeInterval({ passed: 0, total: 0 }, b)).toBeNull();
    expect(newcombeInterval(a, { passed: 0, total: 0 })).toBeNull();
  });

  it('stays within [−1, 1] at the extremes (n = 1 a side)', () => {
    const interval = newcombeInterval({ passed: 0, total: 1 }, { passed: 1, total: 1 })!;
    expect(interval[0]).toBeGreaterThan(-1);
    expect(interval[1]).toBe(1);
  });
});

describe('bonferroniConfidence', () => {
  it('is 1 − 0.05/m, with no rows counting as one test', () => {
    expect(bonferroniConfidence(1)).toBe(0.95);
    expect(bonferroniConfidence(3)).toBe(1 - 0.05 / 3);
    expect(bonferroniConfidence(12)).toBe(1 - 0.05 / 12);
    expect(bonferroniConfidence(0)).toBe(0.95);
    expect(() => bonferroniConfidence(Number.NaN)).toThrow(RangeError);
  });

  it('widens the intervals, so a difference significant alone can stop being significant', () => {
    const baseline = { passed: 18, total: 20 };
    const candidate = { passed: 12, total: 20 };
    const alone = newcombeInterval(baseline, candidate, bonferroniConfidence(1))!;
    const amongTwelve = newcombeInterval(baseline, candidate, bonferroniConfidence(12))!;
    expect(contains(amongTwelve, alone)).toBe(true);
    expect(amongTwelve[1] - amongTwelve[0]).toBeGreaterThan(alone[1] - alone[0]);
    expect(verdictOf(alone, 20)).toBe('regressed');
    expect(verdictOf(amongTwelve, 20)).toBe('no_significant_difference');
    const wilsonAlone = wilsonInterval(candidate, bonferroniConfidence(1))!;
    expect(contains(wilsonInterval(candidate, bonferroniConfidence(3))!, wilsonAlone)).toBe(true);
  });
});

describe('verdictOf', () => {
  it(`needs ${MIN_PAIRS} pairs and an interval`, () => {
    expect(verdictOf([-0.5, -0.2], MIN_PAIRS - 1)).toBe('insufficient_data');
    expect(verdictOf([-0.5, -0.2], MIN_PAIRS)).toBe('regressed');
    expect(verdictOf(null, 50)).toBe('insufficient_data');
  });

  it('decides only when the interval lies wholly on one side of 0', () => {
    expect(verdictOf([-0.3, -1e-9], 10)).toBe('regressed');
    expect(verdictOf([-0.3, 0], 10)).toBe('no_significant_difference');
    expect(verdictOf([-0.3, 0.3], 10)).toBe('no_significant_difference');
    expect(verdictOf([0, 0.3], 10)).toBe('no_significant_difference');
    expect(verdictOf([1e-9, 0.3], 10)).toBe('improved');
    expect(verdictOf([0, 0], 10)).toBe('no_significant_difference');
  });

  it('swaps the sides for lower-is-better measures and demands the minimum effect', () => {
    const lower = { higherIsBetter: false, minEffect: 50 };
    expect(verdictOf([60, 120], 5, lower)).toBe('regressed');
    expect(verdictOf([50, 120], 5, lower)).toBe('no_significant_difference');
    expect(verdictOf([10, 40], 5, lower)).toBe('no_significant_difference');
    expect(verdictOf([-120, -60], 5, lower)).toBe('improved');
    expect(verdictOf([-120, -50], 5, lower)).toBe('no_significant_difference');
    expect(verdictOf([0.001, 0.002], 5, { higherIsBetter: false })).toBe('regressed');
    expect(verdictOf([60, 120], 4, lower)).toBe('insufficient_data');
    expect(() => verdictOf([0, 1], 5, { minEffect: -1 })).toThrow(RangeError);
  });
});

describe('runsPerGroup', () => {
  // (z(0.975) + z(0.8))² = 7.848879734…, so one group at p = 0.5 needs 392.44… → 393 runs.
  it('is the two-proportion sample size, spread over the groups', () => {
    expect(runsPerGroup(0.5, 1)).toBe(393);
    expect(runsPerGroup(0.5, 10)).toBe(40);
    expect(runsPerGroup(0.5, 1, { delta: 0.2 })).toBe(99);
    expect(runsPerGroup(0.5, 1000)).toBe(1);
    expect(runsPerGroup(0.8, 4)).toBe(63);
  });

  it('clamps an all-pass or all-fail history to 0.05..0.95 and treats an unknown rate as 0.5', () => {
    expect(runsPerGroup(1, 1)).toBe(75);
    expect(runsPerGroup(0, 1)).toBe(75);
    expect(runsPerGroup(Number.NaN, 1)).toBe(393);
    expect(runsPerGroup(0.5, 0)).toBe(393);
  });

  it('asks for more runs for more power and a stricter alpha', () => {
    expect(runsPerGroup(0.5, 1, { power: 0.9 })).toBeGreaterThan(runsPerGroup(0.5, 1));
    expect(runsPerGroup(0.5, 1, { alpha: 0.01 })).toBeGreaterThan(runsPerGroup(0.5, 1));
  });
});

describe('passK', () => {
  it('is the share of groups whose runs all passed', () => {
    expect(
      passK([
        [true, true],
        [true, false],
        [false, false],
      ]),
    ).toBeCloseTo(1 / 3, 15);
    expect(passK([[true], [true, true, true]])).toBe(1);
  });

  it('leaves out groups with no runs and is null with none', () => {
    expect(passK([[true], []])).toBe(1);
    expect(passK([])).toBeNull();
    expect(passK([[]])).toBeNull();
  });
});

describe('seedFrom', () => {
  it('is the first 4 bytes of the canonical SHA-256, big-endian, unsigned', () => {
    const expected = createHash('sha256').update('{"a":1,"b":[2,3]}').digest().readUInt32BE(0);
    expect(seedFrom({ b: [2, 3], a: 1 })).toBe(expected);
    expect(seedFrom({ a: 1, b: [2, 3] })).toBe(expected);
  });

  it('changes with the inputs and stays a 32-bit unsigned integer', () => {
    const seeds = new Set(['x', 'y', 'z', 1, 2, [1, 2], [2, 1]].map((v) => seedFrom({ v })));
    expect(seeds.size).toBe(7);
    for (const seed of seeds) {
      expect(Number.isInteger(seed)).toBe(true);
      expect(seed).toBeGreaterThanOrEqual(0);
      expect(seed).toBeLessThan(2 ** 32);
    }
  });
});
