import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createModelClient } from '../../src/llm/client.js';
import { emptyUsage, type ModelConnection } from '../../src/llm/types.js';
import { modelJudge } from '../../src/simulations/judge.js';
import {
  scoreConversation,
  type Conversation,
  type MetricResult,
} from '../../src/simulations/scoring.js';
import type { Metric } from '../../src/store/scorecards.js';
import { startFakeModels } from '../helpers/fake-models.js';
import type { Json } from '../helpers/json.js';

/**
 * The judge on a real model client against a fake model server speaking the OpenAI and Anthropic
 * wire formats: numbered turns, one structured request per metric, evidence held to its turn,
 * requirements, the retry of a malformed answer, and what each result records.
 */

const FAST = { attempts: 1, baseDelayMs: 1, timeoutMs: 10_000 };

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
        name: 'lookup_order',
        arguments: { orderId: 'A1' },
        result: { status: 'shipped' },
        success: true,
      },
    },
    {
      role: 'agent',
      text: "Your order shipped yesterday -- it'll arrive Friday.",
      at_ms: 1000,
      latency_ms: 950,
    },
    { role: 'caller', text: 'Thanks', at_ms: 3000, latency_ms: null },
    { role: 'agent', text: 'Goodbye!', at_ms: 3500, latency_ms: 300 },
  ],
};

const judgeMetric = (config: Json, id = 'polite'): Metric => ({
  id,
  name: id,
  category: 'tone',
  type: 'llm_judge',
  description: null,
  weight: 1,
  critical: false,
  config,
});

/** The canonical JSON of {criterion, requirements}, written out by hand: keys sorted, no spaces. */
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the judge: evidence, requirements, one structured request', () => {
  let models: Awaited<ReturnType<typeof startFakeModels>>;
  let openai: ModelConnection;
  let anthropic: ModelConnection;
  beforeAll(async () => {
    models = await startFakeModels();
    openai = { kind: 'openai', baseUrl: `${models.url}/v1`, apiKey: 'sk-test', model: 'judge-1' };
    anthropic = { kind: 'anthropic', baseUrl: models.url, apiKey: 'sk-ant', model: 'claude-j' };
  });
  afterAll(() => models.stop());
  beforeEach(() => {
    models.requests.length = 0;
  });

  const score = (metrics: Metric[], c = conversation, connection = openai) =>
    scoreConversation(
      metrics,
      c,
      70,
      modelJudge(createModelClient(connection, FAST), emptyUsage()),
    );

  const answer = (verdict: Json) => models.openai(JSON.stringify(verdict));

  it('prints one numbered turn per line (tool turns included) and asks with a JSON schema', async () => {
    answer({ score: 80, reasoning: 'Polite.', evidence: [] });
    await score([judgeMetric({ criterion: 'Was polite' })]);
    expect(models.requests).toHaveLength(1);
    const body = models.requests[0]!.body;
    const question = body.messages.find((m: Json) => m.role === 'user').content as string;
    expect(question).toContain(
      [
        '0. Caller: Where is my order A1?',
        '1. [tool lookup_order {"orderId":"A1"} -> {"status":"shipped"}]',
        "2. Agent: Your order shipped yesterday -- it'll arrive Friday.",
        '3. Caller: Thanks',
        '4. Agent: Goodbye!',
      ].join('\n'),
    );
    expect(body.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: {
        name: 'record_verdict',
        strict: true,
        schema: { required: ['score', 'reasoning', 'evidence'], additionalProperties: false },
      },
    });
  });

  it('a quote that is there with other case, spacing and punctuation passes', async () => {
    answer({
      score: 90,
      reasoning: 'It said when.',
      evidence: [
        { turn: 2, quote: 'your ORDER shipped yesterday it ll  arrive friday' },
        { turn: 1, quote: 'lookup_order' },
      ],
    });
    const scored = await score([judgeMetric({ criterion: 'Says when the order arrives' })]);
    expect(scored).toMatchObject({ score: 90, passed: true });
    expect(scored.results[0]).toMatchObject({
      status: 'passed',
      score: 90,
      evidence: [
        { turn: 2, quote: 'your ORDER shipped yesterday it ll  arrive friday' },
        { turn: 1, quote: 'lookup_order' },
      ],
    });
    expect(scored.results[0]!.error).toBeUndefined();
  });

  it('a quote its turn does not hold, or a turn number out of range, is an error: the conversation does not pass', async () => {
    const contains: Metric = {
      ...judgeMetric({}, 'says-arrive'),
      type: 'contains',
      config: { text: 'arrive' },
    };
    answer({
      score: 95,
      reasoning: 'It apologised.',
      evidence: [{ turn: 2, quote: 'We are very sorry' }],
    });
    const misquoted = await score([judgeMetric({ criterion: 'Apologises' }), contains]);
    expect(misquoted.passed).toBe(false);
    expect(misquoted.results[0]).toMatchObject({
      status: 'error',
      score: null,
      passed: false,
      reasoning: 'It apologised.',
      evidence: [{ turn: 2, quote: 'We are very sorry' }],
    });
    expect(misquoted.results[0]!.error).toBe(
      `the judge's evidence is not in the conversation: turn 2 does not say "We are very sorry"`,
    );
    // The words are in the conversation, but not in the turn the judge named.
    answer({ score: 95, reasoning: 'Thanked.', evidence: [{ turn: 4, quote: 'Thanks' }] });
    expect((await score([judgeMetric({ criterion: 'Thanks' })])).results[0]).toMatchObject({
      status: 'error',
      error: `the judge's evidence is not in the conversation: turn 4 does not say "Thanks"`,
    });
    answer({ score: 95, reasoning: 'Bye.', evidence: [{ turn: 5, quote: 'Goodbye' }] });
    const outOfRange = await score([judgeMetric({ criterion: 'Says goodbye' })]);
    expect(outOfRange).toMatchObject({ passed: false });
    expect(outOfRange.results[0]).toMatchObject({
      status: 'error',
      error: `the judge's evidence is not in the conversation: turn 5 is not in the conversation (turns 0 to 4), quoted "Goodbye"`,
    });
  });

  it('answers every requirement in one request: the score is the share met, listed in order', async () => {
    const requirements = [
      'Greets the caller',
      'Looks the order up',
      'Says when it arrives',
      'Offers more help',
    ];
    answer({
      // Out of order on purpose: they are read by number.
      requirements: [
        { requirement: 3, met: true },
        { requirement: 1, met: false },
        { requirement: 2, met: true },
        { requirement: 4, met: true },
      ],
      reasoning: 'No greeting.',
      evidence: [{ turn: 1, quote: 'lookup_order' }],
    });
    const scored = await score([judgeMetric({ criterion: 'Handles the order', requirements })]);
    expect(models.requests).toHaveLength(1);
    const body = models.requests[0]!.body;
    const question = body.messages.find((m: Json) => m.role === 'user').content as string;
    expect(question).toContain(
      '1. Greets the caller\n2. Looks the order up\n3. Says when it arrives\n4. Offers more help',
    );
    expect(body.response_format.json_schema.schema.required).toEqual([
      'requirements',
      'reasoning',
      'evidence',
    ]);
    expect(scored.results[0]).toMatchObject({
      status: 'passed',
      score: 75,
      passed: true,
      requirements: [
        { text: 'Greets the caller', met: false },
        { text: 'Looks the order up', met: true },
        { text: 'Says when it arrives', met: true },
        { text: 'Offers more help', met: true },
      ],
    });
  });

  it('records judge_model and rubric_hash (SHA-256 of the canonical JSON of criterion and requirements)', async () => {
    answer({ score: 60, reasoning: 'ok', evidence: [] });
    answer({ requirements: [{ requirement: 1, met: true }], reasoning: 'ok', evidence: [] });
    const { results } = await score([
      judgeMetric({ criterion: 'Was polite' }, 'a'),
      judgeMetric({ criterion: 'Was polite', requirements: ['Says please'] }, 'b'),
    ]);
    expect(results.map((r: MetricResult) => [r.judge_model, r.rubric_hash])).toEqual([
      ['judge-1', sha256('{"criterion":"Was polite","requirements":[]}')],
      ['judge-1', sha256('{"criterion":"Was polite","requirements":["Says please"]}')],
    ]);
  });

  it('a malformed answer is asked once more; twice malformed, an error with the raw reason', async () => {
    models.openai('{"score": "high", "reasoning": "ok", "evidence": []}');
    answer({ score: 70, reasoning: 'ok', evidence: [] });
    const retried = await score([judgeMetric({ criterion: 'Was polite' })]);
    expect(models.requests).toHaveLength(2);
    expect(retried.results[0]).toMatchObject({ status: 'passed', score: 70 });

    models.requests.length = 0;
    models.openai('I think it was fine.');
    models.openai('{"score": 70, "reasoning": "ok"}');
    // Nothing more is queued: a third request would get the fake's 500, another error.
    const failed = await score([judgeMetric({ criterion: 'Was polite' })]);
    expect(models.requests).toHaveLength(2);
    expect(failed.passed).toBe(false);
    expect(failed.results[0]).toMatchObject({ status: 'error', score: null, passed: false });
    expect(failed.results[0]!.error).toBe(
      'the judge model answered in the wrong shape twice: evidence: Invalid input: expected array, received undefined (answer: {"score": 70, "reasoning": "ok"})',
    );
  });

  it('a server that refuses the JSON schema (400) is asked without one, the shape in the prompt', async () => {
    models.fail(400);
    answer({ score: 65, reasoning: 'ok', evidence: [{ turn: 4, quote: 'Goodbye' }] });
    const scored = await score([judgeMetric({ criterion: 'Was polite' })]);
    expect(models.requests).toHaveLength(2);
    expect(models.requests[0]!.body.response_format).toBeDefined();
    expect(models.requests[1]!.body.response_format).toBeUndefined();
    expect(models.requests[1]!.body.messages.at(-1).content).toContain(
      'Answer {"score": <0 (not at all) to 100 (fully)>, "reasoning": "...", "evidence": [{"turn": <number>, "quote": "..."}]}',
    );
    expect(scored.results[0]).toMatchObject({ status: 'passed', score: 65 });
  });

  it('Anthropic: the verdict is a forced tool call', async () => {
    models.anthropicTool('record_verdict', {
      score: 40,
      reasoning: 'Curt.',
      evidence: [{ turn: 4, quote: 'goodbye' }],
    });
    const scored = await score([judgeMetric({ criterion: 'Was warm' })], conversation, anthropic);
    const body = models.requests[0]!.body;
    expect(models.requests[0]!.path).toBe('/v1/messages');
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'record_verdict' });
    expect(body.tools[0]).toMatchObject({
      name: 'record_verdict',
      input_schema: { required: ['score', 'reasoning', 'evidence'] },
    });
    expect(scored.results[0]).toMatchObject({
      status: 'failed',
      score: 40,
      passed: false,
      judge_model: 'claude-j',
      evidence: [{ turn: 4, quote: 'goodbye' }],
    });
  });

  it('shows a reference answer beside its turn, marked as the reference', async () => {
    answer({ score: 80, reasoning: 'ok', evidence: [] });
    await score([judgeMetric({ criterion: 'Matches the reference' })], {
      ...conversation,
      references: { 0: 'It shipped and arrives Friday.' },
    });
    const question = models.requests[0]!.body.messages.find((m: Json) => m.role === 'user')
      .content as string;
    expect(question).toContain(
      '0. Caller: Where is my order A1?  (reference answer: "It shipped and arrives Friday.")\n1. [tool',
    );
  });
});

describe('not applicable results', () => {
  const metric = (type: string, config: Json): Metric => ({
    ...judgeMetric(config, type),
    type,
    category: 'audio',
  });

  it('score and passed null, a reasoning, no error, the old flag kept; left out of score and verdict', async () => {
    const contains = { ...metric('contains', { text: 'Goodbye' }), category: 'close' };
    const textRun = await scoreConversation(
      [metric('max_talk_over_ms', { max: 100 }), contains],
      conversation,
      70,
      null,
    );
    expect(textRun).toMatchObject({ score: 100, passed: true });
    const [na] = textRun.results;
    expect(na).toEqual({
      metric_id: 'max_talk_over_ms',
      name: 'max_talk_over_ms',
      category: 'audio',
      type: 'max_talk_over_ms',
      score: null,
      passed: null,
      status: 'not_applicable',
      not_applicable: true,
      reasoning:
        'Not applicable: only audio simulations measure this, and this one ran in text mode.',
    });
    // A conversation says what it cannot compute (an imported call): any metric type, its reason.
    const call = {
      ...conversation,
      notApplicable: { max_asr_wer: 'the provider reports no recognition of the caller.' },
    };
    const scored = await scoreConversation(
      [metric('max_asr_wer', { max: 0.1 }), contains],
      call,
      70,
      null,
    );
    expect(scored).toMatchObject({ score: 100, passed: true });
    expect(scored.results[0]).toMatchObject({
      status: 'not_applicable',
      score: null,
      passed: null,
      reasoning: 'Not applicable: the provider reports no recognition of the caller.',
    });
    expect(scored.results[0]!.error).toBeUndefined();
    expect(scored.results[1]).toMatchObject({ status: 'passed', score: 100 });
  });
});
