import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AgentSnapshot } from '../../src/providers/types.js';
import { GOOD_KEY, startFakeProviders, type FakeProviders } from '../helpers/fake-providers.js';
import type { Json } from '../helpers/json.js';
import { startReceiver } from '../helpers/receivers.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { nextSync, syncEnds } from '../providers/helpers.js';
import {
  RUDE,
  seedSuiteScenarios,
  startPromptModel,
  suiteRuns,
  type SuiteRunView,
} from './helpers.js';

/**
 * The drift suite: a sync that records a new version runs the agent's suite once, on that agent
 * alone; the next version's run is compared with it, and an agent_regression alert fires naming
 * the scenarios that got worse and the comparison. Runs on SQLite, and on PostgreSQL with
 * CALLBENCH_TEST_STORE=postgres.
 */

const otherSnapshot: AgentSnapshot = {
  name: 'Other agent',
  description: null,
  phoneNumbers: [],
  knowledgeBases: [],
  routingRules: [],
  tags: [],
  textChat: false,
  configuration: {
    model: { provider: 'openai', name: 'm', temperature: 0.2, maxTokens: 100 },
    voice: { provider: null, voiceId: null, stability: null, similarityBoost: null },
    prompt: 'You are another agent.',
    firstMessage: null,
    tools: [],
  },
};

/** An agent made in the store (not synced): the scenarios' other target, or a validation subject. */
async function insertAgent(s: TestServer, id: string, provider: 'vapi' | 'http' = 'vapi') {
  const now = new Date().toISOString();
  await s.engine.store.agents.insert({
    id,
    provider,
    providerAgentId: id,
    name: 'Other agent',
    status: 'active',
    description: null,
    snapshot: otherSnapshot,
    overrides: {},
    channel: provider === 'http' ? 'http' : 'replica',
    credentials: null,
    tags: [],
    syncStatus: 'idle',
    lastSyncedAt: null,
    syncError: null,
    callsCursorMs: null,
    created_at: now,
    updated_at: now,
  });
}

describe('the drift suite', () => {
  let model: Awaited<ReturnType<typeof startPromptModel>>;
  let providers: FakeProviders;
  let hook: Awaited<ReturnType<typeof startReceiver>>;
  let s: TestServer | null = null;

  beforeAll(async () => {
    model = await startPromptModel();
    hook = await startReceiver();
  });
  afterAll(async () => {
    await model.stop();
    await hook.stop();
  });
  afterEach(async () => {
    await s?.stop();
    s = null;
    await providers?.stop();
  });

  const start = async () => {
    providers = await startFakeProviders();
    s = await startServer({
      llmDefault: { kind: 'openai', baseUrl: model.url, apiKey: 'k', model: 'fake-replica' },
      modelPolicy: { attempts: 2, baseDelayMs: 5, timeoutMs: 10_000 },
      alertEveryMinute: false,
    });
    return s;
  };

  /** Connects the fake provider's Vapi assistant and waits for its first sync. */
  async function connect(server: TestServer): Promise<string> {
    const ends = syncEnds(server);
    const res = await server.call('POST', '/v1/agents/connect', {
      provider: 'vapi',
      agent_id: 'asst_1',
      credentials: { api_key: GOOD_KEY, base_url: providers.url },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const id = res.body.id as string;
    expect(await ends.of(id)).toMatchObject({ ok: true });
    return id;
  }

  async function syncNow(server: TestServer, agentId: string): Promise<void> {
    const ended = nextSync(server, agentId);
    expect((await server.call('POST', `/v1/agents/${agentId}/sync`)).status).toBe(202);
    expect(await ended).toMatchObject({ ok: true });
  }

  /** Waits until the agent has `n` runs, the newest ended; answers them, newest first. */
  async function endedRuns(server: TestServer, agentId: string, n: number) {
    let runs: SuiteRunView[] = [];
    await vi.waitFor(
      async () => {
        runs = await suiteRuns(server.engine, agentId);
        expect(runs).toHaveLength(n);
        expect(runs[0]!.status).not.toBe('running');
      },
      { timeout: 60_000, interval: 100 },
    );
    return runs;
  }

  const simulationsOf = async (server: TestServer, ws: string, executionId: string) =>
    (await server.call('GET', `/api/v1/workspaces/${ws}/executions/${executionId}/simulations`))
      .body.data.simulations as Json[];

  it('runs once per new version on this agent alone, compares with the previous version, and the alert names what got worse', async () => {
    const server = await start();
    const agentId = await connect(server);
    await insertAgent(server, 'agt_other');
    const suite = await seedSuiteScenarios(server.engine, ['agt_other', agentId]);
    const patched = await server.call('PATCH', `/v1/agents/${agentId}`, {
      channel: 'replica',
      regressionSuite: { scenarioIds: suite.scenarioIds, runs: 5 },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.regressionSuite).toEqual({
      workspaceId: suite.workspaceId,
      scenarioIds: suite.scenarioIds,
      runs: 5,
    });
    const alert = await server.call('POST', '/v1/alerts', {
      name: 'Sam regressed',
      condition: { type: 'agent_regression', agentId },
      notifications: { webhook: { url: hook.url }, os: false },
    });
    expect(alert.status, JSON.stringify(alert.body)).toBe(201);

    // No new version, no run: setting the suite and syncing an unchanged agent start nothing.
    await syncNow(server, agentId);
    expect(await suiteRuns(server.engine, agentId)).toEqual([]);

    // Version 2 (a temperature): the first run with a suite, nothing to compare with.
    providers.state.vapiAssistant.model.temperature = 0.4;
    await syncNow(server, agentId);
    const [first] = await endedRuns(server, agentId, 1);
    expect(first).toMatchObject({
      version: 2,
      status: 'completed',
      baseline_run_id: null,
      comparison_id: null,
      verdict: null,
      error: null,
    });
    expect(first!.execution_ids).toHaveLength(2);
    for (const executionId of first!.execution_ids) {
      const sims = await simulationsOf(server, suite.workspaceId, executionId);
      expect(sims).toHaveLength(5);
      // Restricted to this agent (not the scenario's other target), on its channel.
      expect(new Set(sims.map((x) => x.agent_id))).toEqual(new Set([agentId]));
      expect(sims.every((x) => x.channel === 'replica' && x.status === 'completed')).toBe(true);
      expect(sims.map((x) => x.passed)).toEqual([true, true, true, true, true]);
    }

    // Synced again without a change: no second run of version 2.
    await syncNow(server, agentId);
    expect(await suiteRuns(server.engine, agentId)).toHaveLength(1);

    // Version 3 makes the agent rude: its run regresses against version 2's.
    const messages = providers.state.vapiAssistant.model.messages as Json[];
    messages[0]!.content = `You are Sam, a support agent. ${RUDE}`;
    const firing = new Promise<void>((resolve) =>
      server.engine.events.subscribe(
        (e) => e.type === 'alert.firing' && e.data.alertId === alert.body.id && resolve(),
      ),
    );
    await syncNow(server, agentId);
    const [second] = await endedRuns(server, agentId, 2);
    expect(second).toMatchObject({
      version: 3,
      status: 'completed',
      baseline_run_id: first!.id,
      verdict: 'regressed',
      error: null,
    });
    const comparison = (
      await server.call(
        'GET',
        `/api/v1/workspaces/${suite.workspaceId}/comparisons/${second!.comparison_id}`,
      )
    ).body.data.comparison;
    expect(comparison.overall.verdict).toBe('regressed');
    expect([...comparison.baseline.execution_ids].sort()).toEqual([...first!.execution_ids].sort());
    expect([...comparison.candidate.execution_ids].sort()).toEqual(
      [...second!.execution_ids].sort(),
    );

    await firing;
    // The event says it fired; the webhook's delivery follows it.
    const firedAt = () =>
      hook.received
        .map((r) => JSON.parse(r.body))
        .filter((b) => b.alertId === alert.body.id && b.event === 'alert.firing');
    await vi.waitFor(() => expect(firedAt()).toHaveLength(1), { timeout: 30_000 });
    const fired = firedAt();
    expect(fired[0]!.detail.data).toEqual({
      comparisonId: second!.comparison_id,
      version: 3,
      scenarios: expect.arrayContaining(suite.scenarioNames),
    });
    for (const name of [...suite.scenarioNames, second!.comparison_id!])
      expect(fired[0]!.detail.text).toContain(name);
    expect((await server.call('GET', `/v1/alerts/${alert.body.id}`)).body.state).toBe('firing');

    // Once more without a change: still one run per version.
    await syncNow(server, agentId);
    expect((await suiteRuns(server.engine, agentId)).map((r) => r.version)).toEqual([3, 2]);
  });

  it('refuses a suite of unknown or mixed-workspace scenarios, or runs out of 1..20, and changes nothing', async () => {
    const server = await start();
    await insertAgent(server, 'agt_v');
    await insertAgent(server, 'agt_http', 'http');
    const suite = await seedSuiteScenarios(server.engine, ['agt_v']);
    const patch = (body: Json, id = 'agt_v') => server.call('PATCH', `/v1/agents/${id}`, body);
    const refusedAt = async (body: Json, path: string, id = 'agt_v') => {
      const res = await patch(body, id);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.details.map((d: Json) => d.path)).toContain(path);
    };
    const [a, b] = suite.scenarioIds;
    await refusedAt(
      { tags: ['kept-out'], regressionSuite: { scenarioIds: [a, 'scn_nope'], runs: 2 } },
      'regressionSuite.scenarioIds',
    );
    await refusedAt(
      { regressionSuite: { scenarioIds: [a, a], runs: 2 } },
      'regressionSuite.scenarioIds',
    );
    await refusedAt({ regressionSuite: { scenarioIds: [a], runs: 0 } }, 'regressionSuite.runs');
    await refusedAt({ regressionSuite: { scenarioIds: [a], runs: 21 } }, 'regressionSuite.runs');
    await refusedAt(
      { regressionSuite: { scenarioIds: [], runs: 2 } },
      'regressionSuite.scenarioIds',
    );
    await refusedAt(
      { regressionSuite: { scenarioIds: [a], runs: 2, every: 'day' } },
      'regressionSuite.every',
    );
    await refusedAt(
      { regressionSuite: { scenarioIds: [a], runs: 2 } },
      'regressionSuite',
      'agt_http',
    );
    // A scenario of another workspace: a suite's scenarios are of one workspace.
    const other = await server.call('POST', '/api/v1/workspaces', { name: 'Elsewhere' });
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    const otherWs = other.body.data.workspace.id as string;
    const persona = await server.call('POST', `/api/v1/workspaces/${otherWs}/personas`, {
      name: 'P',
      prompt: 'p',
    });
    const scenario = await server.call('POST', `/api/v1/workspaces/${otherWs}/scenarios`, {
      name: 'Elsewhere',
      prompt: 'p',
      personas: [persona.body.data.persona.id],
      targetAgents: ['agt_v'],
      script: [{ say: 'Hi' }],
    });
    expect(scenario.status, JSON.stringify(scenario.body)).toBe(201);
    await refusedAt(
      { regressionSuite: { scenarioIds: [a, scenario.body.data.scenario.id], runs: 2 } },
      'regressionSuite.scenarioIds',
    );
    // Refused requests changed nothing.
    const agent = (await server.call('GET', '/v1/agents/agt_v')).body;
    expect(agent.tags).toEqual([]);
    expect(agent.regressionSuite).toBeNull();

    // Set, answered back, then cleared with null.
    const set = await patch({ regressionSuite: { scenarioIds: [b, a], runs: 20 } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.regressionSuite).toEqual({
      workspaceId: suite.workspaceId,
      scenarioIds: [b, a],
      runs: 20,
    });
    const listed = await server.call('GET', '/v1/agents/agt_v/regression-runs');
    expect(listed.body).toEqual({ regressionSuite: set.body.regressionSuite, runs: [] });
    expect((await patch({ regressionSuite: null })).body.regressionSuite).toBeNull();
    expect((await server.call('GET', '/v1/agents/agt_nope/regression-runs')).status).toBe(404);

    // The alert condition names its agent.
    const alertRefused = async (condition: Json) => {
      const res = await server.call('POST', '/v1/alerts', {
        name: 'x',
        condition,
        notifications: { os: false },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.details.map((d: Json) => d.path)).toEqual(['condition.agentId']);
    };
    await alertRefused({ type: 'agent_regression' });
    await alertRefused({ type: 'agent_regression', agentId: 'agt_nope' });
  });
});
