import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOOD_KEY, startFakeProviders, T0, type FakeProviders } from '../helpers/fake-providers.js';
import { startServer, testClock, type TestServer } from '../helpers/server.js';
import { FAST_RETRY, syncEnds } from './helpers.js';

describe('provider connections: Retell, ElevenLabs, Bland', () => {
  let s: TestServer;
  let p: FakeProviders;
  const clock = testClock(Date.parse('2026-06-10T12:00:00Z'));
  const connect = async (provider: string, agentId: string) => {
    const syncs = syncEnds(s);
    const res = await s.call('POST', '/v1/agents/connect', {
      provider,
      agent_id: agentId,
      credentials: { api_key: GOOD_KEY, base_url: p.url },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const synced = await syncs.of(res.body.id);
    expect(synced.ok, synced.error).toBe(true);
    return (await s.call('GET', `/v1/agents/${res.body.id}`)).body;
  };
  /** The oldest call: the list is newest first. */
  const firstCall = async (agentId: string) => {
    const { total } = (await s.call('GET', `/v1/agents/${agentId}/calls?limit=1`)).body;
    return (await s.call('GET', `/v1/agents/${agentId}/calls?limit=1&offset=${total - 1}`)).body
      .calls[0];
  };

  beforeAll(async () => {
    p = await startFakeProviders();
    p.state.retellCalls = Array.from({ length: 230 }, (_, i) => ({
      call_id: `rc_${i}`,
      agent_id: 'ret_1',
      call_status: i === 7 ? 'error' : 'ended',
      start_timestamp: T0 + i * 60_000,
      end_timestamp: T0 + i * 60_000 + 30_000,
      duration_ms: 30_000,
      disconnection_reason: i === 7 ? 'error_llm_websocket_open' : 'user_hangup',
      call_cost: { combined_cost: 12.5, product_costs: [] },
      recording_url: null,
      call_analysis: {
        call_summary: 'Asked about stock',
        call_successful: i % 2 === 0,
        user_sentiment: 'Neutral',
      },
      transcript_with_tool_calls: [
        {
          role: 'agent',
          content: 'Hello from Rita',
          words: [
            { word: 'Hello', start: 0.2, end: 0.5 },
            { word: 'Rita', start: 0.9, end: 1.3 },
          ],
        },
        { role: 'user', content: 'Is the blue one in stock?', words: [{ start: 2, end: 3.5 }] },
        {
          role: 'tool_call_invocation',
          tool_call_id: `t${i}`,
          name: 'check_stock',
          arguments: '{"sku":"blue"}',
        },
        {
          role: 'tool_call_result',
          tool_call_id: `t${i}`,
          content: '{"in_stock":true}',
          successful: true,
        },
        { role: 'agent', content: 'Yes it is.', words: [] },
      ],
    }));
    p.state.elevenConversations = Array.from({ length: 120 }, (_, i) => ({
      conversation_id: `ec_${i}`,
      agent_id: 'el_1',
      status: 'done',
      metadata: {
        start_time_unix_secs: Math.floor(T0 / 1000) + i * 60,
        call_duration_secs: 42,
        cost: 350,
        termination_reason: 'end_call tool was called.',
      },
      analysis: {
        call_successful: i % 3 === 0 ? 'failure' : 'success',
        transcript_summary: 'Refund asked',
        evaluation_criteria_results: {},
      },
      transcript: [
        { role: 'agent', message: 'Hi, Eve here', time_in_call_secs: 0 },
        { role: 'user', message: 'I want a refund', time_in_call_secs: 3, tool_calls: [] },
        {
          role: 'agent',
          message: null,
          time_in_call_secs: 5,
          tool_calls: [{ request_id: 'r1', tool_name: 'refund', params_as_json: '{"amount": 20}' }],
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
        { role: 'agent', message: 'Done, refunded.', time_in_call_secs: 6 },
      ],
    }));
    s = await startServer({ clock, providerRetry: FAST_RETRY });
  });
  afterAll(async () => {
    await s.stop();
    await p.stop();
  });

  it('Retell: agent from the agent and its Retell LLM; calls by cursor, each read whole; cents to USD', async () => {
    const agent = await connect('retell', 'ret_1');
    expect(agent).toMatchObject({
      name: 'Retail Rita',
      provider: 'retell',
      channel: 'provider',
      configuration: {
        model: { provider: null, name: 'gpt-4o-mini', temperature: 0.2, maxTokens: null },
        voice: { provider: null, voiceId: '11labs-Adrian', stability: null, similarityBoost: null },
        prompt: 'You are Rita.',
        firstMessage: 'Hello from Rita',
        tools: [
          {
            name: 'check_stock',
            description: 'Stock lookup',
            type: 'custom',
            endpoint: 'https://shop.example/stock',
            method: 'GET',
            auth: 'bearer_token',
          },
        ],
      },
      phoneNumbers: [{ number: '+15550300', provider: 'retell', name: 'Shop' }],
      knowledgeBases: [{ id: 'kbr_1', name: 'Catalog' }],
      routingRules: [{ name: 'to_human', destinations: ['+15550199'] }],
      stats: { totalCalls: 230, successRate: 50 },
    });
    expect(p.hits.get('/v3/list-calls')).toBe(3);
    expect(p.hits.get('/v2/get-call/rc_0')).toBe(1);
    const call = await firstCall(agent.id);
    expect(call).toMatchObject({
      providerCallId: 'rc_0',
      startedAt: new Date(T0).toISOString(),
      durationMs: 30_000,
      endReason: 'user_hangup',
      cost: 0.125,
      costOriginal: { amount: 12.5, unit: 'cents' },
      recordingUrl: null,
      summary: 'Asked about stock',
      successful: true,
      transcript: [
        { role: 'agent', text: 'Hello from Rita', startMs: 200, endMs: 1300 },
        { role: 'user', text: 'Is the blue one in stock?', startMs: 2000, endMs: 3500 },
        { role: 'agent', text: 'Yes it is.', startMs: null, endMs: null },
      ],
      toolCalls: [
        {
          name: 'check_stock',
          arguments: { sku: 'blue' },
          result: { in_stock: true },
          success: true,
          latencyMs: null,
        },
      ],
    });
    const errors = (await s.call('GET', `/v1/agents/${agent.id}/errors`)).body.errors;
    expect(errors).toEqual([
      expect.objectContaining({
        kind: 'call_error',
        message: expect.stringContaining('error_llm_websocket_open'),
      }),
    ]);
  });

  it('ElevenLabs: conversation_config paths, -1 max tokens is null, credits are not USD, turn times in ms', async () => {
    const agent = await connect('elevenlabs', 'el_1');
    expect(agent).toMatchObject({
      name: 'Eleven Eve',
      provider: 'elevenlabs',
      tags: ['prod', 'billing'],
      configuration: {
        model: { provider: null, name: 'gemini-2.0-flash', temperature: 0.4, maxTokens: null },
        voice: {
          provider: 'elevenlabs',
          voiceId: 'eve_voice',
          stability: 0.6,
          similarityBoost: 0.8,
        },
        prompt: 'You are Eve.',
        firstMessage: 'Hi, Eve here',
        tools: [
          {
            name: 'refund',
            description: 'Issue a refund',
            type: 'webhook',
            endpoint: 'https://pay.example/refund',
            method: 'POST',
            auth: 'api_key',
          },
        ],
      },
      phoneNumbers: [{ number: '+15550400', provider: 'twilio', name: 'Billing line' }],
      knowledgeBases: [{ id: 'kbe_1', name: 'Billing FAQ' }],
      stats: { totalCalls: 120, successRate: 66.67 },
    });
    expect((await s.call('GET', '/v1/agents?tags=billing')).body.total).toBe(1);
    const call = await firstCall(agent.id);
    expect(call).toMatchObject({
      providerCallId: 'ec_0',
      startedAt: new Date(T0).toISOString(),
      endedAt: new Date(T0 + 42_000).toISOString(),
      durationMs: 42_000,
      cost: null,
      costOriginal: { amount: 350, unit: 'credits' },
      successful: false,
      summary: 'Refund asked',
      transcript: [
        { role: 'agent', text: 'Hi, Eve here', startMs: 0, endMs: 3000 },
        { role: 'user', text: 'I want a refund', startMs: 3000, endMs: 5000 },
        { role: 'agent', text: 'Done, refunded.', startMs: 6000, endMs: null },
      ],
      toolCalls: [
        {
          name: 'refund',
          arguments: { amount: 20 },
          result: { ok: true },
          success: true,
          latencyMs: 420,
        },
      ],
    });
  });

  it('Bland: a web agent, calls in minutes and USD, no invented fields', async () => {
    const agent = await connect('bland', 'bl_1');
    expect(agent).toMatchObject({
      name: 'Bland Bob',
      provider: 'bland',
      channel: 'replica',
      configuration: {
        model: { provider: null, name: 'enhanced', temperature: 0.7, maxTokens: null },
        voice: { provider: null, voiceId: 'maya', stability: null, similarityBoost: null },
        prompt: 'You are Bob.',
        firstMessage: 'Bob here.',
      },
      stats: { totalCalls: 1, successRate: 100 },
    });
    const call = await firstCall(agent.id);
    expect(call).toMatchObject({
      providerCallId: 'bc_1',
      durationMs: 90_000,
      cost: 0.135,
      costOriginal: { amount: 0.135, unit: 'USD' },
      endReason: 'USER',
      toolCalls: [],
    });
    expect(call.transcript.map((t: { role: string; text: string }) => [t.role, t.text])).toEqual([
      ['user', 'Hello'],
      ['agent', 'Hi there'],
    ]);
    expect(call.transcript[1].startMs - call.transcript[0].startMs).toBe(2000);
  });

  it('the same provider key is never logged or answered', async () => {
    const all = JSON.stringify((await s.call('GET', '/v1/agents')).body);
    expect(all).not.toContain(GOOD_KEY);
  });
});
