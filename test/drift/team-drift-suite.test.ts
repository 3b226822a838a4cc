import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEngine, type Engine } from '../../src/engine.js';
import { GOOD_KEY, startFakeProviders, type FakeProviders } from '../helpers/fake-providers.js';
import { ensureDatabase, startPostgres, type Postgres } from '../helpers/postgres.js';
import { tempDir } from '../helpers/server.js';
import { onPostgres } from '../helpers/store-under-test.js';
import { ALLOW_LOOPBACK, TEAM_KEY } from '../helpers/team.js';
import { data, seedSuiteScenarios, startPromptModel, suiteRuns } from './helpers.js';

// These start their own PostgreSQL, whichever store the run is on: they run once, in the SQLite run.
describe.skipIf(onPostgres())('the drift suite on a two-instance team server', () => {
  let server: Postgres;
  let model: Awaited<ReturnType<typeof startPromptModel>>;
  let providers: FakeProviders;
  const engines: Engine[] = [];

  beforeAll(async () => {
    server = await startPostgres();
    model = await startPromptModel();
    providers = await startFakeProviders();
  });
  afterEach(async () => {
    await Promise.allSettled(engines.splice(0).map((e) => e.stop()));
  });
  afterAll(async () => {
    await providers?.stop();
    await model?.stop();
    server?.stop();
  });

  async function instance(url: string) {
    const lines: string[] = [];
    const engine = createEngine({
      dataDir: tempDir(),
      databaseUrl: url,
      secretKey: TEAM_KEY,
      outboundAllow: ALLOW_LOOPBACK,
      llmDefault: { kind: 'openai', baseUrl: model.url, apiKey: 'k', model: 'fake-replica' },
      leaderRetryMs: 200,
      alertEveryMinute: false,
      log: { info: (m) => lines.push(m), error: (m) => lines.push(m) },
    });
    engines.push(engine);
    await engine.start();
    return { engine, lines, leads: () => lines.some((l) => l.includes('singletons: leading')) };
  }

  /** Sync ends each instance hears (its own syncs, and through the database the other's). */
  const syncEndsOn = (engine: Engine) => {
    const ends: boolean[] = [];
    engine.events.subscribe((e) => {
      if (e.type === 'sync.finished') ends.push(e.data.ok);
    });
    return ends;
  };

  const count = async (url: string, query: string): Promise<number> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return Number((await client.query<{ n: string }>(query)).rows[0]!.n);
    } finally {
      await client.end();
    }
  };

  it('a new version synced on both instances at once runs the suite once; after the leader stops, the other runs the next', async () => {
    const url = await ensureDatabase(server.url, 'drift_team');
    const a = await instance(url);
    const b = await instance(url);
    await vi.waitFor(() => expect([a, b].filter((i) => i.leads())).toHaveLength(1), {
      timeout: 10_000,
    });
    const endsOnB = syncEndsOn(b.engine);
    const connected = await data<{ id: string }>(a.engine, 'agents.connect', {
      provider: 'vapi',
      agent_id: 'asst_1',
      credentials: { api_key: GOOD_KEY, base_url: providers.url },
    });
    const agentId = connected.id;
    await vi.waitFor(() => expect(endsOnB).toHaveLength(1), { timeout: 10_000 });
    const suite = await seedSuiteScenarios(a.engine, [agentId]);
    await data(b.engine, 'agents.update', {
      agent_id: agentId,
      channel: 'replica',
      regressionSuite: { scenarioIds: suite.scenarioIds, runs: 3 },
    });

    // A changed configuration, then both instances asked to sync at once: one new version.
    providers.state.vapiAssistant.model.temperature = 0.5;
    const before = endsOnB.length;
    await Promise.all([a, b].map((i) => data(i.engine, 'agents.sync', { agent_id: agentId })));
    await vi.waitFor(() => expect(endsOnB.length).toBeGreaterThanOrEqual(before + 2), {
      timeout: 15_000,
    });
    // Every instance told of the version again: the row per agent and version keeps it to one run.
    for (const i of [a, b])
      i.engine.events.emit('agent.config_changed', { agentId, changedPaths: ['configuration'] });
    await vi.waitFor(
      async () => {
        const runs = await suiteRuns(a.engine, agentId);
        expect(runs.map((r) => [r.version, r.status])).toEqual([[2, 'completed']]);
      },
      { timeout: 60_000, interval: 100 },
    );
    expect(await count(url, 'SELECT COUNT(*) AS n FROM regression_suite_runs')).toBe(1);
    // One execution per scenario, once: 2 scenarios × 3 runs.
    expect(await count(url, 'SELECT COUNT(*) AS n FROM executions')).toBe(2);
    expect(await count(url, 'SELECT COUNT(*) AS n FROM simulations')).toBe(6);

    // The leader stops: the other leads, and runs the next version's suite, compared with v2's.
    const leader = a.leads() ? a : b;
    const other = leader === a ? b : a;
    await leader.engine.stop();
    await vi.waitFor(() => expect(other.leads()).toBe(true), { timeout: 10_000 });
    providers.state.vapiAssistant.model.temperature = 0.6;
    await data(other.engine, 'agents.sync', { agent_id: agentId });
    await vi.waitFor(
      async () => {
        const runs = await suiteRuns(other.engine, agentId);
        expect(runs.map((r) => [r.version, r.status])).toEqual([
          [3, 'completed'],
          [2, 'completed'],
        ]);
      },
      { timeout: 60_000, interval: 100 },
    );
    const [third, second] = await suiteRuns(other.engine, agentId);
    expect(third!.baseline_run_id).toBe(second!.id);
    expect(third!.comparison_id).toMatch(/^\w+_/);
    // Both versions answer alike: no regression.
    expect(third!.verdict).not.toBe('regressed');
  });
});
