import { describe, expect, it } from 'vitest';
import { LatenessHistogram } from '../../src/audio/lateness-histogram.js';
import { percentile, summarize } from '../../src/audio/stats.js';

describe('percentile', () => {
  it('is nearest-rank, p in percent, null for no values', () => {
    const values = [15, 20, 35, 40, 50];
    expect(percentile(values, 5)).toBe(15);
    expect(percentile(values, 30)).toBe(20);
    expect(percentile(values, 40)).toBe(20);
    expect(percentile(values, 50)).toBe(35);
    expect(percentile(values, 100)).toBe(50);
    expect(percentile(values, 0)).toBe(15);
    expect(percentile([], 50)).toBeNull();
    expect(values).toEqual([15, 20, 35, 40, 50]);
    expect(() => percentile(values, 150)).toThrow(RangeError);
  });

  it('summarizes p50, p90 and max', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(summarize(values)).toEqual({ p50: 50, p90: 90, max: 100 });
    expect(summarize([])).toEqual({ p50: null, p90: null, max: null });
  });
});

describe('LatenessHistogram', () => {
  it('reports nearest-rank percentiles at 0.1 ms resolution, capped by the true max', () => {
    const histogram = new LatenessHistogram();
    for (let i = 0; i < 98; i++) histogram.add(0.42);
    histogram.add(3.01);
    histogram.add(250);
    const stats = histogram.stats();
    expect(stats.frames).toBe(100);
    expect(stats.lateP50Ms).toBeCloseTo(0.5, 9);
    expect(stats.lateP99Ms).toBeCloseTo(3.1, 9);
    expect(stats.lateMaxMs).toBe(250);
    expect(histogram.percentile(100)).toBe(250);
    expect(new LatenessHistogram().stats()).toEqual({
      frames: 0,
      lateP50Ms: 0,
      lateP99Ms: 0,
      lateMaxMs: 0,
    });
  });
});
