import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  startFakeProviders,
  vapiCall,
  GOOD_KEY,
  type FakeProviders,
} from '../helpers/fake-providers.js';
import { startServer, testClock, type TestServer } from '../helpers/server.js';
import { storedRows } from '../helpers/store-under-test.js';
import { FAST_RETRY, nextSync, syncEnds } from './helpers.js';

describe('provider connections: Vapi end to end', () => {
  // Each test has its own fake provider and engine: nothing leaks from one test to another.
  let s: TestServer;
  let p: FakeProviders;
  const clock = testClock(Date.parse('2026-06-10T12:00:00Z'));
  const connect = (over: Record<string, unknown> = {}) =>
    s.call('POST', '/v1/agents/connect', {
      provider: 'vapi',
      agent_id: 'asst_1',
      credentials: { api_key: GOOD_KEY, base_url: p.url },
      ...over,
    });
  /** Connects the assistant and waits for its first import; answers the agent's id. */
  const connected = async (): Promise<string> => {
    const syncs = syncEnds(s);
    const res = await connect();
    const id = res.body.id as string;
    const synced = await syncs.of(id);
    expect(synced.ok).toBe(true);
    return id;
  };

  beforeEach(async () => {
    p = await startFakeProviders();
    // 250 calls: three pages of 100, 100 and 50; plus one call of another assistant and a malformed record.
    p.state.vapiCalls = [
      ...Array.from({ length: 250 }, (_, i) => vapiCall(i)),
      vapiCall(999, 'other'),
      {
        createdAt: new Date(Date.parse('2026-06-01T12:00:00Z')).toISOString(),
        assistantId: 'asst_1',
        messages: 'garbage',
      },
    ];
    s = await startServer({ clock, providerRetry: FAST_RETRY });
  });
  afterEach(async () => {
    await s.stop();
    await p.stop();
  });

  it('connects: 201 with the agent mapped field by field, imported in the background', async () => {
    const res = await connect();
    expect(res.status).toBe(201);
    const agentId = res.body.id as string;
    const synced = nextSync(s, agentId);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^agt_/),
      name: 'Support Sam',
      provider: 'vapi',
      status: 'active',
      description: null,
      channel: 'provider',
      configuration: {
        model: { provider: 'openai', name: 'gpt-4o', temperature: 0.3, maxTokens: 250 },
        voice: { provider: '11labs', voiceId: 'voice_x', stability: 0.5, similarityBoost: 0.75 },
        prompt: 'You are Sam, a support agent.',
        firstMessage: 'Hi, this is Sam.',
        tools: [
          {
            name: 'order_status',
            description: 'Looks up an order',
            type: 'function',
            endpoint: 'https://crm.example/tools',
            method: 'POST',
            auth: 'bearer_token',
          },
          {
            name: 'faq',
            description: null,
            type: 'query',
            endpoint: null,
            method: null,
            auth: 'none',
          },
        ],
      },
      phoneNumbers: [{ number: '+15550001', provider: 'twilio', name: 'Main' }],
      knowledgeBases: [{ id: 'kb_1', name: 'FAQ' }],
      routingRules: [{ name: 'transfer', destinations: ['+15550100'] }],
      stats: { totalCalls: expect.any(Number), avgScore: null },
      sync: { status: 'running' },
      overrides: [],
    });
    expect(JSON.stringify(res.body)).not.toContain(GOOD_KEY);
    expect((await synced).ok).toBe(true);
    const agent = (await s.call('GET', `/v1/agents/${agentId}`)).body;
    expect(agent.sync).toMatchObject({
      status: 'idle',
      importedCalls: 250,
      error: null,
      lastSyncedAt: '2026-06-10T12:00:00.000Z',
    });
    // successEvaluation is false for every fourth call: 63 of 250, so 187 / 250 = 74.8%.
    expect(agent.stats).toEqual({ totalCalls: 250, avgScore: null, successRate: 74.8 });
    expect(p.hits.get('/call')).toBe(3);
  });

  it('stores the provider key encrypted only', async () => {
    await connected();
    const raw = JSON.stringify(await storedRows(s.stored, 'SELECT * FROM agents'));
    expect(raw).not.toContain(GOOD_KEY);
  });

  it('normalises calls: newest first, transcript with times from the call start, tool calls parsed', async () => {
    const agentId = await connected();
    const list = (await s.call('GET', `/v1/agents/${agentId}/calls?limit=2`)).body;
    expect(list.total).toBe(250);
    expect(list.calls.map((c: { providerCallId: string }) => c.providerCallId)).toEqual([
      'vc_249',
      'vc_248',
    ]);
    const id = (await s.call('GET', `/v1/agents/${agentId}/calls?limit=1&offset=248`)).body.calls[0]
      .id;
    const call = (await s.call('GET', `/v1/calls/${id}`)).body;
    expect(call).toEqual({
      id,
      agentId,
      providerCallId: 'vc_1',
      startedAt: '2026-06-01T10:01:00.000Z',
      endedAt: '2026-06-01T10:02:35.000Z',
      durationMs: 95_000,
      endReason: 'customer-ended-call',
      cost: 0.12,
      costOriginal: { amount: 0.12, unit: 'USD' },
      recordingUrl: 'https://rec.example/1.wav',
      summary: 'Call 1 about an order',
      successful: true,
      transcript: [
        { role: 'agent', text: 'Hi, how can I help?', startMs: 100, endMs: 1500 },
        { role: 'user', text: 'Where is order A1?', startMs: 2000, endMs: 3500 },
        { role: 'agent', text: 'It has shipped.', startMs: 4000, endMs: 5000 },
      ],
      toolCalls: [
        {
          name: 'order_status',
          arguments: { orderId: 'A1' },
          result: { status: 'shipped' },
          success: true,
          latencyMs: 250,
          // The tool_calls message's secondsFromStart.
          atMs: 3600,
        },
      ],
      // Started before the assistant's first synced version (connected on June 10).
      agentVersion: null,
      // Not scored: the agent has no monitoring.
      evaluation: null,
    });
    expect((await s.call('GET', '/v1/calls/call_nope')).status).toBe(404);
  });

  it("imported tool calls feed the tool log (source production) and the agent's tool figures", async () => {
    const agentId = await connected();
    const tools = (await s.call('GET', `/v1/agents/${agentId}/tools`)).body.tools;
    // Every fifth call's tool call failed: 50 of 250.
    expect(tools[0]).toEqual({
      name: 'order_status',
      description: 'Looks up an order',
      type: 'function',
      endpoint: 'https://crm.example/tools',
      method: 'POST',
      auth: 'bearer_token',
      successRate: 80,
      avgResponseTime: 250,
    });
    expect(tools[1]).toMatchObject({ name: 'faq', successRate: null, avgResponseTime: null });
  });

  it('keeps an error log: provider-error calls and failed tool calls, newest first', async () => {
    const agentId = await connected();
    const { errors, total } = (await s.call('GET', `/v1/agents/${agentId}/errors?limit=100`)).body;
    expect(total).toBe(25 + 50);
    expect(
      errors.every((e: { kind: string }) => ['call_error', 'tool_error'].includes(e.kind)),
    ).toBe(true);
    expect(errors.find((e: { kind: string }) => e.kind === 'call_error').message).toContain(
      'pipeline-error-openai-llm-failed',
    );
  });

  it('connecting the same agent again answers 200 with the same agent, no duplicate', async () => {
    const agentId = await connected();
    // Listened for before the request: the sync it starts may finish before the answer is read.
    const synced = nextSync(s, agentId);
    const again = await connect();
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(agentId);
    await synced;
    expect((await s.call('GET', '/v1/agents')).body.total).toBe(1);
    expect((await s.call('GET', `/v1/agents/${agentId}/calls`)).body.total).toBe(250);
  });

  it('answers connect failures in words: bad key 400, unknown agent 404, unreachable 502, unknown provider 400', async () => {
    const before = p.hits.get('/assistant/asst_1') ?? 0;
    const bad = await connect({ credentials: { api_key: 'wrong', base_url: p.url } });
    expect(bad.status).toBe(400);
    expect(p.hits.get('/assistant/asst_1')).toBe(before + 1); // nor a 401
    expect(bad.body.error).toMatchObject({
      code: 'provider_auth_failed',
      message: expect.stringContaining('refused the API key'),
    });
    const missing = await connect({ agent_id: 'asst_nope' });
    expect(missing.status).toBe(404);
    expect(p.hits.get('/assistant/asst_nope')).toBe(1); // a 404 is never retried
    expect(missing.body.error.code).toBe('provider_agent_not_found');
    const down = await connect({
      credentials: { api_key: GOOD_KEY, base_url: 'http://127.0.0.1:1' },
    });
    expect(down.status).toBe(502);
    expect(down.body.error.code).toBe('provider_unavailable');
    const unknown = await connect({ provider: 'synthflow' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain('vapi, retell, elevenlabs, bland');
  });

  it('a repeated sync is idempotent and imports only what is new', async () => {
    const agentId = await connected();
    p.state.vapiCalls.push(vapiCall(300));
    const done = nextSync(s, agentId);
    expect((await s.call('POST', `/v1/agents/${agentId}/sync`)).status).toBe(202);
    await done;
    expect((await s.call('GET', `/v1/agents/${agentId}/calls`)).body.total).toBe(251);
  });

  it('a stored credential that no longer opens marks the agent; the engine keeps serving', async () => {
    const agentId = await connected();
    // Damaged at rest: a sealed value no key opens.
    await storedRows(s.stored, 'UPDATE agents SET credentials = ? WHERE id = ?', [
      JSON.stringify({ $enc: Buffer.alloc(48, 1).toString('base64') }),
      agentId,
    ]);
    const done = nextSync(s, agentId);
    expect((await s.call('POST', `/v1/agents/${agentId}/sync`)).status).toBe(202);
    expect(await done).toMatchObject({ ok: false, error: expect.stringContaining('credentials') });
    const agent = (await s.call('GET', `/v1/agents/${agentId}`)).body;
    expect(agent.sync).toMatchObject({
      status: 'needs_credentials',
      error: expect.stringContaining('connect the agent again'),
    });
    expect((await s.call('GET', '/v1/tools')).status).toBe(200);
  });

  it('honours Retry-After on a 429, then succeeds', async () => {
    const agentId = await connected();
    p.state.throttleOnce.add('/assistant/');
    p.hits.delete('/assistant/asst_1');
    const done = nextSync(s, agentId);
    await s.call('POST', `/v1/agents/${agentId}/sync`);
    expect((await done).ok).toBe(true);
    expect(p.hits.get('/assistant/asst_1')).toBe(2);
  });

  it('local overrides are deep-merged, never sent to the provider, and survive syncs that change the snapshot', async () => {
    const agentId = await connected();
    const patched = await s.call('PATCH', `/v1/agents/${agentId}`, {
      configuration: { model: { temperature: 0.9 } },
      tags: ['prod', 'support'],
    });
    expect(patched.status).toBe(200);
    expect(patched.body.configuration.model).toEqual({
      provider: 'openai',
      name: 'gpt-4o',
      temperature: 0.9,
      maxTokens: 250,
    });
    expect(patched.body.overrides).toEqual(['configuration.model.temperature']);
    expect(patched.body.tags).toEqual(['prod', 'support']);
    expect(p.writes).toEqual([]);

    expect(p.writes).toEqual([]);
    // The provider changes the prompt and the temperature; ours stays in force, the prompt flows in.
    const events: unknown[] = [];
    const off = s.engine.events.subscribe(
      (e) => e.type === 'agent.config_changed' && events.push(e.data),
    );
    p.state.vapiAssistant.model.messages[0].content = 'You are Sam, now friendlier.';
    p.state.vapiAssistant.model.temperature = 0.1;
    const done = nextSync(s, agentId);
    await s.call('POST', `/v1/agents/${agentId}/sync`);
    await done;
    off();
    const after = (await s.call('GET', `/v1/agents/${agentId}`)).body;
    expect(after.configuration.prompt).toBe('You are Sam, now friendlier.');
    expect(after.configuration.model.temperature).toBe(0.9);
    expect(events).toEqual([
      { agentId, changedPaths: ['configuration.model.temperature', 'configuration.prompt'] },
    ]);

    const versions = (await s.call('GET', `/v1/agents/${agentId}/versions`)).body.versions;
    expect(versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect(versions[0]).toMatchObject({
      changedPaths: ['configuration.model.temperature', 'configuration.prompt'],
      configuration: { model: { temperature: 0.1 } },
    });
    expect(versions[1]).toMatchObject({
      changedPaths: [],
      configuration: { voice: { provider: '11labs' } },
    });

    const reset = await s.call('DELETE', `/v1/agents/${agentId}/overrides`);
    expect(reset.body).toMatchObject({
      overrides: [],
      configuration: { model: { temperature: 0.1 } },
    });
  });

  it('validates PATCH: unknown fields and out-of-range values are named', async () => {
    const agentId = await connected();
    const res = await s.call('PATCH', `/v1/agents/${agentId}`, {
      configuration: { model: { temprature: 1 }, voice: { stability: 2 } },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual([
      'configuration.model.temprature',
      'configuration.voice.stability',
    ]);
  });

  it('filters the list by tags', async () => {
    const agentId = await connected();
    await s.call('PATCH', `/v1/agents/${agentId}`, { tags: ['prod', 'support'] });
    expect((await s.call('GET', '/v1/agents?tags=prod,support')).body.total).toBe(1);
    expect((await s.call('GET', '/v1/agents?tags=prod,sales')).body).toEqual({
      agents: [],
      total: 0,
    });
  });

  it('a 500 in the middle of an import fails the sync, keeps the pages already in, and a later sync resumes without duplicates', async () => {
    // A fresh agent whose first import meets a failing third page.
    p.state.vapiAssistant.id = 'asst_1';
    const fresh = await startServer({ clock, providerRetry: FAST_RETRY });
    try {
      p.state.callListRequests = 0;
      p.state.failCallListsAfter = 2;
      const syncs = syncEnds(fresh);
      const res = await fresh.call('POST', '/v1/agents/connect', {
        provider: 'vapi',
        agent_id: 'asst_1',
        credentials: { api_key: GOOD_KEY, base_url: p.url },
      });
      const failed = await syncs.of(res.body.id);
      expect(failed.ok).toBe(false);
      const agent = (await fresh.call('GET', `/v1/agents/${res.body.id}`)).body;
      // Two pages of 100 arrived before the failure; one record in them was malformed (no id) and skipped.
      expect(agent.sync).toMatchObject({
        status: 'failed',
        importedCalls: 199,
        error: expect.stringContaining('answered 500'),
      });
      expect(
        (await fresh.call('GET', `/v1/agents/${res.body.id}/errors`)).body.errors[0],
      ).toMatchObject({ kind: 'sync_error' });

      p.state.failCallListsAfter = null;
      const done = nextSync(fresh, res.body.id);
      await fresh.call('POST', `/v1/agents/${res.body.id}/sync`);
      expect((await done).ok).toBe(true);
      expect((await fresh.call('GET', `/v1/agents/${res.body.id}`)).body.sync).toMatchObject({
        status: 'idle',
        importedCalls: 250,
      });
      const n = await storedRows(
        fresh.stored,
        'SELECT COUNT(*) AS n, COUNT(DISTINCT provider_call_id) AS d FROM calls',
      );
      expect(n).toEqual([{ n: 250, d: 250 }]);
    } finally {
      await fresh.stop();
    }
  });

  it('a 401 during sync marks the connection as needing new credentials', async () => {
    const agentId = await connected();
    p.state.revoked = true;
    const done = nextSync(s, agentId);
    await s.call('POST', `/v1/agents/${agentId}/sync`);
    expect((await done).ok).toBe(false);
    expect((await s.call('GET', `/v1/agents/${agentId}`)).body.sync).toMatchObject({
      status: 'needs_credentials',
      error: expect.stringContaining('401'),
    });
    p.state.revoked = false;
  });

  it('disconnecting keeps the history; purging removes it', async () => {
    const agentId = await connected();
    const res = await s.call('DELETE', `/v1/agents/${agentId}`);
    expect(res.body).toEqual({ deleted: true, id: agentId });
    const agent = (await s.call('GET', `/v1/agents/${agentId}`)).body;
    expect(agent).toMatchObject({ status: 'disconnected', stats: { totalCalls: 250 } });
    expect((await s.call('POST', `/v1/agents/${agentId}/sync`)).status).toBe(409);
    await s.call('DELETE', `/v1/agents/${agentId}?purge=true`);
    expect((await s.call('GET', `/v1/agents/${agentId}`)).status).toBe(404);
    expect(await storedRows(s.stored, 'SELECT COUNT(*) AS n FROM calls')).toEqual([{ n: 0 }]);
  });
});
