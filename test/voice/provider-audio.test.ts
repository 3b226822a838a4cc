import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOOD_KEY, startFakeProviders, type FakeProviders } from '../helpers/fake-providers.js';
import { createPersona } from '../helpers/http-agents.js';
import type { Json } from '../helpers/json.js';
import { startServer, type TestServer } from '../helpers/server.js';

/**
 * Audio calls to agents connected through their providers (the fake provider serves both the REST
 * API the agents were synced from and each provider's audio socket): what the agent said comes
 * from the provider's own text, and what it heard of the caller is kept beside the caller's line.
 */
describe('audio simulations through the providers', () => {
  let s: TestServer;
  let providers: FakeProviders;
  const agents: Record<string, string> = {};
  let persona: string;

  beforeAll(async () => {
    providers = await startFakeProviders({
      voice: {
        delayMs: 400,
        burst: true,
        replies: ['Your order has shipped.', 'You are welcome, goodbye.'],
        heardTexts: ['where is my order', 'thanks goodbye'],
      },
    });
    s = await startServer();
    const creds = { api_key: GOOD_KEY, base_url: providers.url };
    for (const [name, provider, id] of [
      ['vapi', 'vapi', 'asst_1'],
      ['eleven', 'elevenlabs', 'el_1'],
      ['retell', 'retell', 'ret_1'],
    ] as const) {
      const res = await s.call('POST', '/v1/agents/connect', {
        provider,
        agent_id: id,
        credentials: creds,
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      agents[name] = res.body.id as string;
    }
    persona = await createPersona(s, 'Robin');
  }, 60_000);

  afterAll(async () => {
    await s?.stop();
    await providers?.stop();
  });

  const scenarioFor = async (targetAgents: string[]) => {
    const res = await s.ws('POST', '/scenarios', {
      name: `Audio ${Math.random()}`,
      prompt: 'Ask where the order is.',
      personas: [persona],
      targetAgents,
      script: [
        { say: 'Hello, where is my order?', expect: { contains: 'shipped' } },
        { say: 'Thanks, goodbye.' },
      ],
    });
    return res.body.data.scenario.id as string;
  };

  const runAudio = async (agent: string): Promise<Json> => {
    const scenario = await scenarioFor([agent]);
    const res = await s.ws('POST', `/scenarios/${scenario}/execute`, { mode: 'audio' });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const id = res.body.data.execution.id as string;
    const done = await s.ws('GET', `/executions/${id}?wait=60`);
    expect(done.body.data.execution.audio.calls).toBe(1);
    const sims = await s.ws('GET', `/executions/${id}/simulations`);
    return sims.body.data.simulations[0];
  };

  it('Vapi: the call record gives the agent’s words and what it heard', async () => {
    const sim = await runAudio(agents.vapi!);
    expect(sim.status, sim.error).toBe('completed');
    expect(sim.audio.transport).toBe('vapi');
    expect(sim.audio.call_id).toBeTruthy();
    const agentTurns = (sim.turns as Json[]).filter((t) => t.role === 'agent');
    expect(agentTurns.map((t) => t.source)).toContain('provider_record');
    expect(agentTurns.map((t) => t.text).join(' ')).toContain('shipped');
    const callerTurns = (sim.turns as Json[]).filter((t) => t.role === 'caller');
    expect(callerTurns[0]!.heard).toBe('where is my order');
    expect(sim.audio.provider_transcript.length).toBeGreaterThan(0);
    expect(sim.passed).toBe(true);
  }, 60_000);

  it('ElevenLabs: its agent_response events are the agent’s words, user_transcript what it heard', async () => {
    const sim = await runAudio(agents.eleven!);
    expect(sim.status, sim.error).toBe('completed');
    expect(sim.audio.transport).toBe('elevenlabs');
    const agentTurns = (sim.turns as Json[]).filter((t) => t.role === 'agent');
    expect(agentTurns.every((t) => t.source === 'provider')).toBe(true);
    expect(agentTurns.map((t) => t.text).join(' ')).toContain('shipped');
    const callerTurns = (sim.turns as Json[]).filter((t) => t.role === 'caller');
    expect(callerTurns[0]!.heard).toBe('where is my order');
    // A call answered in bursts (faster than real time) is still timed from its playout.
    for (const t of agentTurns.filter((t) => t.latency_ms !== null))
      expect(t.latency_ms).toBeGreaterThan(300);
  }, 60_000);

  it('Retell is refused up front, saying why', async () => {
    const scenario = await scenarioFor([agents.retell!]);
    const res = await s.ws('POST', `/scenarios/${scenario}/execute`, { mode: 'audio' });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.error.details)).toMatch(/WebRTC/);
  });
});
