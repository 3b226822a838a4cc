import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Metric } from '../../src/domain/scorecards.js';
import { callConversation } from '../../src/simulations/call-conversation.js';
import { scoreConversation } from '../../src/simulations/scoring.js';
import type { StoredCall } from '../../src/store/calls.js';
import {
  GOOD_KEY,
  startFakeProviders,
  T0,
  vapiCall,
  type FakeProviders,
} from '../helpers/fake-providers.js';
import type { JsonObject } from '../helpers/json.js';
import { startServer, testClock, type TestServer } from '../helpers/server.js';
import { FAST_RETRY, syncEnds } from './helpers.js';

/**
 * Imported calls as conversations to score: each provider's tool calls timed from the call's start
 * (`atMs`), placed by that time among the transcript's turns, and the call's latency figures
 * measured from its transcript times, or not applicable where the record cannot tell.
 */

/** A Vapi call as GET /call answers it: replies whose latencies are given, `overlapMs` into the caller's last line. */
function vapiTimedCall(id: string, at: number, latencies: number[], endedReason: string) {
  const start = T0 + at;
  const messages: JsonObject[] = [];
  let t = 300;
  const say = (role: 'bot' | 'user', message: string, from: number, ms: number) =>
    messages.push({
      role,
      message,
      time: start + from,
      endTime: start + from + ms,
      secondsFromStart: from / 1000,
      duration: ms,
    });
  say('bot', 'Hello, Sam speaking.', t, 1000);
  t += 1500;
  latencies.forEach((latency, i) => {
    say('user', `Question ${i}?`, t, 1000);
    t += 1000 + latency;
    say('bot', `Answer ${i}.`, t, 1000);
    t += 1500;
  });
  // The caller speaks, and the agent starts 600 ms before they stop: it talks over them.
  say('user', 'One last thing, about my address', t, 2000);
  say('bot', 'Goodbye!', t + 1400, 800);
  return {
    ...vapiCall(0),
    id,
    startedAt: new Date(start).toISOString(),
    createdAt: new Date(start - 500).toISOString(),
    endedAt: new Date(start + t + 3000).toISOString(),
    endedReason,
    messages,
  };
}

/** The fake's standard Vapi call with no times at all (a record that kept only the words). */
function untimedVapiCall(i: number): JsonObject {
  const c = vapiCall(i);
  return {
    ...c,
    endedReason: 'voicemail',
    messages: (c.messages as JsonObject[]).map(
      ({ time: _t, endTime: _e, secondsFromStart: _s, ...rest }) => rest,
    ),
  };
}

const metric = (type: string, config: Record<string, unknown>, id = type): Metric => ({
  id,
  name: id,
  category: 'timing',
  type,
  description: null,
  weight: 1,
  critical: false,
  config,
});

const AUDIO_ONLY = [
  metric('max_asr_wer', { max: 0.2 }),
  metric('max_false_yields', { max: 1 }),
  metric('max_barge_in_stop_ms', { max: 500, on: 'max' }),
  metric('reprompts_after_silence', { withinMs: 5000 }),
];

describe('imported calls as conversations: tool times, latency from the transcript, not applicable', () => {
  let s: TestServer;
  let p: FakeProviders;
  const clock = testClock(Date.parse('2026-06-10T12:00:00Z'));
  const calls = new Map<string, StoredCall>();

  /** Connects the agent, waits for its import, keeps its calls by provider call id. */
  const importAll = async (provider: string, agentId: string) => {
    const syncs = syncEnds(s);
    const res = await s.call('POST', '/v1/agents/connect', {
      provider,
      agent_id: agentId,
      credentials: { api_key: GOOD_KEY, base_url: p.url },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await syncs.of(res.body.id)).ok).toBe(true);
    const listed = (await s.call('GET', `/v1/agents/${res.body.id}/calls?limit=100`)).body;
    for (const c of listed.calls as StoredCall[]) calls.set(c.providerCallId, c);
  };
  const answered = async (providerCallId: string) => {
    const res = await s.call('GET', `/v1/calls/${calls.get(providerCallId)!.id}`);
    expect(res.status).toBe(200);
    return res.body as StoredCall;
  };

  beforeAll(async () => {
    p = await startFakeProviders();
    const timeOnly = vapiCall(2);
    // An older record: its tool_calls message has the epoch time but no secondsFromStart.
    timeOnly.messages = (timeOnly.messages as JsonObject[]).map((m) =>
      m.role === 'tool_calls'
        ? { ...m, secondsFromStart: undefined, time: Date.parse(String(timeOnly.startedAt)) + 2700 }
        : m,
    );
    p.state.vapiCalls = [
      vapiCall(1),
      timeOnly,
      untimedVapiCall(3),
      vapiTimedCall(
        'vc_timed',
        10 * 60_000,
        [100, 200, 300, 400, 500, 600, 700, 800, 900, 3000],
        'customer-ended-call',
      ),
    ];
    p.state.retellCalls = [
      {
        call_id: 'rc_1',
        agent_id: 'ret_1',
        call_status: 'ended',
        start_timestamp: T0,
        end_timestamp: T0 + 30_000,
        duration_ms: 30_000,
        disconnection_reason: 'agent_hangup',
        call_analysis: { call_summary: 'Stock', call_successful: true },
        transcript_with_tool_calls: [
          {
            role: 'agent',
            content: 'Hello from Rita',
            words: [{ word: 'Hello', start: 0.2, end: 1.3 }],
          },
          { role: 'user', content: 'Is the blue one in stock?', words: [{ start: 2, end: 3.5 }] },
          {
            role: 'tool_call_invocation',
            tool_call_id: 't1',
            name: 'check_stock',
            arguments: '{"sku":"blue"}',
          },
          {
            role: 'tool_call_result',
            tool_call_id: 't1',
            content: '{"in_stock":true}',
            successful: true,
          },
          { role: 'agent', content: 'Yes it is.', words: [] },
        ],
      },
    ];
    p.state.elevenConversations = [
      {
        conversation_id: 'ec_1',
        agent_id: 'el_1',
        status: 'done',
        metadata: {
          start_time_unix_secs: Math.floor(T0 / 1000),
          call_duration_secs: 42,
          termination_reason: 'end_call tool was called.',
        },
        analysis: { call_successful: 'success', transcript_summary: 'Refund' },
        transcript: [
          { role: 'agent', message: 'Hi, Eve here', time_in_call_secs: 0.4 },
          { role: 'user', message: 'I want a refund', time_in_call_secs: 3 },
          {
            role: 'agent',
            message: 'Let me issue it.',
            time_in_call_secs: 5.5,
            tool_calls: [
              { request_id: 'r1', tool_name: 'refund', params_as_json: '{"amount": 20}' },
            ],
          },
          {
            role: 'agent',
            message: null,
            time_in_call_secs: 6.25,
            tool_results: [
              {
                request_id: 'r1',
                tool_name: 'refund',
                result_value: '{"ok":true}',
                is_error: false,
                tool_latency_secs: 0.42,
              },
            ],
          },
          { role: 'agent', message: 'Done, refunded.', time_in_call_secs: 7 },
        ],
      },
    ];
    s = await startServer({ clock, providerRetry: FAST_RETRY });
    await importAll('vapi', 'asst_1');
    await importAll('retell', 'ret_1');
    await importAll('elevenlabs', 'el_1');
  });
  afterAll(async () => {
    await s.stop();
    await p.stop();
  });

  it("Vapi: a tool call's atMs is its tool_calls message's secondsFromStart, else its time less the call's start", async () => {
    expect((await answered('vc_1')).toolCalls).toEqual([
      expect.objectContaining({ name: 'order_status', atMs: 3600, latencyMs: 250 }),
    ]);
    expect((await answered('vc_2')).toolCalls).toEqual([
      expect.objectContaining({ name: 'order_status', atMs: 2700 }),
    ]);
    expect((await answered('vc_3')).toolCalls).toEqual([
      expect.objectContaining({ name: 'order_status', atMs: null }),
    ]);
  });

  it('Retell: an invocation carries no time of its own, so it sits where the speech before it ended', async () => {
    expect((await answered('rc_1')).toolCalls).toEqual([
      expect.objectContaining({ name: 'check_stock', atMs: 3500, result: { in_stock: true } }),
    ]);
  });

  it('ElevenLabs: a tool call is at the time_in_call_secs of the turn that asked for it', async () => {
    expect((await answered('ec_1')).toolCalls).toEqual([
      expect.objectContaining({ name: 'refund', atMs: 5500, latencyMs: 420 }),
    ]);
  });

  it('places tool turns by time among the transcript turns (caller = user), indexes as the judge numbers them', () => {
    const roles = (id: string) =>
      callConversation(calls.get(id)!).turns.map((t) =>
        t.role === 'tool' ? `tool ${t.tool!.name}@${t.at_ms}` : `${t.role}: ${t.text}`,
      );
    expect(roles('vc_1')).toEqual([
      'agent: Hi, how can I help?',
      'caller: Where is order A1?',
      'tool order_status@3600',
      'agent: It has shipped.',
    ]);
    // Retell's untimed last reply still comes after the tool call asked before it.
    expect(roles('rc_1')).toEqual([
      'agent: Hello from Rita',
      'caller: Is the blue one in stock?',
      'tool check_stock@3500',
      'agent: Yes it is.',
    ]);
    // A tool call listed on a turn comes after that turn's words.
    expect(roles('ec_1')).toEqual([
      'agent: Hi, Eve here',
      'caller: I want a refund',
      'agent: Let me issue it.',
      'tool refund@5500',
      'agent: Done, refunded.',
    ]);
    // Without any time the tool call comes last.
    expect(roles('vc_3').at(-1)).toBe('tool order_status@0');
    const tool = callConversation(calls.get('vc_1')!).turns[2]!;
    expect(tool.tool).toEqual({
      name: 'order_status',
      arguments: { orderId: 'A1' },
      result: { status: 'shipped' },
      success: true,
    });
  });

  it('scores latency, response latency (p90 or max), first audio, talk-over and ended_by on a timed call', async () => {
    const c = callConversation(calls.get('vc_timed')!);
    const agentLatencies = c.turns.filter((t) => t.role === 'agent').map((t) => t.latency_ms);
    // The greeting answers nobody; the last reply talked over the caller: neither is a reply latency.
    expect(agentLatencies).toEqual([null, 100, 200, 300, 400, 500, 600, 700, 800, 900, 3000, null]);
    const metrics = [
      metric('max_latency_ms', { max: 2000 }),
      metric('max_response_latency_ms', { max: 1000, on: 'p90' }, 'p90'),
      metric('max_response_latency_ms', { max: 1000, on: 'max' }, 'slowest'),
      metric('max_time_to_first_audio_ms', { max: 250 }, 'first_audio_tight'),
      metric('max_time_to_first_audio_ms', { max: 400 }, 'first_audio'),
      metric('max_talk_over_ms', { max: 500 }, 'talk_over_tight'),
      metric('max_talk_over_ms', { max: 600 }, 'talk_over'),
      metric('ended_by', { who: 'caller' }),
      metric('ended_by', { who: 'agent' }, 'ended_by_agent'),
    ];
    const { results } = await scoreConversation(metrics, c, 70, null);
    const by = Object.fromEntries(results.map((r) => [r.metric_id, r]));
    expect(by.max_latency_ms).toMatchObject({ status: 'failed', passed: false });
    expect(by.max_latency_ms!.reasoning).toContain('3000 ms');
    expect(by.p90).toMatchObject({ status: 'passed', passed: true });
    expect(by.p90!.reasoning).toContain('900 ms');
    expect(by.slowest).toMatchObject({ status: 'failed' });
    expect(by.slowest!.reasoning).toContain('3000 ms');
    expect(by.first_audio_tight).toMatchObject({ status: 'failed' });
    expect(by.first_audio).toMatchObject({ status: 'passed' });
    expect(by.first_audio!.reasoning).toContain('300 ms');
    expect(by.talk_over_tight).toMatchObject({ status: 'failed' });
    expect(by.talk_over).toMatchObject({ status: 'passed' });
    expect(by.talk_over!.reasoning).toContain('600 ms');
    expect(by.ended_by).toMatchObject({ status: 'passed' });
    expect(by.ended_by_agent).toMatchObject({ status: 'failed' });
  });

  it('a call without times: every latency metric and ended_by (voicemail says neither side) are not applicable', async () => {
    const c = callConversation(calls.get('vc_3')!);
    const metrics = [
      metric('max_latency_ms', { max: 2000 }),
      metric('max_response_latency_ms', { max: 1000, on: 'p90' }),
      metric('max_time_to_first_audio_ms', { max: 400 }),
      metric('max_talk_over_ms', { max: 600 }),
      metric('ended_by', { who: 'caller' }),
      metric('contains', { text: 'shipped' }),
    ];
    const scored = await scoreConversation(metrics, c, 70, null);
    for (const r of scored.results.slice(0, 5)) {
      expect(r, r.metric_id).toMatchObject({
        status: 'not_applicable',
        score: null,
        passed: null,
        reasoning: expect.stringMatching(/^Not applicable: .+/),
      });
      expect(r.error).toBeUndefined();
    }
    // Left out of the score and the verdict: the one applicable metric decides both.
    expect(scored).toMatchObject({ score: 100, passed: true });
  });

  it('ElevenLabs times starts only: first audio is measured, reply latency and talk-over are not applicable', async () => {
    const c = callConversation(calls.get('ec_1')!);
    const { results } = await scoreConversation(
      [
        metric('max_time_to_first_audio_ms', { max: 300 }),
        metric('max_latency_ms', { max: 2000 }),
        metric('max_response_latency_ms', { max: 1000, on: 'max' }),
        metric('max_talk_over_ms', { max: 600 }),
        metric('ended_by', { who: 'agent' }),
      ],
      c,
      70,
      null,
    );
    expect(results.map((r) => [r.metric_id, r.status])).toEqual([
      ['max_time_to_first_audio_ms', 'failed'],
      ['max_latency_ms', 'not_applicable'],
      ['max_response_latency_ms', 'not_applicable'],
      ['max_talk_over_ms', 'not_applicable'],
      ['ended_by', 'passed'],
    ]);
    expect(results[0]!.reasoning).toContain('400 ms');
    expect(results[1]!.reasoning).toContain('times when turns start');
  });

  it('every audio-only metric is not applicable on an imported call, timed or not, and weighs nothing', async () => {
    for (const id of ['vc_timed', 'vc_3', 'rc_1', 'ec_1']) {
      const scored = await scoreConversation(
        [...AUDIO_ONLY, metric('contains', { text: 'zebra' })],
        callConversation(calls.get(id)!),
        70,
        null,
      );
      expect(
        scored.results.slice(0, 4).map((r) => [r.metric_id, r.status, r.score, r.passed]),
      ).toEqual(AUDIO_ONLY.map((m) => [m.id, 'not_applicable', null, null]));
      for (const r of scored.results.slice(0, 4)) {
        expect(r.error).toBeUndefined();
        expect(r.reasoning).toMatch(/^Not applicable: an imported call's record/);
      }
      expect(scored).toMatchObject({ score: 0, passed: false });
    }
  });
});
