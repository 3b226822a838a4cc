import { rmSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AgentSnapshot } from '../../src/providers/types.js';
import { replicaAgent, supportSamSnapshot } from '../helpers/support-sam.js';
import { startFakeBrain } from '../helpers/fake-brain.js';
import { startServer, tempDir, type TestServer } from '../helpers/server.js';
import { storedAt, storedRows } from '../helpers/store-under-test.js';
import { startTarget, type Target } from '../helpers/target.js';

const snapshot = (): AgentSnapshot => supportSamSnapshot();

describe('executing scenarios: whole simulated conversations, scored', () => {
  let s: TestServer;
  let brain: Awaited<ReturnType<typeof startFakeBrain>>;
  let target: Target;
  let dataDir: string;
  let ids: { persona: string; scenario: string; scripted: string; scorecard: string };

  const setup = async (server: TestServer) => {
    const now = new Date().toISOString();
    await server.engine.store.agents.insert(
      replicaAgent({ id: 'agt_sam', providerAgentId: 'a1', snapshot: snapshot(), at: now }),
    );
    await server.call('POST', '/v1/tools', {
      name: 'order_status',
      description: 'Looks up an order',
      type: 'api',
      config: { url: `${target.url}/orders/{orderId}` },
      parameters: [{ name: 'orderId', type: 'string', required: true }],
      responseMapping: { status: 'order.status', tracking: 'order.tracking' },
    });
    const persona = (
      await server.ws('POST', '/personas', {
        name: 'Frank',
        prompt: 'A busy shop owner.',
        emotion: 'frustrated',
        difficulty: 'hard',
      })
    ).body.data.persona.id;
    const scorecard = (
      await server.ws('POST', '/scorecards', {
        name: 'Support',
        metrics: [
          {
            name: 'Gives tracking',
            category: 'accuracy',
            type: 'contains',
            config: { text: 'tracking' },
          },
          {
            name: 'Looks the order up',
            category: 'task completion',
            type: 'tool_called',
            config: { tool: 'order_status' },
            critical: true,
          },
          { name: 'Brief', category: 'efficiency', type: 'max_turns', config: { max: 5 } },
        ],
      })
    ).body.data.scorecard.id;
    const scripted = (
      await server.ws('POST', '/scenarios', {
        name: 'Late order (scripted)',
        prompt: 'Order {{order_id}} is late.',
        personas: [persona],
        targetAgents: ['agt_sam'],
        scorecard,
        promptVariables: [{ name: 'order_id', type: 'string', defaultValue: 'A1' }],
        script: [
          {
            say: 'Where is my order {{order_id}}?',
            expect: { contains: 'shipped', toolCalled: 'order_status' },
          },
          { say: 'Thanks, bye.', expect: { contains: 'goodbye' } },
        ],
      })
    ).body.data.scenario.id;
    const scenario = (
      await server.ws('POST', '/scenarios', {
        name: 'Late order (model caller)',
        prompt: 'Your order C3 is late and you want to know where it is.',
        personas: [persona],
        targetAgents: ['agt_sam'],
        scorecard,
        expectedOutcome: 'The caller learns where the order is',
      })
    ).body.data.scenario.id;
    return { persona, scenario, scripted, scorecard };
  };

  const engineOptions = () => ({
    dataDir,
    llmDefault: { kind: 'openai' as const, baseUrl: brain.url, apiKey: 'k', model: 'fake' },
    modelPolicy: { attempts: 2, baseDelayMs: 5, timeoutMs: 5_000 },
  });

  // The fake model and tool target answer the same to everyone; each test has its own engine.
  beforeAll(async () => {
    [brain, target] = await Promise.all([startFakeBrain(), startTarget()]);
  });
  afterAll(() => Promise.all([brain.stop(), target.stop()]));
  beforeEach(async () => {
    dataDir = tempDir();
    s = await startServer(engineOptions());
    ids = await setup(s);
  });
  afterEach(async () => {
    await s.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('scripted: 202, then a whole conversation with the replica agent, its tool called for real, scored', async () => {
    const res = await s.ws('POST', `/scenarios/${ids.scripted}/execute`, {
      variables: { order_id: 'B7' },
    });
    expect(res.status).toBe(202);
    expect(res.body.data.execution).toMatchObject({
      id: expect.stringMatching(/^exe_/),
      scenario_id: ids.scripted,
      status: 'queued',
      simulations_created: 1,
      estimated_completion: expect.any(String),
    });
    const done = (await s.ws('GET', `/executions/${res.body.data.execution.id}?wait=20`)).body.data
      .execution;
    expect(done).toMatchObject({
      status: 'completed',
      counts: { completed: 1, failed: 0 },
      avg_score: 100,
      pass_rate: 100,
      variables: { order_id: 'B7' },
    });
    const [sim] = (await s.ws('GET', `/executions/${done.id}/simulations`)).body.data.simulations;
    expect(sim).toMatchObject({
      status: 'completed',
      channel: 'replica',
      end_reason: 'agent_ended',
      score: 100,
      passed: true,
      persona_id: ids.persona,
      agent_id: 'agt_sam',
    });
    expect(sim.turns.map((t: { role: string; text: string }) => [t.role, t.text])).toEqual([
      ['agent', 'Hello, this is Sam. How can I help?'],
      ['caller', 'Where is my order B7?'],
      ['tool', ''],
      ['agent', 'Your order has shipped. Tracking TRK1.'],
      ['caller', 'Thanks, bye.'],
      ['agent', 'Goodbye!'],
    ]);
    expect(sim.turns[2].tool).toMatchObject({
      name: 'order_status',
      arguments: { orderId: 'B7' },
      result: { status: 'shipped', tracking: 'TRK1' },
      success: true,
    });
    expect(sim.turns[3]).toMatchObject({
      latency_ms: expect.any(Number),
      expectation: { passed: true, problems: [] },
    });
    expect(sim.results.map((r: { name: string; passed: boolean }) => [r.name, r.passed])).toEqual([
      ['Gives tracking', true],
      ['Looks the order up', true],
      ['Brief', true],
      ['Script expectations', true],
    ]);
    expect(sim.usage).toEqual({
      llm_calls: 3,
      input_tokens: 60,
      cached_input_tokens: 0,
      output_tokens: 24,
      by_model: [
        {
          role: 'replica',
          model: 'fake',
          llm_calls: 3,
          input_tokens: 60,
          cached_input_tokens: 0,
          output_tokens: 24,
        },
      ],
    });
    expect(target.last!.path).toBe('/orders/B7');
    // The tool call is logged as simulation traffic of this agent.
    const analytics = (await s.call('GET', '/v1/tools/order_status/analytics')).body;
    expect(analytics.usage).toMatchObject({ totalCalls: 1, uniqueAgents: 1 });
    // Lists and screens show names: the scenario's, the persona's and the agent's, as they are now.
    const names = {
      scenario_name: 'Late order (scripted)',
      persona_name: 'Frank',
      agent_name: 'Support Sam',
    };
    expect(sim).toMatchObject(names);
    expect((await s.ws('GET', `/simulations/${sim.id}`)).body.data.simulation).toMatchObject({
      id: sim.id,
      ...names,
    });
    const [summary] = (await s.ws('GET', `/simulations?execution_id=${done.id}`)).body.data
      .simulations;
    expect(summary).toMatchObject({ id: sim.id, ...names });
    expect(done.scenario_name).toBe('Late order (scripted)');
    await s.ws('PUT', `/personas/${ids.persona}`, { name: 'Franklin' });
    expect((await s.ws('GET', `/simulations/${sim.id}`)).body.data.simulation.persona_name).toBe(
      'Franklin',
    );
  });

  it('a failed script expectation fails the simulation and is recorded on its turn', async () => {
    const failing = (
      await s.ws('POST', '/scenarios', {
        name: 'Expect a refund',
        prompt: 'p',
        personas: [ids.persona],
        targetAgents: ['agt_sam'],
        script: [{ say: 'Where is my order D4?', expect: { contains: 'refund' } }],
      })
    ).body.data.scenario.id;
    const exe = (await s.ws('POST', `/scenarios/${failing}/execute`, {})).body.data.execution.id;
    await s.ws('GET', `/executions/${exe}?wait=20`);
    const [sim] = (await s.ws('GET', `/executions/${exe}/simulations`)).body.data.simulations;
    expect(sim).toMatchObject({ status: 'completed', passed: false, end_reason: 'caller_ended' });
    expect(sim.turns.find((t: { expectation?: unknown }) => t.expectation).expectation).toEqual({
      passed: false,
      problems: ['did not say "refund"'],
    });
  });

  it('model-played caller, judge for expectedOutcome; scenario and persona statistics follow', async () => {
    const exe = (await s.ws('POST', `/scenarios/${ids.scenario}/execute`, { runs: 2 })).body.data
      .execution;
    expect(exe.simulations_created).toBe(2);
    const done = (await s.ws('GET', `/executions/${exe.id}?wait=20`)).body.data.execution;
    expect(done).toMatchObject({ status: 'completed', counts: { completed: 2 } });
    const sims = (await s.ws('GET', `/executions/${exe.id}/simulations`)).body.data.simulations;
    for (const sim of sims) {
      expect(sim.end_reason).toBe('caller_ended');
      expect(sim.turns.at(-1)).toMatchObject({ role: 'caller', text: 'Great, thank you. Bye!' });
      expect(sim.results.find((r: { type: string }) => r.type === 'llm_judge')).toMatchObject({
        score: 90,
        passed: true,
      });
      expect(sim.score).toBe(97.5); // (100 + 100 + 100 + 90) / 4
    }
    expect(brain.calls.caller).toBeGreaterThanOrEqual(4);
    const stats = (await s.ws('GET', `/scenarios/${ids.scenario}`)).body.data.scenario.stats;
    expect(stats).toMatchObject({ total_simulations: 2, avg_score: 97.5, success_rate: 100 });
    expect(
      (await s.ws('GET', `/personas/${ids.persona}`)).body.data.persona.usage_stats
        .total_simulations,
    ).toBe(2);
    expect((await s.ws('GET', '/executions')).body.data.pagination.total).toBe(1);
  });

  it('refuses with a clear 400 what cannot run, and an unknown variable', async () => {
    const empty = (await s.ws('POST', '/scenarios', { name: 'Empty', prompt: 'p' })).body.data
      .scenario.id;
    const res = await s.ws('POST', `/scenarios/${empty}/execute`, {});
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual([
      'personas',
      'targetAgents',
    ]);
    const unknown = await s.ws('POST', `/scenarios/${ids.scripted}/execute`, {
      variables: { orderId: 'x' },
    });
    expect(unknown.body.error.details[0]).toMatchObject({ path: 'variables.orderId' });
    expect(
      (await s.ws('POST', `/scenarios/${ids.scripted}/execute`, { channel: 'provider' })).body.error
        .message,
    ).toContain('connect it again');
    expect((await s.ws('POST', '/scenarios/scn_nope/execute', {})).status).toBe(404);
  });

  it('cancel stops queued simulations at once', async () => {
    const exe = (await s.ws('POST', `/scenarios/${ids.scripted}/execute`, { runs: 20 })).body.data
      .execution.id;
    const cancelled = (await s.ws('POST', `/executions/${exe}/cancel`)).body.data.execution;
    expect(cancelled.status).toBe('cancelled');
    const done = (await s.ws('GET', `/executions/${exe}?wait=20`)).body.data.execution;
    expect(done.counts.cancelled).toBeGreaterThan(10);
    expect(done.counts.queued).toBe(0);
  });

  it('after a crash, a simulation that was running runs again from the start, exactly once', async () => {
    await s.stop();
    // Raw rows on purpose: the state a crash leaves behind, which no operation can make.
    const at = await storedAt(dataDir);
    const ws = (await storedRows<{ id: string }>(at, 'SELECT id FROM workspaces'))[0]!.id;
    const now = new Date().toISOString();
    await storedRows(
      at,
      // Its variables as the execute resolved them when it queued the execution.
      `INSERT INTO executions (id, workspace_id, scenario_id, status, created_at, variables) VALUES ('exe_crash', ?, ?, 'running', ?, '{"order_id":"A1"}')`,
      [ws, ids.scripted, now],
    );
    await storedRows(
      at,
      'INSERT INTO simulations (id, workspace_id, execution_id, scenario_id, persona_id, agent_id, channel, status, created_at, started_at, attempts, seq, turns) VALUES (\'sim_crash\', ?, \'exe_crash\', ?, ?, \'agt_sam\', \'replica\', \'running\', ?, ?, 1, 999, \'[{"role":"caller","text":"half","at_ms":0,"latency_ms":null}]\')',
      [ws, ids.scripted, ids.persona, now, now],
    );
    s = await startServer(engineOptions());
    const done = (await s.ws('GET', '/executions/exe_crash?wait=20')).body.data.execution;
    expect(done).toMatchObject({ status: 'completed', counts: { completed: 1 } });
    const sim = (await s.ws('GET', '/simulations/sim_crash')).body.data.simulation;
    expect(sim.turns[1]).toMatchObject({ role: 'caller', text: 'Where is my order A1?' });
    expect(
      await storedRows(s.stored, "SELECT attempts FROM simulations WHERE id = 'sim_crash'"),
    ).toEqual([{ attempts: 2 }]);
  });

  it('variables are resolved once, as the execution is queued: an edit of the scenario meanwhile changes none', async () => {
    // The scenario now declares another variable, with another default, than when it was queued.
    const edited = await s.ws('PUT', `/scenarios/${ids.scripted}`, {
      promptVariables: [
        { name: 'ref', type: 'string', defaultValue: 'R0' },
        { name: 'order_id', type: 'string', defaultValue: 'X9' },
      ],
      prompt: 'Order {{ref}} is late.',
      script: [{ say: 'Where is my order {{order_id}}, ref {{ref}}?' }],
    });
    expect(edited.status).toBe(200);
    await s.stop();
    // Raw rows on purpose: an execution queued before the edit, its variables as it resolved them.
    const at = await storedAt(dataDir);
    const ws = (await storedRows<{ id: string }>(at, 'SELECT id FROM workspaces'))[0]!.id;
    const now = new Date().toISOString();
    await storedRows(
      at,
      `INSERT INTO executions (id, workspace_id, scenario_id, status, created_at, variables) VALUES ('exe_queued', ?, ?, 'queued', ?, '{"order_id":"Q5"}')`,
      [ws, ids.scripted, now],
    );
    await storedRows(
      at,
      "INSERT INTO simulations (id, workspace_id, execution_id, scenario_id, persona_id, agent_id, channel, status, created_at, seq) VALUES ('sim_queued', ?, 'exe_queued', ?, ?, 'agt_sam', 'replica', 'queued', ?, 999)",
      [ws, ids.scripted, ids.persona, now],
    );
    s = await startServer(engineOptions());
    await s.ws('GET', '/executions/exe_queued?wait=20');
    const sim = (await s.ws('GET', '/simulations/sim_queued')).body.data.simulation;
    expect(sim).toMatchObject({ status: 'completed' });
    expect(sim.turns.find((t: { role: string }) => t.role === 'caller')).toMatchObject({
      text: 'Where is my order Q5, ref {{ref}}?',
    });
  });
});
