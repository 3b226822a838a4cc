import { describe, expect, it } from 'vitest';
import {
  metricsFor,
  scoreConversation,
  type Conversation,
  type Judge,
} from '../../src/simulations/scoring.js';
import type { AudioSummary } from '../../src/domain/audio.js';
import type { Metric } from '../../src/store/scorecards.js';

const conversation: Conversation = {
  endReason: 'agent_ended',
  turns: [
    { role: 'caller', text: 'Where is my order A1?', at_ms: 0, latency_ms: null },
    {
      role: 'tool',
      text: '',
      at_ms: 900,
      latency_ms: 120,
      tool: {
        name: 'order_status',
        arguments: { orderId: 'A1', verbose: true },
        result: { status: 'shipped' },
        success: true,
      },
    },
    {
      role: 'agent',
      text: 'Your order shipped. Tracking number 12345.',
      at_ms: 1000,
      latency_ms: 950,
    },
    { role: 'caller', text: 'Thanks', at_ms: 3000, latency_ms: null },
    { role: 'agent', text: 'Goodbye!', at_ms: 3500, latency_ms: 1800 },
  ],
};

let n = 0;
const metric = (
  type: string,
  config: Record<string, unknown>,
  extra: Partial<Metric> = {},
): Metric => ({
  id: `m${n++}`,
  name: type,
  category: 'accuracy',
  type,
  description: null,
  weight: 1,
  critical: false,
  config,
  ...extra,
});
const score = (m: Metric, judge: Judge | null = null) =>
  scoreConversation([m], conversation, 70, judge).then((s) => s.results[0]!);

describe('scoring a known conversation', () => {
  it("contains and not_contains read the agent's turns, case-insensitive unless asked", async () => {
    expect((await score(metric('contains', { text: 'TRACKING' }))).score).toBe(100);
    expect((await score(metric('contains', { text: 'TRACKING', caseSensitive: true }))).score).toBe(
      0,
    );
    expect((await score(metric('contains', { text: 'order A1' }))).score).toBe(0); // the caller said it, not the agent
    expect((await score(metric('not_contains', { text: 'sorry' }))).score).toBe(100);
    expect((await score(metric('not_contains', { text: 'goodbye' }))).score).toBe(0);
  });

  it('regex', async () => {
    expect(await score(metric('regex', { pattern: '\\d{5}' }))).toMatchObject({
      score: 100,
      reasoning: expect.stringContaining('12345'),
    });
    expect((await score(metric('regex', { pattern: '^refund', flags: 'i' }))).score).toBe(0);
  });

  it('regex matches in linear time: a catastrophic pattern on a long reply ends at once', async () => {
    const long: Conversation = {
      endReason: 'agent_ended',
      turns: [{ role: 'agent', text: `${'a'.repeat(40_000)}b`, at_ms: 0, latency_ms: 10 }],
    };
    // CPU time, not wall-clock: other programs busy on the machine do not count against it (a
    // backtracking match would take years of it).
    const started = process.cpuUsage();
    const [result] = (
      await scoreConversation([metric('regex', { pattern: '(a+)+$' })], long, 70, null)
    ).results;
    expect(result!.score).toBe(0);
    const spent = process.cpuUsage(started);
    expect((spent.user + spent.system) / 1000).toBeLessThan(1_000);
  });

  it('tool_called with arguments that must be included, and tool_not_called', async () => {
    expect((await score(metric('tool_called', { tool: 'order_status' }))).score).toBe(100);
    expect(
      (await score(metric('tool_called', { tool: 'order_status', arguments: { orderId: 'A1' } })))
        .score,
    ).toBe(100);
    expect(
      await score(metric('tool_called', { tool: 'order_status', arguments: { orderId: 'B2' } })),
    ).toMatchObject({ score: 0, reasoning: expect.stringContaining('never with') });
    expect((await score(metric('tool_called', { tool: 'refund' }))).score).toBe(0);
    expect((await score(metric('tool_not_called', { tool: 'refund' }))).score).toBe(100);
    expect((await score(metric('tool_not_called', { tool: 'order_status' }))).score).toBe(0);
  });

  it('max_turns counts agent replies; max_latency_ms takes the slowest reply; ended_by', async () => {
    expect((await score(metric('max_turns', { max: 2 }))).score).toBe(100);
    expect((await score(metric('max_turns', { max: 1 }))).score).toBe(0);
    expect((await score(metric('max_latency_ms', { max: 1800 }))).score).toBe(100);
    expect(await score(metric('max_latency_ms', { max: 1000 }))).toMatchObject({
      score: 0,
      reasoning: 'The slowest agent reply took 1800 ms (at most 1000).',
    });
    expect((await score(metric('ended_by', { who: 'agent' }))).score).toBe(100);
    expect((await score(metric('ended_by', { who: 'caller' }))).score).toBe(0);
  });

  it('llm_judge asks the judge; a judge that fails is an error, never a pass', async () => {
    const judge: Judge = ({ criterion }) =>
      Promise.resolve({
        score: criterion.includes('polite') ? 85 : 20,
        reasoning: 'judged',
      });
    expect(await score(metric('llm_judge', { criterion: 'Was polite' }), judge)).toMatchObject({
      score: 85,
      passed: true,
      reasoning: 'judged',
    });
    const failing: Judge = () => {
      return Promise.reject(new Error('malformed judge answer twice'));
    };
    const result = await scoreConversation(
      [metric('llm_judge', { criterion: 'x' }), metric('contains', { text: 'shipped' })],
      conversation,
      70,
      failing,
    );
    expect(result.results[0]).toMatchObject({
      score: null,
      passed: false,
      error: 'malformed judge answer twice',
    });
    expect(result).toMatchObject({ score: 100, passed: false });
    expect((await score(metric('llm_judge', { criterion: 'x' }), null)).error).toBe(
      'no judge model configured',
    );
  });

  it('weighted mean; passed at the threshold unless a critical metric failed', async () => {
    const pass = metric('contains', { text: 'shipped' }, { weight: 3 });
    const fail = metric('contains', { text: 'refund' }, { weight: 1 });
    expect(await scoreConversation([pass, fail], conversation, 75, null)).toMatchObject({
      score: 75,
      passed: true,
    });
    expect(await scoreConversation([pass, fail], conversation, 76, null)).toMatchObject({
      score: 75,
      passed: false,
    });
    expect(
      await scoreConversation([pass, { ...fail, critical: true }], conversation, 50, null),
    ).toMatchObject({ score: 75, passed: false });
  });

  it('expectedBehavior and expectedOutcome add metrics even without a scorecard; none at all scores null', async () => {
    const metrics = metricsFor(
      null,
      { toolCalls: ['order_status', 'refund'] },
      'The caller learns where the order is',
    );
    expect(metrics.map((m) => [m.type, m.config])).toEqual([
      ['tool_called', { tool: 'order_status' }],
      ['tool_called', { tool: 'refund' }],
      ['llm_judge', { criterion: 'The caller learns where the order is' }],
    ]);
    const judge: Judge = () => Promise.resolve({ score: 90, reasoning: 'yes' });
    expect(await scoreConversation(metrics, conversation, 70, judge)).toMatchObject({
      score: 63.33,
      passed: false,
    });
    expect(await scoreConversation(metricsFor(null, null, null), conversation, 70, null)).toEqual({
      score: null,
      passed: null,
      results: [],
    });
  });

  it("script is a metric type: a script's expectations gate the verdict, never the score", async () => {
    const script = [{ say: 'Where is my order?', expect: { contains: 'shipped' } }];
    const brief = metric('max_turns', { max: 1 });
    const metrics = metricsFor({ metrics: [brief] }, null, null, script);
    expect(metrics.map((m) => m.type)).toEqual(['max_turns', 'script']);
    // No expectation in the script: no script metric.
    expect(metricsFor(null, null, null, [{ say: 'Hi' }])).toEqual([]);
    const held = { ...conversation, failedExpectations: [] };
    const broken = {
      ...conversation,
      failedExpectations: ['After "Hi" the agent did not say "x".'],
    };
    expect((await scoreConversation(metrics, held, 70, null)).results[1]).toEqual({
      metric_id: 'script',
      name: 'Script expectations',
      category: 'script',
      type: 'script',
      score: 100,
      passed: true,
      status: 'passed',
      reasoning: 'Every expectation of the script held.',
    });
    // The score is the scorecard's alone; a broken expectation fails even a passing scorecard.
    const passing = metricsFor({ metrics: [{ ...brief, config: { max: 5 } }] }, null, null, script);
    expect(await scoreConversation(passing, broken, 70, null)).toMatchObject({
      score: 100,
      passed: false,
      results: [
        { passed: true },
        { score: 0, passed: false, reasoning: broken.failedExpectations[0] },
      ],
    });
    expect(await scoreConversation(metrics, held, 70, null)).toMatchObject({
      score: 0,
      passed: false,
    });
    // Scored by the script alone: no score, passed when its expectations held.
    const alone = metricsFor(null, null, null, script);
    expect(await scoreConversation(alone, held, 70, null)).toMatchObject({
      score: null,
      passed: true,
    });
    expect(await scoreConversation(alone, broken, 70, null)).toMatchObject({
      score: null,
      passed: false,
    });
  });

  it('max_false_yields judges a call with no backchannel: no false yield, said so', async () => {
    // Only what the metric reads of an audio call's caller figures.
    const audio = { caller: { backchannels: { count: 0, false_yields: 0 } } };
    const quiet = { ...conversation, audio: audio as unknown as AudioSummary };
    const [result] = (
      await scoreConversation([metric('max_false_yields', { max: 0 })], quiet, 70, null)
    ).results;
    expect(result).toMatchObject({ score: 100, passed: true });
    expect(result!.error).toBeUndefined();
    expect(result!.reasoning).toBe(
      'No backchannel came up on this call, so the agent had none to stop for: 0 false yields (at most 0).',
    );
  });
});
