import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runSeed } from '../../src/audio/seeded-random.js';
import type { AgentSnapshot } from '../../src/providers/types.js';
import { supportSamSnapshot } from '../helpers/support-sam.js';
import { startFakeBrain } from '../helpers/fake-brain.js';
import type { Json } from '../helpers/json.js';
import { startServer, tempDir, type TestServer } from '../helpers/server.js';
import { dropStore, storedAt, storedRows } from '../helpers/store-under-test.js';

/**
 * Every simulation knows what it tested: its run number, the hashes of the scenario and scorecard
 * as run, the agent's configuration; audio runs take seeds derived from the execution's root seed.
 */

const HEX64 = /^[0-9a-f]{64}$/;

const snapshot = (): AgentSnapshot => supportSamSnapshot({ textChat: false });

/** A synced agent on the replica, at version 1, with one of our tools and a scripted scenario. */
async function setup(s: TestServer) {
  const now = new Date().toISOString();
  await s.engine.store.agents.insert({
    id: 'agt_sam',
    provider: 'vapi',
    providerAgentId: 'a1',
    name: 'Support Sam',
    status: 'active',
    description: null,
    snapshot: snapshot(),
    overrides: {},
    channel: 'replica',
    credentials: null,
    tags: [],
    syncStatus: 'idle',
    lastSyncedAt: now,
    syncError: null,
    callsCursorMs: null,
    created_at: now,
    updated_at: now,
  });
  await s.engine.store.agents.addVersion('agt_sam', {
    version: 1,
    syncedAt: now,
    changedPaths: [],
    configuration: snapshot().configuration,
    snapshot: snapshot(),
  });
  const tool = await s.call('POST', '/v1/tools', {
    name: 'order_status',
    description: 'Looks up an order',
    type: 'api',
    config: { url: 'http://127.0.0.1:9/orders/{orderId}' },
    parameters: [{ name: 'orderId', type: 'string', required: true }],
  });
  expect(tool.status, JSON.stringify(tool.body)).toBe(201);
  const persona = async (name: string) =>
    (await s.ws('POST', '/personas', { name, prompt: 'A busy shop owner.' })).body.data.persona
      .id as string;
  const personas = [await persona('Frank'), await persona('Grace')];
  const scorecard = (
    await s.ws('POST', '/scorecards', {
      name: 'Support',
      metrics: [
        { name: 'Greets', category: 'accuracy', type: 'contains', config: { text: 'Hello' } },
      ],
    })
  ).body.data.scorecard.id as string;
  const made = await s.ws('POST', '/scenarios', {
    name: 'Late order',
    prompt: 'Order {{order_id}} for {{name}} is late.',
    personas,
    targetAgents: ['agt_sam'],
    scorecard,
    promptVariables: [
      { name: 'order_id', type: 'string', defaultValue: 'A1' },
      { name: 'name', type: 'string', defaultValue: 'Frank' },
    ],
    script: [{ say: 'Where is my order {{order_id}}?' }, { say: 'Thanks, bye.' }],
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return { scenario: made.body.data.scenario.id as string, scorecard, personas };
}

describe('run identity', () => {
  let brain: Awaited<ReturnType<typeof startFakeBrain>>;
  let s: TestServer | null = null;
  let dataDir: string;

  const start = () =>
    startServer({
      dataDir,
      llmDefault: { kind: 'openai', baseUrl: brain.url, apiKey: 'k', model: 'fake-replica' },
      modelPolicy: { attempts: 2, baseDelayMs: 5, timeoutMs: 5_000 },
    });

  /** Executes, waits for the end, and answers the execution and its simulations. */
  async function execute(scenario: string, body: Json, ws = s!.workspaceId) {
    const base = `/api/v1/workspaces/${ws}`;
    const res = await s!.call('POST', `${base}/scenarios/${scenario}/execute`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const id = res.body.data.execution.id as string;
    const execution = (await s!.call('GET', `${base}/executions/${id}?wait=60`)).body.data
      .execution;
    const sims = (await s!.call('GET', `${base}/executions/${id}/simulations`)).body.data
      .simulations as Json[];
    return { execution, sims };
  }

  beforeAll(async () => {
    brain = await startFakeBrain();
  });
  afterAll(() => brain.stop());
  afterEach(async () => {
    await s?.stop();
    s = null;
    await dropStore(dataDir);
  });

  it('numbers runs per group and hashes what ran: stable across a restart and key order', async () => {
    dataDir = tempDir();
    s = await start();
    const ids = await setup(s);
    const first = await execute(ids.scenario, {
      runs: 2,
      variables: { order_id: 'B7', name: 'Al' },
    });
    expect(first.execution.status).toBe('completed');
    expect(first.sims).toHaveLength(4);
    for (const persona of ids.personas)
      expect(first.sims.filter((x) => x.persona_id === persona).map((x) => x.run)).toEqual([1, 2]);
    const sim = first.sims[0]!;
    expect(sim.scenario_hash).toMatch(HEX64);
    expect(sim.scorecard_hash).toMatch(HEX64);
    expect(sim.agent_config).toEqual({
      version_id: 1,
      hash: expect.stringMatching(HEX64),
      provider_hash: null,
      overrides: [],
      channel: 'replica',
      replica_model: 'fake-replica',
      tools: [{ name: 'order_status', version: 1 }],
    });
    for (const x of first.sims) {
      expect(x.status).toBe('completed');
      expect(x).toMatchObject({
        scenario_hash: sim.scenario_hash,
        scorecard_hash: sim.scorecard_hash,
        agent_config: sim.agent_config,
      });
    }
    expect(first.execution).toMatchObject({
      scenario_hash: sim.scenario_hash,
      scorecard_hash: sim.scorecard_hash,
      agent_config_hashes: [sim.agent_config.hash],
    });

    // The same data dir after a restart, the variables given in another key order: same hashes.
    await s.stop();
    s = await start();
    const again = await execute(ids.scenario, {
      runs: 1,
      variables: { name: 'Al', order_id: 'B7' },
    });
    expect(again.sims[0]).toMatchObject({
      run: 1,
      scenario_hash: sim.scenario_hash,
      scorecard_hash: sim.scorecard_hash,
      agent_config: { hash: sim.agent_config.hash },
    });
    const listed = (await s.ws('GET', '/executions')).body.data.executions as Json[];
    expect(listed.find((e) => e.id === first.execution.id)).toMatchObject({
      scenario_hash: sim.scenario_hash,
      agent_config_hashes: [sim.agent_config.hash],
    });

    // Another variable value is another scenario as run.
    const other = await execute(ids.scenario, { variables: { order_id: 'C3', name: 'Al' } });
    expect(other.sims[0]!.scenario_hash).not.toBe(sim.scenario_hash);
    expect(other.sims[0]!.scorecard_hash).toBe(sim.scorecard_hash);
  }, 120_000);

  it('a scorecard edit changes scorecard_hash; an override changes agent_config.hash', async () => {
    dataDir = tempDir();
    s = await start();
    const ids = await setup(s);
    const vars = { variables: { order_id: 'B7', name: 'Al' } };
    const before = (await execute(ids.scenario, vars)).sims[0]!;
    const edited = await s.ws('PUT', `/scorecards/${ids.scorecard}`, { passThreshold: 90 });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    const scored = (await execute(ids.scenario, vars)).sims[0]!;
    expect(scored.scorecard_hash).not.toBe(before.scorecard_hash);
    expect(scored.scenario_hash).toBe(before.scenario_hash);
    expect(scored.agent_config.hash).toBe(before.agent_config.hash);

    const patched = await s.call('PATCH', '/v1/agents/agt_sam', {
      configuration: { prompt: 'You are Sam, and you are brief.' },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const overridden = await execute(ids.scenario, vars);
    const used = overridden.sims[0]!.agent_config;
    expect(used.overrides).toEqual(['configuration.prompt']);
    expect(used.hash).not.toBe(before.agent_config.hash);
    expect(used.version_id).toBe(1);
    expect(overridden.execution.agent_config_hashes).toEqual([used.hash]);
    expect(overridden.sims[0]!.scorecard_hash).toBe(scored.scorecard_hash);
  }, 120_000);

  it('an audio execution records its root seed, and run r takes a seed derived from it', async () => {
    dataDir = tempDir();
    s = await startServer({ dataDir });
    const demo = await s.call('POST', '/v1/demo', { mode: 'audio' });
    expect(demo.status, JSON.stringify(demo.body)).toBe(202);
    const { workspaceId: ws, scenarioId } = demo.body as {
      workspaceId: string;
      scenarioId: string;
    };
    const base = `/api/v1/workspaces/${ws}`;
    // Only what is recorded as the simulations are queued is looked at: the calls are cancelled.
    const queue = async (body: Json) => {
      const res = await s!.call('POST', `${base}/scenarios/${scenarioId}/execute`, body);
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      const id = res.body.data.execution.id as string;
      await s!.call('POST', `${base}/executions/${id}/cancel`);
      const execution = (await s!.call('GET', `${base}/executions/${id}?wait=60`)).body.data
        .execution;
      const sims = (await s!.call('GET', `${base}/executions/${id}/simulations`)).body.data
        .simulations as Json[];
      return {
        execution,
        seeds: sims.map((x) => [x.run, x.line.seed]),
        agent: sims[0]!.agent_config,
      };
    };
    for (const id of demo.body.executionIds as string[])
      await s.call('POST', `${base}/executions/${id}/cancel`);

    const seeded = await queue({ mode: 'audio', runs: 2, seed: 1234 });
    expect(seeded.execution.line).toEqual({ choice: null, seed: 1234 });
    expect(seeded.seeds).toEqual([
      [1, 1234],
      [2, runSeed(1234, 2)],
    ]);
    expect(runSeed(1234, 2)).not.toBe(1234);
    // The demo agent is reached at its own URL: no synced version, no replica.
    expect(seeded.agent).toMatchObject({
      version_id: null,
      provider_hash: null,
      channel: 'http',
      replica_model: null,
      tools: [],
    });
    // The same root seed: run r gets the same seed (common random numbers).
    expect((await queue({ mode: 'audio', runs: 2, seed: 1234 })).seeds).toEqual(seeded.seeds);

    // No seed given: one is drawn, recorded, and the runs derive from it.
    const drawn = await queue({ mode: 'audio', runs: 2 });
    const root = drawn.execution.line.seed as number;
    expect(Number.isInteger(root)).toBe(true);
    expect(drawn.seeds).toEqual([
      [1, root],
      [2, runSeed(root, 2)],
    ]);
  }, 120_000);

  it('simulations and executions made before the migration answer nulls', async () => {
    dataDir = tempDir();
    s = await start();
    const ids = await setup(s);
    const { execution } = await execute(ids.scenario, {
      variables: { order_id: 'B7', name: 'Al' },
    });
    await s.stop();
    s = null;
    // The store as the build before this one left it: without the columns, at schema version 11.
    const at = await storedAt(dataDir);
    for (const column of ['run', 'scenario_hash', 'scorecard_hash', 'agent_config'])
      await storedRows(at, `ALTER TABLE simulations DROP COLUMN ${column}`);
    for (const column of ['scenario_hash', 'scorecard_hash', 'agent_config_hashes'])
      await storedRows(at, `ALTER TABLE executions DROP COLUMN ${column}`);
    await storedRows(at, 'DELETE FROM schema_migrations WHERE version = 12');

    s = await start();
    const versions = await storedRows<{ version: number }>(
      at,
      'SELECT version FROM schema_migrations WHERE version = 12',
    );
    expect(versions).toHaveLength(1);
    const read = await s.ws('GET', `/executions/${execution.id}`);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.data.execution).toMatchObject({
      scenario_hash: null,
      scorecard_hash: null,
      agent_config_hashes: null,
    });
    const sims = (await s.ws('GET', `/executions/${execution.id}/simulations`)).body.data
      .simulations as Json[];
    expect(sims[0]).toMatchObject({
      status: 'completed',
      run: null,
      scenario_hash: null,
      scorecard_hash: null,
      agent_config: null,
    });
    const one = await s.ws('GET', `/simulations/${sims[0]!.id}`);
    expect(one.body.data.simulation).toMatchObject({ run: null, agent_config: null });
  }, 120_000);
});
