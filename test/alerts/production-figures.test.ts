import { describe, expect, it } from 'vitest';
import type { MetricResult } from '../../src/domain/simulations.js';
import {
  byDay,
  byVersion,
  categoryScores,
  inStartOrder,
  outcomesOf,
  passRateOf,
  trendGap,
  type ScoredCall,
} from '../../src/domain/production.js';

const result = (over: Partial<MetricResult> & { status?: string }): MetricResult => ({
  metric_id: 'm1',
  name: 'Greets',
  category: 'quality',
  type: 'contains',
  score: 100,
  passed: true,
  reasoning: 'r',
  ...over,
});

const scored = (n: number, over: Partial<ScoredCall> = {}): ScoredCall => ({
  callId: `call_${String(n).padStart(3, '0')}`,
  startedAt: new Date(Date.UTC(2026, 5, 1, 10, n)).toISOString(),
  agentVersion: 1,
  score: 100,
  passed: true,
  results: [],
  ...over,
});

describe('production trend: pass rate minus the EWMA seeded with it', () => {
  const passes = Array<boolean>(10).fill(true);
  const failures = Array<boolean>(5).fill(false);

  it('10 passes then 5 failures: about 50 points (fires at 20)', () => {
    // By hand, alpha 0.3: rate 66.667; after the passes 100 - 33.333 * 0.7^10 = 99.0585;
    // after the failures 99.0585 * 0.7^5 = 16.6489; the gap 66.667 - 16.649 = 50.02.
    const gap = trendGap([...passes, ...failures], 0.3)!;
    expect(gap).toBeCloseTo(50.02, 2);
    expect(gap).toBeGreaterThan(20);
  });

  it('the same failures before the passes: negative, never fires', () => {
    // After the failures 66.667 * 0.7^5 = 11.2047; after the passes 100 - 88.795 * 0.7^10 = 97.492.
    const gap = trendGap([...failures, ...passes], 0.3)!;
    expect(gap).toBeCloseTo(-30.83, 2);
    expect(gap).toBeLessThan(20);
  });

  it('alpha 1 follows the last outcome alone; no outcomes, no figure', () => {
    expect(trendGap([true, true, true, false], 1)).toBe(75);
    expect(trendGap([false, true], 1)).toBe(-50);
    expect(trendGap([])).toBeNull();
  });

  it('steady outcomes make no gap', () => {
    expect(trendGap([true, true, true])).toBe(0);
    expect(trendGap([false, false])).toBe(0);
  });
});

describe('production pass rate and breakdowns', () => {
  it('a metric: not applicable and missing results left out; overall: a null verdict is not passed', () => {
    const calls = [
      scored(1, { results: [result({ passed: true })] }),
      scored(2, { results: [result({ passed: false, score: 0 })], passed: false }),
      scored(3, {
        results: [result({ passed: null, score: null, status: 'not_applicable' })],
        passed: null,
      }),
      scored(4, { results: [result({ metric_id: 'other' })] }),
    ];
    expect(outcomesOf(calls, 'm1')).toEqual([true, false]);
    expect(passRateOf(outcomesOf(calls, 'm1'))).toBe(50);
    expect(outcomesOf(calls)).toEqual([true, false, false, true]);
    expect(passRateOf([true, true, false])).toBe(66.67);
    expect(passRateOf([])).toBeNull();
  });

  it('categories only ever not applicable are left out; scores averaged per category', () => {
    const calls = [
      scored(1, {
        results: [
          result({ category: 'quality', score: 80 }),
          result({ category: 'audio', score: null, passed: null, not_applicable: true }),
        ],
      }),
      scored(2, { results: [result({ category: 'quality', score: 61 })] }),
    ];
    expect(categoryScores(calls)).toEqual([{ category: 'quality', score: 70.5 }]);
  });

  it('by UTC day and by version, oldest first, unknown version last', () => {
    const calls = [
      scored(1, { startedAt: '2026-06-01T23:59:00.000Z', score: 50, passed: false }),
      scored(2, { startedAt: '2026-06-02T00:00:00.000Z', agentVersion: 2 }),
      scored(3, { startedAt: '2026-06-01T01:00:00.000Z', agentVersion: null, score: 90 }),
    ];
    expect(byDay(calls)).toEqual([
      { date: '2026-06-01', evaluated: 2, passRate: 50, avgScore: 70 },
      { date: '2026-06-02', evaluated: 1, passRate: 100, avgScore: 100 },
    ]);
    expect(byVersion(calls)).toEqual([
      { version: 1, evaluated: 1, passRate: 0, avgScore: 50 },
      { version: 2, evaluated: 1, passRate: 100, avgScore: 100 },
      { version: null, evaluated: 1, passRate: 100, avgScore: 90 },
    ]);
  });

  it('start order: by start time, then by id', () => {
    const calls = [
      scored(3),
      scored(1, { startedAt: '2026-06-01T10:03:00.000Z' }),
      scored(2, { startedAt: null }),
    ];
    expect(inStartOrder(calls).map((c) => c.callId)).toEqual(['call_002', 'call_001', 'call_003']);
  });
});
