import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProviders, T0, vapiCall, type FakeProviders } from '../helpers/fake-providers.js';
import type { JsonObject } from '../helpers/json.js';
import { startServer, testClock, type TestServer } from '../helpers/server.js';
import { connectSam } from './production-helpers.js';

/** A Vapi call whose caller speaks three times, the agent answering the first two only. */
function longerCall(): JsonObject {
  const call = vapiCall(7);
  const start = T0 + 7 * 60_000;
  const say = (role: string, message: string, at: number) => ({
    role,
    message,
    time: start + at,
    endTime: start + at + 500,
    secondsFromStart: at / 1000,
  });
  return {
    ...call,
    messages: [
      { role: 'system', message: 'You are a support agent', time: start, secondsFromStart: 0 },
      say('bot', 'Hi, how can I help?', 100),
      say('user', 'Where is order A1?', 1_000),
      say('bot', 'Let me check.', 2_000),
      say('bot', 'It has shipped.', 3_000),
      say('user', 'Thanks, and order B2?', 4_000),
      say('bot', 'B2 is on its way.', 5_000),
      say('user', 'Bye', 6_000),
    ],
  };
}

/** POST /v1/calls/{id}/scenario: a persona and a scenario replaying an imported call. */
describe('a scenario made from an imported call', () => {
  let s: TestServer;
  let p: FakeProviders;
  let agentId: string;
  const byProviderId = new Map<string, string>();

  beforeAll(async () => {
    p = await startFakeProviders();
    p.state.vapiCalls = [longerCall(), { ...vapiCall(8), analysis: { summary: null } }];
    s = await startServer({ clock: testClock(Date.parse('2026-06-10T12:00:00Z')) });
    agentId = await connectSam(s, p);
    const listed = (await s.call('GET', `/v1/agents/${agentId}/calls`)).body.calls as {
      id: string;
      providerCallId: string;
    }[];
    for (const c of listed) byProviderId.set(c.providerCallId, c.id);
    expect([...byProviderId.keys()].sort()).toEqual(['vc_7', 'vc_8']);
  });
  afterAll(async () => {
    await s.stop();
    await p.stop();
  });

  const scenarioCount = async () =>
    (await s.ws('GET', '/scenarios')).body.data.pagination.total as number;

  it("answers 201 with the caller's persona and the scenario: script, references, agent, tag, summary", async () => {
    const callId = byProviderId.get('vc_7')!;
    const res = await s.call('POST', `/v1/calls/${callId}/scenario`, {
      workspaceId: s.workspaceId,
      name: 'Order A1 and B2',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { scenario, persona } = res.body;
    expect(persona).toMatchObject({ name: 'Caller of vc_7', tags: ['production'], language: 'en' });
    expect(persona.prompt).toContain('Support Sam');
    expect(persona.prompt).toContain('"Where is order A1?"');
    expect(scenario).toMatchObject({
      name: 'Order A1 and B2',
      prompt: 'Call 7 about an order',
      personas: [persona.id],
      targetAgents: [agentId],
      tags: ['production'],
      script: [
        { say: 'Where is order A1?', reference: 'Let me check. It has shipped.' },
        { say: 'Thanks, and order B2?', reference: 'B2 is on its way.' },
        { say: 'Bye' },
      ],
    });
    expect(scenario.script[2]).not.toHaveProperty('reference');
    // Stored in the workspace as answered, and a scenario like any other: its script takes an update back.
    const stored = (await s.ws('GET', `/scenarios/${scenario.id}`)).body.data.scenario;
    expect(stored).toMatchObject({ script: scenario.script, personas: [persona.id] });
    expect((await s.ws('GET', `/personas/${persona.id}`)).body.data.persona.name).toBe(
      'Caller of vc_7',
    );
    const patched = await s.ws('PUT', `/scenarios/${scenario.id}`, { script: scenario.script });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  });

  it('a call without a summary: a prompt saying what the call was; a default name', async () => {
    const res = await s.call('POST', `/v1/calls/${byProviderId.get('vc_8')!}/scenario`, {
      workspaceId: s.workspaceId,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const { scenario } = res.body;
    expect(scenario.name).toBe('Support Sam: call vc_8 (2026-06-01)');
    expect(scenario.prompt).toContain('Replay a real call to Support Sam on 2026-06-01');
    expect(scenario.prompt).toContain('provider call vc_8');
    expect(scenario.script).toEqual([{ say: 'Where is order A1?', reference: 'It has shipped.' }]);
  });

  it('refuses an unknown call (404), an unknown workspace and unknown fields (400 naming them); creates nothing', async () => {
    const before = await scenarioCount();
    const personas = (await s.ws('GET', '/personas')).body.data.pagination.total as number;
    const unknownCall = await s.call('POST', '/v1/calls/call_nope/scenario', {
      workspaceId: s.workspaceId,
    });
    expect(unknownCall.status).toBe(404);
    const callId = byProviderId.get('vc_7')!;
    const unknownWs = await s.call('POST', `/v1/calls/${callId}/scenario`, {
      workspaceId: 'ws_nope',
    });
    expect(unknownWs.status).toBe(400);
    expect(unknownWs.body.error.details).toEqual([
      { path: 'workspaceId', message: 'unknown workspace id: ws_nope' },
    ]);
    const extra = await s.call('POST', `/v1/calls/${callId}/scenario`, {
      workspaceId: s.workspaceId,
      tags: ['x'],
    });
    expect(extra.status).toBe(400);
    expect(JSON.stringify(extra.body.error)).toContain('tags');
    const noWs = await s.call('POST', `/v1/calls/${callId}/scenario`, {});
    expect(noWs.status).toBe(400);
    expect(JSON.stringify(noWs.body.error)).toContain('workspaceId');
    expect(await scenarioCount()).toBe(before);
    expect((await s.ws('GET', '/personas')).body.data.pagination.total).toBe(personas);
  });
});
