import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import type { Json } from '../helpers/json.js';

/** The demo end to end through the API: no model, no key, nothing reachable but loopback. */
describe('POST /v1/demo', () => {
  let s: TestServer | undefined;
  afterEach(async () => {
    await s?.stop();
    s = undefined;
  });

  /** Waits for an execution of the demo workspace and answers its simulations. */
  async function simulationsOf(ws: string, executionId: string): Promise<Json[]> {
    const base = `/api/v1/workspaces/${ws}/executions/${executionId}`;
    const done = await s!.call('GET', `${base}?wait=90`);
    expect(done.body.data.execution.status).not.toBe('running');
    return (await s!.call('GET', `${base}/simulations`)).body.data.simulations as Json[];
  }

  it('runs text and audio to a pass, and a second run reuses what the first made', async () => {
    s = await startServer();
    const first = await s.call('POST', '/v1/demo', {});
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    const { workspaceId, agentId, scenarioId, scorecardId, executionIds } = first.body as {
      workspaceId: string;
      agentId: string;
      scenarioId: string;
      scorecardId: string;
      executionIds: string[];
    };
    expect(executionIds).toHaveLength(2);
    const [text, audio] = await Promise.all(
      executionIds.map((id) => simulationsOf(workspaceId, id)),
    );
    for (const sims of [text!, audio!]) {
      expect(sims).toHaveLength(1);
      const sim = sims[0]!;
      const failed = (sim.results as Json[]).filter((r) => r.passed === false);
      expect(sim.status, JSON.stringify(sim.error ?? failed)).toBe('completed');
      expect(sim.passed, JSON.stringify(failed)).toBe(true);
    }
    // Audio figures do not apply to the text run: left out of its verdict, said so.
    const latency = (text![0]!.results as Json[]).find(
      (r) => r.type === 'max_response_latency_ms',
    )!;
    expect(latency).toMatchObject({ passed: null, score: null, not_applicable: true });
    expect(audio![0]!.mode).toBe('audio');
    const toolTurn = (audio![0]!.turns as Json[]).find((t) => t.tool);
    expect(toolTurn?.tool).toMatchObject({ name: 'order_status' });

    const second = await s.call('POST', '/v1/demo', { mode: 'text' });
    expect(second.status).toBe(202);
    expect(second.body).toMatchObject({ workspaceId, agentId, scenarioId, scorecardId });
    expect(second.body.executionIds).toHaveLength(1);
    expect(second.body.executionIds[0]).not.toBe(executionIds[0]);
    const workspaces = (await s.call('GET', '/api/v1/workspaces')).body.data.workspaces as Json[];
    expect(workspaces.filter((w) => w.name === 'Demo')).toHaveLength(1);
    const agents = (await s.call('GET', '/v1/agents')).body.agents as Json[];
    expect(agents.filter((a) => a.provider === 'demo')).toHaveLength(1);
    await simulationsOf(workspaceId, second.body.executionIds[0] as string);
  }, 120_000);

  /** Turns one knob of the demo agent and runs the demo in `mode`: the one simulation. */
  async function demoWith(knobs: Json, mode: 'text' | 'audio'): Promise<Json> {
    s = await startServer();
    const made = await s.call('POST', '/v1/demo', { mode: 'text' });
    await simulationsOf(made.body.workspaceId as string, made.body.executionIds[0]);
    const patched = await s.call('PATCH', `/v1/agents/${made.body.agentId}`, {
      configuration: { demo: knobs },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.configuration.demo).toMatchObject(knobs);
    const run = await s.call('POST', '/v1/demo', { mode });
    const [sim] = await simulationsOf(run.body.workspaceId as string, run.body.executionIds[0]);
    return sim!;
  }

  const resultOf = (sim: Json, type: string) =>
    (sim.results as Json[]).find((r) => r.type === type)!;

  it('answerDelayMs fails response latency in audio, and not the first audio', async () => {
    const sim = await demoWith({ answerDelayMs: 2500 }, 'audio');
    expect(sim.passed).toBe(false);
    expect(resultOf(sim, 'max_response_latency_ms').passed).toBe(false);
    expect(resultOf(sim, 'max_time_to_first_audio_ms').passed).toBe(true);
    expect(resultOf(sim, 'max_talk_over_ms').passed).toBe(true);
  }, 120_000);

  it('talkOverCaller fails talk-over in audio', async () => {
    const sim = await demoWith({ talkOverCaller: true }, 'audio');
    expect(sim.passed).toBe(false);
    expect(resultOf(sim, 'max_talk_over_ms')).toMatchObject({ passed: false });
    expect(sim.audio.talk_over).toMatchObject({ count: expect.any(Number) });
    expect(sim.audio.talk_over.count).toBeGreaterThan(0);
  }, 120_000);

  it('hangUpAfter ends the call early, and the script says what went missing', async () => {
    const sim = await demoWith({ hangUpAfter: 1 }, 'text');
    expect(sim.passed).toBe(false);
    expect(sim.end_reason).toBe('agent_ended');
    expect(resultOf(sim, 'tool_called').passed).toBe(false);
  }, 120_000);

  it('refuses knobs on another agent, and a demo agent through connect', async () => {
    s = await startServer();
    const connect = await s.call('POST', '/v1/agents/connect', {
      provider: 'demo',
      agent_id: 'demo',
      credentials: {},
    });
    expect(connect.status).toBe(400);
    expect(connect.body.error.details[0].path).toBe('provider');
    const http = await s.call('POST', '/v1/agents/connect', {
      provider: 'http',
      agent_id: 'mine',
      credentials: { base_url: 'http://127.0.0.1:9/chat' },
    });
    const knob = await s.call('PATCH', `/v1/agents/${http.body.id}`, {
      configuration: { demo: { answerDelayMs: 10 } },
    });
    expect(knob.status).toBe(400);
    expect(knob.body.error.details[0].path).toBe('configuration.demo');
    const bad = await s.call('POST', '/v1/demo', { mode: 'video' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe('mode');
  });

  it('is refused by an engine whose outbound guard never calls loopback, making nothing', async () => {
    s = await startServer({ outboundGuard: true, outboundAllow: [] });
    const refused = await s.call('POST', '/v1/demo', {});
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/loopback/);
    expect(((await s.call('GET', '/v1/agents')).body.agents as Json[]).length).toBe(0);
  });
});
