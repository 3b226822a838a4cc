import { afterEach, describe, expect, it } from 'vitest';
import { GOOD_KEY, startFakeProviders, type FakeProviders } from '../helpers/fake-providers.js';
import { startServer, tempDir, type TestServer } from '../helpers/server.js';
import { dropStore } from '../helpers/store-under-test.js';
import { startFakeReplica } from './fake-replica.js';

/**
 * Experiments on the fake model: a Vapi agent (its provider faked on 127.0.0.1, which records any
 * write) on the replica, the baseline its prompt as synced, the candidate a prompt that confirms
 * shipping; a scorecard that passes only a reply saying "shipped" makes the candidate better.
 */

const MARKER = 'Always confirm shipping.';
const CANDIDATE = { prompt: `You are Sam. ${MARKER}` };

type Sim = {
  status: string;
  passed: boolean | null;
  run: number;
  agent_id: string;
  agent_config: { overrides: string[]; hash: string } | null;
};

describe('experiments', () => {
  let s: TestServer | null = null;
  let providers: FakeProviders | null = null;
  let replica: Awaited<ReturnType<typeof startFakeReplica>> | null = null;
  let dataDir: string | null = null;

  afterEach(async () => {
    await s?.stop();
    await providers?.stop();
    await replica?.stop();
    if (dataDir) await dropStore(dataDir);
    s = providers = replica = dataDir = null;
  });

  async function start(options: { dataDir?: string; runSimulations?: boolean } = {}) {
    s = await startServer({
      ...options,
      simulationConcurrency: 1,
      llmDefault: { kind: 'openai', baseUrl: replica!.url, apiKey: 'k', model: 'fake' },
    });
    return s;
  }

  /** The fakes, an engine, a Vapi agent, a persona, a scorecard and `count` scripted scenarios. */
  async function setup(count = 1, options: { dataDir?: string; runSimulations?: boolean } = {}) {
    [providers, replica] = await Promise.all([startFakeProviders(), startFakeReplica(MARKER)]);
    const srv = await start(options);
    const agent = await srv.call('POST', '/v1/agents/connect', {
      provider: 'vapi',
      agent_id: 'asst_1',
      credentials: { api_key: GOOD_KEY, base_url: providers.url },
    });
    expect(agent.status, JSON.stringify(agent.body)).toBe(201);
    const persona = (await srv.ws('POST', '/personas', { name: 'Quinn', prompt: 'Calm.' })).body
      .data.persona.id as string;
    const scorecard = (
      await srv.ws('POST', '/scorecards', {
        name: 'Ships',
        metrics: [
          { name: 'Shipped', category: 'accuracy', type: 'contains', config: { text: 'shipped' } },
        ],
      })
    ).body.data.scorecard.id as string;
    const scenarios: string[] = [];
    for (let i = 0; i < count; i++) {
      const made = await srv.ws('POST', '/scenarios', {
        name: `Order ${i}`,
        prompt: 'Asks about an order.',
        personas: [persona],
        targetAgents: [agent.body.id],
        scorecard,
        script: [{ say: 'Where is order A1?' }],
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      scenarios.push(made.body.data.scenario.id as string);
    }
    return { agent: agent.body.id as string, scenarios };
  }

  const simsOf = async (executionId: string): Promise<Sim[]> => {
    const res = await s!.ws('GET', `/executions/${executionId}/simulations`);
    expect(res.status, JSON.stringify(res.body).slice(0, 2000)).toBe(200);
    return res.body.data.simulations;
  };

  it('runs both sides interleaved on the replica, compares them, and applies only locally', async () => {
    const { agent, scenarios } = await setup(2);
    const writesBefore = providers!.writes.length;
    const made = await s!.ws('POST', '/experiments', {
      agentId: agent,
      configuration: CANDIDATE,
      scenarioIds: scenarios,
      runs: 3,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(202);
    const e = made.body.data.experiment;
    expect(e).toMatchObject({
      status: expect.stringMatching(/^(queued|running)$/),
      agent_id: agent,
    });
    expect(e.comparison_id).toBeNull();
    expect(e.baseline_execution_ids).toHaveLength(2);
    expect(e.candidate_execution_ids).toHaveLength(2);
    expect(e.baseline_execution_id).toBe(e.baseline_execution_ids[0]);
    expect(e.candidate_execution_id).toBe(e.candidate_execution_ids[0]);

    const done = await s!.ws('GET', `/experiments/${e.id}?wait=120`);
    expect(done.status).toBe(200);
    const ended = done.body.data.experiment;
    expect(ended.status, JSON.stringify(ended)).toBe('completed');
    expect(ended.comparison_id).toMatch(/^cmp_/);
    // 6 pairs (2 scenarios × 3 runs): every candidate run passed, every baseline run failed.
    expect(ended.verdict).toBe('improved');

    // One call per simulation, taking turns: b, c, b, c, ... (the pool runs one at a time).
    expect(replica!.calls.map((c) => (c.marked ? 'c' : 'b')).join('')).toBe('bc'.repeat(6));
    for (const [i, id] of e.baseline_execution_ids.entries()) {
      const baseline = await simsOf(id as string);
      const candidate = await simsOf(e.candidate_execution_ids[i] as string);
      expect(baseline.map((x) => [x.status, x.passed, x.agent_id])).toEqual(
        Array(3).fill(['completed', false, agent]),
      );
      expect(candidate.map((x) => [x.status, x.passed, x.agent_id])).toEqual(
        Array(3).fill(['completed', true, agent]),
      );
      // What each side tested: the candidate's configuration is recorded on its runs only.
      expect(baseline[0]!.agent_config!.overrides).toEqual([]);
      expect(candidate[0]!.agent_config!.overrides).toEqual(['configuration.prompt']);
      expect(candidate[0]!.agent_config!.hash).not.toBe(baseline[0]!.agent_config!.hash);
    }
    // The comparison is stored, pooled over both scenarios' executions.
    const comparison = (await s!.ws('GET', `/comparisons/${ended.comparison_id}`)).body.data
      .comparison;
    expect(comparison.baseline.execution_ids).toEqual(e.baseline_execution_ids);
    expect(comparison.candidate.execution_ids).toEqual(e.candidate_execution_ids);
    expect(comparison.overall.pairs).toBe(6);

    // The agent itself did not change while the experiment ran...
    expect((await s!.call('GET', `/v1/agents/${agent}`)).body.overrides).toEqual([]);
    const applied = await s!.ws('POST', `/experiments/${e.id}/apply`);
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(applied.body.data.experiment.applied_at).toEqual(expect.any(String));
    // ...applying makes the configuration its local overrides, and nothing goes to the provider.
    const after = (await s!.call('GET', `/v1/agents/${agent}`)).body;
    expect(after.overrides).toEqual(['configuration.prompt']);
    expect(after.configuration.prompt).toBe(CANDIDATE.prompt);
    expect(providers!.writes.slice(writesBefore)).toEqual([]);

    const listed = (await s!.ws('GET', '/experiments')).body.data;
    expect(listed.total).toBe(1);
    expect(listed.experiments[0]).toMatchObject({ id: e.id, status: 'completed' });
  }, 180_000);

  it('refuses bad requests naming the field, and queues nothing then', async () => {
    const { agent, scenarios } = await setup(1);
    const other = (await s!.call('POST', '/api/v1/workspaces', { name: 'Other' })).body.data
      .workspace.id as string;
    const elsewhere = await s!.call('POST', `/api/v1/workspaces/${other}/personas`, {
      name: 'P',
      prompt: 'p',
    });
    const foreign = await s!.call('POST', `/api/v1/workspaces/${other}/scenarios`, {
      name: 'Elsewhere',
      prompt: 'x',
      personas: [elsewhere.body.data.persona.id],
      targetAgents: [agent],
      script: [{ say: 'Hi' }],
    });
    expect(foreign.status, JSON.stringify(foreign.body)).toBe(201);
    const good = { agentId: agent, configuration: CANDIDATE, scenarioIds: scenarios, runs: 2 };
    const refused = async (body: object, path: string) => {
      const res = await s!.ws('POST', '/experiments', body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      const named = JSON.stringify(res.body);
      expect(named).toContain(path);
    };
    await refused({ ...good, mode: 'audio' }, 'mode');
    await refused(
      { ...good, scenarioIds: [scenarios[0], foreign.body.data.scenario.id] },
      'scenarioIds',
    );
    await refused({ ...good, scenarioIds: ['scn_nope'] }, 'scenarioIds');
    await refused({ ...good, configuration: { model: { topK: 3 } } }, 'topK');
    await refused({ ...good, configuration: { voiceSpeed: 1 } }, 'voiceSpeed');
    await refused({ ...good, runs: 21 }, 'runs');
    await refused({ ...good, runs: 0 }, 'runs');
    await refused({ ...good, agentId: 'agt_nope' }, 'agentId');
    await refused({ ...good, extra: true }, 'extra');
    expect((await s!.ws('GET', '/executions')).body.data.pagination.total).toBe(0);
    expect((await s!.ws('GET', '/experiments')).body.data.total).toBe(0);
    expect(replica!.calls).toEqual([]);

    // A workspace token runs only agents shared with its workspace, and changes no agent.
    const token = (await s!.ws('POST', '/tokens', { name: 't' })).body.data.token.token as string;
    const asToken = { authorization: `Bearer ${token}` };
    const unshared = await s!.ws('POST', '/experiments', good, asToken);
    expect(unshared.status, JSON.stringify(unshared.body)).toBe(403);
    expect((await s!.ws('GET', '/experiments')).body.data.total).toBe(0);
    const applied = await s!.ws('POST', '/experiments/xpr_nope/apply', undefined, asToken);
    expect(applied.status).toBe(403);

    expect((await s!.ws('GET', '/experiments/xpr_nope')).status).toBe(404);
    expect((await s!.call('GET', `/api/v1/workspaces/${other}/experiments`)).body.data.total).toBe(
      0,
    );
  }, 120_000);

  it('passes a spend cap to its executions, shared evenly; a cap without prices is refused', async () => {
    const { agent, scenarios } = await setup(2, { runSimulations: false });
    const body = {
      agentId: agent,
      configuration: CANDIDATE,
      scenarioIds: scenarios,
      runs: 1,
      maxCostUsd: 2,
    };
    const unpriced = await s!.ws('POST', '/experiments', body);
    expect(unpriced.status, JSON.stringify(unpriced.body)).toBe(400);
    expect(JSON.stringify(unpriced.body)).toContain('maxCostUsd');
    expect((await s!.ws('GET', '/executions')).body.data.pagination.total).toBe(0);
    const price = { model: 'fake', inputPerMTok: 1, cachedInputPerMTok: 0.5, outputPerMTok: 2 };
    const priced = await s!.call('PATCH', '/v1/settings', { prices: { llm: [price] } });
    expect(priced.status, JSON.stringify(priced.body)).toBe(200);
    const made = await s!.ws('POST', '/experiments', body);
    expect(made.status, JSON.stringify(made.body)).toBe(202);
    const e = made.body.data.experiment;
    expect(e.max_cost_usd).toBe(2);
    for (const id of [...e.baseline_execution_ids, ...e.candidate_execution_ids]) {
      const execution = (await s!.ws('GET', `/executions/${id}`)).body.data.execution;
      // Two scenarios, two sides: each execution may spend a quarter of the cap.
      expect(execution.max_cost_usd).toBe(0.5);
    }
  }, 120_000);

  it('a side cancelled cancels the experiment and its other executions', async () => {
    const { agent, scenarios } = await setup(1, { runSimulations: false });
    const made = await s!.ws('POST', '/experiments', {
      agentId: agent,
      configuration: CANDIDATE,
      scenarioIds: scenarios,
      runs: 2,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(202);
    const e = made.body.data.experiment;
    const cancelled = await s!.ws('POST', `/executions/${e.baseline_execution_id}/cancel`);
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    const done = (await s!.ws('GET', `/experiments/${e.id}?wait=60`)).body.data.experiment;
    expect(done).toMatchObject({ status: 'cancelled', comparison_id: null });
    const other = (await s!.ws('GET', `/executions/${e.candidate_execution_id}`)).body.data;
    expect(other.execution.status).toBe('cancelled');
    expect((await s!.ws('POST', `/experiments/${e.id}/apply`)).status).toBe(409);
  }, 120_000);

  it('leaves a comparison another server is making alone, and makes one whose server is gone', async () => {
    dataDir = tempDir();
    const { agent, scenarios } = await setup(1, { dataDir, runSimulations: false });
    const body = { agentId: agent, configuration: CANDIDATE, scenarioIds: scenarios, runs: 1 };
    const fresh = (await s!.ws('POST', '/experiments', body)).body.data.experiment;
    const stale = (await s!.ws('POST', '/experiments', body)).body.data.experiment;
    // Both claimed for comparing, as a server does: one a moment ago, one ten minutes ago.
    const experiments = s!.engine.store.experiments;
    const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
    expect(await experiments.claim(fresh.id, 'running', 'comparing', ago(0))).toBeTruthy();
    expect(
      await experiments.claim(stale.id, 'running', 'comparing', ago(10 * 60_000)),
    ).toBeTruthy();
    await s!.stop();
    s = await start({ dataDir });
    const done = (await s.ws('GET', `/experiments/${stale.id}?wait=120`)).body.data.experiment;
    expect(done).toMatchObject({
      status: 'completed',
      comparison_id: expect.stringMatching(/^cmp_/),
    });
    // The fresh one's sides ran too, but its comparison is its claimer's to make: none here.
    for (const id of [fresh.baseline_execution_id, fresh.candidate_execution_id])
      expect((await s.ws('GET', `/executions/${id}?wait=60`)).body.data.execution.status).toBe(
        'completed',
      );
    expect((await s.ws('GET', `/experiments/${fresh.id}`)).body.data.experiment).toMatchObject({
      comparison_id: null,
    });
    expect((await s.ws('GET', '/comparisons')).body.data.comparisons).toHaveLength(1);
  }, 180_000);

  it('is compared after a restart when its sides ran on the next engine', async () => {
    dataDir = tempDir();
    const { agent, scenarios } = await setup(1, { dataDir, runSimulations: false });
    const made = await s!.ws('POST', '/experiments', {
      agentId: agent,
      configuration: CANDIDATE,
      scenarioIds: scenarios,
      runs: 2,
    });
    expect(made.status, JSON.stringify(made.body)).toBe(202);
    const id = made.body.data.experiment.id as string;
    expect(made.body.data.experiment.status).toBe('queued');
    // Applying before it has been compared: refused, nothing changes.
    expect((await s!.ws('POST', `/experiments/${id}/apply`)).status).toBe(409);
    await s!.stop();
    s = await start({ dataDir });
    const done = (await s.ws('GET', `/experiments/${id}?wait=120`)).body.data.experiment;
    expect(done).toMatchObject({
      status: 'completed',
      comparison_id: expect.stringMatching(/^cmp_/),
    });
    expect(replica!.calls.map((c) => (c.marked ? 'c' : 'b')).join('')).toBe('bcbc');
  }, 180_000);
});
