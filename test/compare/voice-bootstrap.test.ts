import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/audio/seeded-random.js';
import { sortedQuantile } from '../../src/compare/bootstrap-parts.js';
import { normalQuantile } from '../../src/compare/statistics.js';
import { voiceBootstrap, type CallValues } from '../../src/compare/voice-bootstrap.js';
import { accumulate, nearestRank, type7, weightedTable } from '../../src/compare/weighted-table.js';
import type { Interval } from '../../src/domain/comparisons.js';

// The voice bootstrap of src/compare/voice-bootstrap.ts: every voice statistic, overall and by
// condition, from one set of call draws, and the weighted tables that read quantiles of a
// resample without sorting it. Inputs come from fixed seeds.

const inside = (interval: Interval | null, value: number): boolean =>
  interval !== null && interval[0] <= value && value <= interval[1];

function normal(random: () => number, centre: number, spread: number): number {
  const u = 1 - random();
  return centre + spread * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

const nearest = (sorted: readonly number[], q: number) =>
  sorted[Math.max(1, Math.ceil((q / 100) * sorted.length)) - 1]!;

describe('weighted tables', () => {
  it('read the quantiles a sorted resample gives, per condition and overall', () => {
    const random = seededRandom(3);
    const calls = 40;
    const conditionOf = (call: number) => call % 3;
    const entries = Array.from({ length: 150 }, () => {
      const call = Math.floor(random() * calls);
      return { value: Math.round(random() * 40), call, condition: conditionOf(call) };
    });
    const table = weightedTable(entries, 3);
    for (let trial = 0; trial < 20; trial++) {
      const weights = Float64Array.from({ length: calls }, () => Math.floor(random() * 3));
      accumulate(table, weights);
      for (const which of [-1, 0, 1, 2]) {
        const resample = entries
          .filter((e) => which < 0 || e.condition === which)
          .flatMap((e) => Array<number>(weights[e.call]!).fill(e.value))
          .sort((a, b) => a - b);
        if (resample.length === 0) {
          expect(nearestRank(table, which, 50)).toBeNaN();
          continue;
        }
        for (const q of [1, 50, 90, 100])
          expect(nearestRank(table, which, q)).toBe(nearest(resample, q));
        for (const q of [0, 0.25, 0.5, 0.9, 1])
          expect(type7(table, which, q)).toBe(sortedQuantile(resample, q));
      }
    }
  });
});

/** A call: talk-overs (mean), time to first audio (median), reply latencies, word errors. */
function callOf(random: () => number, o: { condition: string; slower: number }): CallValues {
  const words = 20 + Math.floor(random() * 40);
  return {
    condition: o.condition,
    means: [Math.floor(random() * 3), random() < 0.3 ? null : normal(random, 300 + o.slower, 60)],
    medians: [Math.round(normal(random, 800 + o.slower, 120))],
    pooled: Array.from({ length: 1 + Math.floor(random() * 4) }, () =>
      Math.round(normal(random, 500 + o.slower, 100)),
    ),
    ratio: random() < 0.1 ? null : [Math.floor(words * random() * 0.2), words],
  };
}

function sideOf(seed: number, count: number, slower: number): CallValues[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, i) =>
    callOf(random, { condition: i % 4 === 0 ? 'street' : 'cafe', slower }),
  );
}

/** The statistics of calls computed directly: means, median, p50, p90, pooled ratio. */
function direct(calls: readonly CallValues[]): (number | null)[] {
  const mean = (m: number) => {
    const v = calls.flatMap((c) => (c.means[m] === null ? [] : [c.means[m]!]));
    return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null;
  };
  const ttfa = calls.map((c) => c.medians[0]!).sort((a, b) => a - b);
  const replies = calls.flatMap((c) => c.pooled).sort((a, b) => a - b);
  const ratios = calls.flatMap((c) => (c.ratio ? [c.ratio] : []));
  const words = ratios.reduce((n, r) => n + r[1], 0);
  return [
    mean(0),
    mean(1),
    sortedQuantile(ttfa, 0.5),
    nearest(replies, 50),
    nearest(replies, 90),
    words > 0 ? ratios.reduce((n, r) => n + r[0], 0) / words : null,
  ];
}

const PERCENTILES = [50, 90];

describe('voiceBootstrap', () => {
  const baseline = sideOf(1, 300, 0);
  const candidate = sideOf(2, 250, 100);
  const result = voiceBootstrap(baseline, candidate, { seed: 5, percentiles: PERCENTILES });

  it("gives each side's statistics as the calls have them, overall and per condition", () => {
    const close = (actual: (number | null)[], expected: (number | null)[]) =>
      actual.forEach((a, k) => expect(a).toBeCloseTo(expected[k]!, 9));
    close(
      result.overall.map((s) => s.baseline),
      direct(baseline),
    );
    close(
      result.overall.map((s) => s.candidate),
      direct(candidate),
    );
    for (const condition of ['cafe', 'street']) {
      const of = (calls: CallValues[]) => calls.filter((c) => c.condition === condition);
      const rows = result.byCondition.get(condition)!;
      close(
        rows.map((s) => s.baseline),
        direct(of(baseline)),
      );
      close(
        rows.map((s) => s.candidate),
        direct(of(candidate)),
      );
    }
  });

  it('covers known differences, about as wide as normal theory says', () => {
    // Mean measure 1: N(300, 60) against N(400, 60), 70% of calls having it.
    const slower = result.overall[1]!;
    expect(inside(slower.interval, 100)).toBe(true);
    const half = normalQuantile(0.975) * Math.sqrt(60 ** 2 / (0.7 * 300) + 60 ** 2 / (0.7 * 250));
    expect(slower.interval![1] - slower.interval![0]).toBeGreaterThan(2 * half * 0.8);
    expect(slower.interval![1] - slower.interval![0]).toBeLessThan(2 * half * 1.2);
    // The median and the reply percentiles move by 100 too.
    for (const k of [2, 3, 4]) expect(inside(result.overall[k]!.interval, 100)).toBe(true);
    expect(result.overall[2]!.interval![0]).toBeGreaterThan(0);
  });

  it('is deterministic and free of the order calls come in', () => {
    const reversed = voiceBootstrap([...baseline].reverse(), [...candidate].reverse(), {
      seed: 5,
      percentiles: PERCENTILES,
    });
    expect(reversed).toEqual(result);
    const other = voiceBootstrap(baseline, candidate, { seed: 6, percentiles: PERCENTILES });
    expect(other.overall[1]!.interval).not.toEqual(result.overall[1]!.interval);
  });

  it('reads one condition alone as the overall rows, and alike calls as exactly [d, d]', () => {
    const cafe = (calls: CallValues[]) => calls.filter((c) => c.condition === 'cafe');
    const one = voiceBootstrap(cafe(baseline), cafe(candidate), {
      seed: 9,
      percentiles: PERCENTILES,
      resamples: 300,
    });
    expect(one.byCondition.get('cafe')).toEqual(one.overall);
    const alike = (talkOvers: number): CallValues => ({
      condition: 'a',
      means: [talkOvers, 0.1],
      medians: [800],
      pooled: [300, 320],
      ratio: [1, 10],
    });
    const same = voiceBootstrap([alike(0), alike(0)], [alike(1), alike(1), alike(1)], {
      seed: 1,
      percentiles: PERCENTILES,
      resamples: 100,
    });
    expect(same.overall[0]).toEqual({ baseline: 0, candidate: 1, difference: 1, interval: [1, 1] });
    expect(same.overall[5]!.interval).toEqual([0, 0]);
  });

  it('keeps a lone call of a condition as that condition’s value; pools it overall', () => {
    const b = [...sideOf(7, 40, 0).map((c) => ({ ...c, condition: 'cafe' })), sideOf(8, 1, 0)[0]!];
    const lone = { ...b[40]!, condition: 'street' };
    b[40] = lone;
    const c = sideOf(9, 40, 50).map((x, i) => ({ ...x, condition: i < 20 ? 'cafe' : 'street' }));
    const out = voiceBootstrap(b, c, { seed: 2, percentiles: PERCENTILES, resamples: 500 });
    const street = out.byCondition.get('street')!;
    expect(street[2]!.baseline).toBe(lone.medians[0]);
    // The candidate's 20 street calls still vary: the interval has width.
    expect(street[2]!.interval![1]).toBeGreaterThan(street[2]!.interval![0]);
    expect(out.overall[2]!.interval![1]).toBeGreaterThan(out.overall[2]!.interval![0]);
  });

  it('answers nulls for what a side cannot measure, and refuses bad values', () => {
    const none: CallValues = {
      condition: 'a',
      means: [null, null],
      medians: [null],
      pooled: [],
      ratio: null,
    };
    const out = voiceBootstrap([none, none], sideOf(3, 10, 0), {
      seed: 1,
      percentiles: PERCENTILES,
      resamples: 50,
    });
    expect(out.overall.map((s) => s.baseline)).toEqual([null, null, null, null, null, null]);
    expect(out.overall.every((s) => s.interval === null)).toBe(true);
    const bad = { ...none, means: [Number.NaN, null] };
    expect(() => voiceBootstrap([bad], [none], { seed: 1, percentiles: PERCENTILES })).toThrow(
      RangeError,
    );
    expect(() => voiceBootstrap([none], [none], { seed: 1, percentiles: [0] })).toThrow(RangeError);
  });
});
