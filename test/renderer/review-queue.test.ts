import { describe, expect, it } from 'vitest';
import { turnText } from '../../src/simulations/judge-transcript.js';
import type { Turn } from '../../src/domain/simulations.js';
import {
  itemsOf,
  labelKey,
  latestLabels,
  orderQueue,
  simulationTurns,
  type MetricResult,
  type Review,
  type ReviewSource,
} from '../../renderer/src/ui/review/reviewQueue.js';

/**
 * The review queue's order (#37): the judge's errors first, then the targets nearest the pass
 * threshold, then the metrics the judge agrees least on; already labelled items last. And a
 * simulation's turns as the judge read them, so evidence points at the right turn.
 */

const result = (metric_id: string, over: Partial<MetricResult> = {}): MetricResult => ({
  metric_id,
  name: metric_id,
  category: 'general',
  type: 'llm_judge',
  score: 90,
  passed: true,
  status: 'passed',
  reasoning: 'fine',
  ...over,
});

const source = (id: string, score: number | null, results: MetricResult[]): ReviewSource => ({
  target: { simulationId: id },
  title: id,
  score,
  results,
  turns: [],
});

const keysOf = (items: { key: string }[]) => items.map((i) => i.key);
const key = (sim: string, metric: string) => labelKey({ simulationId: sim }, metric);

describe('review queue order', () => {
  const judged = new Set(['polite', 'status']);
  const sources = [
    source('far', 20, [result('polite')]),
    source('error', 95, [result('polite', { status: 'error', score: null, passed: null })]),
    source('near', 72, [result('polite'), result('status'), result('shipped')]),
    source('nearer', 69, [result('polite')]),
    source('unscored', null, [result('status')]),
  ];

  it('puts errors first, then the nearest the threshold, then the lowest agreement', () => {
    const queue = orderQueue(itemsOf(sources, judged), {
      passThreshold: 70,
      agreement: new Map([
        ['polite', 0.9],
        ['status', 0.5],
      ]),
      labelled: new Set(),
    });
    expect(keysOf(queue)).toEqual([
      key('error', 'polite'),
      // 72 and 69 are both within 5 points of 70: the metric agreed on least goes first.
      key('near', 'status'),
      key('near', 'polite'),
      key('nearer', 'polite'),
      key('far', 'polite'),
      key('unscored', 'status'),
    ]);
  });

  it('counts an unknown agreement as the lowest, and puts labelled items last', () => {
    const queue = orderQueue(itemsOf(sources, judged), {
      passThreshold: 70,
      agreement: new Map([
        ['polite', 0.2],
        ['status', null],
      ]),
      labelled: new Set([key('error', 'polite'), key('near', 'status')]),
    });
    expect(keysOf(queue)).toEqual([
      key('near', 'polite'),
      key('nearer', 'polite'),
      key('far', 'polite'),
      key('unscored', 'status'),
      key('error', 'polite'),
      key('near', 'status'),
    ]);
  });

  it('leaves out the metrics not under review', () => {
    expect(keysOf(itemsOf(sources, new Set(['shipped'])))).toEqual([key('near', 'shipped')]);
  });
});

describe('latest labels', () => {
  const review = (id: string, verdict: Review['verdict'], target: Review['target']): Review => ({
    id,
    scorecardId: 'sc',
    metricId: 'polite',
    target,
    verdict,
    note: null,
    reviewer: { id: 'u', name: 'Ann' },
    created_at: '2026-06-01T10:00:00.000Z',
    updated_at: '2026-06-01T10:00:00.000Z',
  });

  it('keeps the first of each target and metric (the list answers the latest first)', () => {
    const latest = latestLabels([
      review('r3', 'fail', { callId: 'c1' }),
      review('r2', 'pass', { callId: 'c1' }),
      review('r1', 'pass', { simulationId: 'c1' }),
    ]);
    expect(latest.get(labelKey({ callId: 'c1' }, 'polite'))?.id).toBe('r3');
    expect(latest.get(labelKey({ simulationId: 'c1' }, 'polite'))?.id).toBe('r1');
    expect(latest.size).toBe(2);
  });
});

describe("a simulation's turns", () => {
  it('are numbered and worded as the judge read them', () => {
    const turns: Turn[] = [
      { role: 'caller', text: 'Where is\norder A1?', at_ms: 0, latency_ms: null, dtmf: '12#' },
      {
        role: 'tool',
        text: '',
        at_ms: 100,
        latency_ms: 50,
        tool: { name: 'order_status', arguments: { id: 'A1' }, result: { ok: 1 }, success: true },
      },
      { role: 'agent', text: 'It has shipped.', at_ms: 900, latency_ms: 300 },
    ];
    expect(simulationTurns(turns)).toEqual(
      turns.map((t, index) => ({ index, role: t.role, text: turnText(t), atMs: t.at_ms })),
    );
  });
});
