import { afterEach, describe, expect, it } from 'vitest';
import type { Metric } from '../../src/domain/scorecards.js';
import { DEFAULT_MODEL_POLICY } from '../../src/llm/types.js';
import { callConversation } from '../../src/simulations/call-conversation.js';
import { scoreConversation } from '../../src/simulations/scoring.js';
import { createScoreThreads, type ScoreThreads } from '../../src/simulations/score-threads.js';
import type { StoredCall } from '../../src/store/calls.js';
import { startFakeBrain } from '../helpers/fake-brain.js';

/** An imported call whose agent gave a tracking number (what the fake judge quotes). */
const call = (i: number): StoredCall => ({
  id: `call_${i}`,
  agentId: 'agt_1',
  agentVersion: null,
  providerCallId: `pc_${i}`,
  startedAt: '2026-06-01T10:00:00.000Z',
  endedAt: '2026-06-01T10:01:00.000Z',
  durationMs: 60_000,
  endReason: 'customer-ended-call',
  cost: null,
  costOriginal: null,
  recordingUrl: null,
  summary: null,
  successful: true,
  transcript: [
    { role: 'user', text: `Where is my order C${i}?`, startMs: 0, endMs: 1_000 },
    { role: 'agent', text: 'It has shipped, tracking TRK123.', startMs: 1_500, endMs: 3_000 },
  ],
  toolCalls: [],
});

const metric = (id: string, type: string, config: Record<string, unknown>): Metric => ({
  id,
  name: id,
  category: 'quality',
  type,
  description: null,
  weight: 1,
  critical: false,
  config,
});

const METRICS = [
  metric('shipped', 'contains', { text: 'shipped' }),
  metric('refund', 'contains', { text: 'refund' }),
  metric('helps', 'llm_judge', { criterion: 'The agent helps the caller' }),
];

describe('scoring threads', () => {
  let threads: ScoreThreads | null = null;
  afterEach(async () => {
    await threads?.close();
    threads = null;
  });

  it('score a call as the engine thread would, the judge asked on the thread, each setup sent once', async () => {
    const brain = await startFakeBrain();
    try {
      const connection = { kind: 'openai' as const, baseUrl: brain.url, apiKey: 'k', model: 'm' };
      const policy = { ...DEFAULT_MODEL_POLICY, maxResponseBytes: 1 << 20 };
      const setup = {
        id: 1,
        metrics: METRICS,
        passThreshold: 50,
        judge: { key: 'judge', connection, policy },
      };
      threads = createScoreThreads(1);
      const first = await threads.score(call(1), setup);
      // The second call names the setup only: the thread kept it.
      const second = await threads.score(call(2), setup);
      expect(brain.calls.judge).toBe(2);

      // The same call scored here, with a judge that answers as the fake judge did.
      const judged = first.results.find((r) => r.metric_id === 'helps')!;
      const verdict = {
        score: judged.score!,
        reasoning: judged.reasoning,
        evidence: judged.evidence ?? [],
      };
      const here = await scoreConversation(METRICS, callConversation(call(1)), 50, () =>
        Promise.resolve(verdict),
      );
      expect(first).toEqual({
        ...here,
        results: here.results.map((r) =>
          r.metric_id === 'helps' ? { ...r, judge_model: first.results[2]!.judge_model } : r,
        ),
      });
      expect(first.results.map((r) => [r.metric_id, r.status])).toEqual([
        ['shipped', 'passed'],
        ['refund', 'failed'],
        ['helps', 'passed'],
      ]);
      expect(second.results.map((r) => r.status)).toEqual(['passed', 'failed', 'passed']);
      expect(await threads.heapUsed()).toBeGreaterThan(0);
    } finally {
      await brain.stop();
    }
  });

  it('after a stop, the next call starts a new thread and sends it the setup again', async () => {
    threads = createScoreThreads(1);
    const setup = { id: 7, metrics: METRICS.slice(0, 2), passThreshold: 70, judge: null };
    const scored = await threads.score(call(1), setup);
    expect([scored.score, scored.passed]).toEqual([50, false]);
    await threads.close();
    // After a stop the next call starts a new thread, which is sent the setup again.
    expect((await threads.score(call(2), setup)).results).toHaveLength(2);
  });
});
