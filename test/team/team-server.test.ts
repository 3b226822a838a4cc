import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEngine, type Engine } from '../../src/engine.js';
import type { EngineOptions } from '../../src/engine-options.js';
import { startFakeBrain } from '../helpers/fake-brain.js';
import { GOOD_KEY, startFakeProviders, vapiCall } from '../helpers/fake-providers.js';
import { ensureDatabase, startPostgres, type Postgres } from '../helpers/postgres.js';
import { tempDir, testClock } from '../helpers/server.js';
import { createRecordings } from '../../src/voice/recordings.js';
import { requeueLapsed } from '../../src/simulations/leases.js';
import { onPostgres } from '../helpers/store-under-test.js';
import { startPgProxy } from '../helpers/pg-proxy.js';
import { ALLOW_LOOPBACK, executeRuns, seedTeamScenario, TEAM_KEY } from '../helpers/team.js';

// These start their own PostgreSQL, whichever store the run is on: they run once, in the SQLite run.
describe.skipIf(onPostgres())('a team server: instances and workers sharing one database', () => {
  let server: Postgres;
  let brain: Awaited<ReturnType<typeof startFakeBrain>>;
  let n = 0;
  const engines: Engine[] = [];

  beforeAll(async () => {
    server = await startPostgres();
    brain = await startFakeBrain({ delayMs: 20 });
  });
  afterEach(async () => {
    await Promise.allSettled(engines.splice(0).map((e) => e.stop()));
  });
  afterAll(async () => {
    await brain?.stop();
    server?.stop();
  });

  /** One instance of the team server on the database, started. */
  async function instance(url: string, options: Partial<EngineOptions> = {}) {
    const lines: string[] = [];
    const engine = createEngine({
      dataDir: tempDir(),
      databaseUrl: url,
      secretKey: TEAM_KEY,
      // The fake models listen on loopback, which a team server reaches only when allowed.
      outboundAllow: ALLOW_LOOPBACK,
      llmDefault: { kind: 'openai', baseUrl: brain.url, apiKey: 'k', model: 'm' },
      maxTurns: 100,
      leaseMs: 1_200,
      leaderRetryMs: 200,
      log: { info: (m) => lines.push(m), error: (m) => lines.push(m) },
      ...options,
    });
    engines.push(engine);
    await engine.start();
    return { engine, lines };
  }

  const finishedOn = (engine: Engine) => {
    const ids: string[] = [];
    engine.events.subscribe((e) => {
      if (e.type === 'simulation.finished') ids.push(e.data.simulationId);
    });
    return ids;
  };

  const simulationsOf = async (engine: Engine, executionId: string, workspaceId: string) =>
    (
      (await engine.invoke('executions.simulations', {
        workspace_id: workspaceId,
        execution_id: executionId,
      })) as { data: { simulations: { id: string; status: string }[] } }
    ).data.simulations;

  it('workers share the queue: every simulation runs once, on one of them, seen by every instance', async () => {
    const url = await ensureDatabase(server.url, `team_${++n}`);
    const api = await instance(url, { runSimulations: false });
    const team = await seedTeamScenario(api.engine, 3);
    // Each worker's agent answers from a model of its own: its calls show the worker did work.
    const brains = [await startFakeBrain({ delayMs: 20 }), await startFakeBrain({ delayMs: 20 })];
    try {
      for (const b of brains)
        await instance(url, {
          worker: true,
          workerConcurrency: 3,
          llmDefault: { kind: 'openai', baseUrl: b.url, apiKey: 'k', model: 'm' },
        });
      // The API instance runs nothing: it hears of every end through the database's events.
      const seen = finishedOn(api.engine);
      await executeRuns(api.engine, team, 40);
      await vi.waitFor(() => expect(new Set(seen).size).toBe(40), { timeout: 30_000 });
      expect(seen).toHaveLength(40);
      for (const b of brains) expect(b.calls.replica).toBeGreaterThan(0);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query(
        'SELECT status, attempts::int AS attempts, COUNT(*)::int AS n FROM simulations GROUP BY status, attempts',
      );
      await client.end();
      expect(rows).toEqual([{ status: 'completed', attempts: 1, n: 40 }]);
    } finally {
      for (const b of brains) await b.stop();
    }
  });

  it("a dead worker's simulation runs again elsewhere once its lease lapses; its late result is refused", async () => {
    const url = await ensureDatabase(server.url, `team_${++n}`);
    const api = await instance(url, { runSimulations: false });
    const team = await seedTeamScenario(api.engine, 2);
    const [execution] = await executeRuns(api.engine, team, 1);
    // A worker claims it, then dies without a word: its lease is never renewed.
    const claimed = await api.engine.store.simulations.claim(new Date().toISOString(), {
      owner: 'dead-worker',
      ms: 300,
    });
    expect(claimed?.execution_id).toBe(execution);
    const b = await instance(url, { worker: true, workerConcurrency: 2 });
    const onB = finishedOn(b.engine);
    await vi.waitFor(() => expect(onB).toEqual([claimed!.id]), { timeout: 10_000 });
    expect(b.lines.join('\n')).toContain('of a server that stopped will run again');
    const late = await api.engine.store.simulations.finish(
      claimed!.id,
      {
        status: 'failed',
        ended_at: new Date().toISOString(),
        duration_ms: 1,
        end_reason: 'error',
        turns: [],
        score: null,
        passed: null,
        results: [],
        usage: { llm_calls: 0, input_tokens: 0, output_tokens: 0, by_model: [] },
        error: 'late',
      },
      'dead-worker',
    );
    expect(late).toBe(false);
    const sim = await api.engine.store.simulations.simulation(team.workspaceId, claimed!.id);
    expect(sim).toMatchObject({ status: 'completed' });
    const attempts = await api.engine.store.simulations.claim(new Date().toISOString(), {
      owner: 'x',
      ms: 0,
    });
    expect(attempts).toBeUndefined(); // nothing left queued
  });

  it('a simulation whose servers died three times fails, and every instance hears it ended', async () => {
    const url = await ensureDatabase(server.url, `team_${++n}`);
    const api = await instance(url, { runSimulations: false });
    const team = await seedTeamScenario(api.engine, 2);
    const [execution] = await executeRuns(api.engine, team, 1);
    const seen: { id: string; status: string }[] = [];
    api.engine.events.subscribe((e) => {
      if (e.type === 'simulation.finished')
        seen.push({ id: e.data.simulationId, status: e.data.status });
    });
    // Three workers claim it and die in turn; the third lapse is for a live worker to find.
    for (let attempt = 1; attempt <= 3; attempt++) {
      const claimed = await api.engine.store.simulations.claim(new Date().toISOString(), {
        owner: `dead-${attempt}`,
        ms: 1,
      });
      expect(claimed?.execution_id).toBe(execution);
      await new Promise((r) => setTimeout(r, 20));
      if (attempt < 3) await requeueLapsed(api.engine.store, new Date().toISOString());
    }
    const b = await instance(url, { worker: true, workerConcurrency: 1 });
    await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 10_000 });
    expect(seen[0]!.status).toBe('failed');
    expect(b.lines.join('\n')).toContain('their servers stopped three times');
  });

  it('a lapsed simulation of a cancelled execution is not run again: it ends cancelled', async () => {
    const url = await ensureDatabase(server.url, `team_${++n}`);
    const api = await instance(url, { runSimulations: false });
    const team = await seedTeamScenario(api.engine, 2);
    const [execution] = await executeRuns(api.engine, team, 1);
    const claimed = await api.engine.store.simulations.claim(new Date().toISOString(), {
      owner: 'dead-worker',
      ms: 1,
    });
    expect(claimed?.execution_id).toBe(execution);
    // Cancelled while its worker is already dead: no one is there to stop it.
    await api.engine.invoke('executions.cancel', {
      workspace_id: team.workspaceId,
      execution_id: execution,
    });
    const b = await instance(url, { worker: true, workerConcurrency: 1 });
    const onB = finishedOn(b.engine);
    await vi.waitFor(
      async () =>
        expect((await simulationsOf(api.engine, execution!, team.workspaceId))[0]?.status).toBe(
          'cancelled',
        ),
      { timeout: 10_000 },
    );
    // Every instance hears it ended; no run recorded it (a run would have timed it).
    await vi.waitFor(() => expect(onB).toEqual([claimed!.id]), { timeout: 5_000 });
    await new Promise((r) => setTimeout(r, 500));
    const sim = await api.engine.store.simulations.simulation(team.workspaceId, claimed!.id);
    expect(sim).toMatchObject({ status: 'cancelled', duration_ms: null, turns: [] });
  });

  it('a result the database refuses for a moment is recorded once it answers, never as a failure', async () => {
    const url = await ensureDatabase(server.url, `team_${++n}`);
    const api = await instance(url, { runSimulations: false });
    const team = await seedTeamScenario(api.engine, 2);
    // The database refuses the first two attempts to record an ending (a sequence is not rolled
    // back with the statement it failed).
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`CREATE SEQUENCE ending_faults;
      CREATE FUNCTION refuse_endings() RETURNS trigger AS $$ BEGIN
        IF NEW.status <> 'running' AND nextval('ending_faults') <= 2 THEN
          RAISE EXCEPTION 'transient fault';
        END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql;
      CREATE TRIGGER refuse_endings BEFORE UPDATE ON simulations
        FOR EACH ROW EXECUTE FUNCTION refuse_endings();`);
    await client.end();
    const b = await instance(url, { worker: true, workerConcurrency: 1 });
    const onB = finishedOn(b.engine);
    const [execution] = await executeRuns(api.engine, team, 1);
    await vi.waitFor(() => expect(onB).toHaveLength(1), { timeout: 15_000 });
    const [sim] = await simulationsOf(api.engine, execution!, team.workspaceId);
    expect(sim?.status).toBe('completed');
    expect(b.lines.join('\n')).toContain('could not be recorded (transient fault)');
  });

  it('a cancel made on one instance stops the simulation another runs, within a second', async () => {
    const slow = await startFakeBrain({ delayMs: 250 });
    try {
      const url = await ensureDatabase(server.url, `team_${++n}`);
      const api = await instance(url, { runSimulations: false });
      const team = await seedTeamScenario(api.engine, 40);
      const b = await instance(url, {
        worker: true,
        workerConcurrency: 1,
        llmDefault: { kind: 'openai', baseUrl: slow.url, apiKey: 'k', model: 'm' },
      });
      const onB = finishedOn(b.engine);
      const [execution] = await executeRuns(api.engine, team, 1);
      await vi.waitFor(
        async () =>
          expect((await simulationsOf(api.engine, execution!, team.workspaceId))[0]?.status).toBe(
            'running',
          ),
        { timeout: 5_000 },
      );
      await new Promise((r) => setTimeout(r, 600)); // a few turns in
      const res = await api.engine.invoke('executions.cancel', {
        workspace_id: team.workspaceId,
        execution_id: execution,
      });
      expect(res.status).toBe(200);
      // Within 5 s, not after its 40 turns (each over 250 ms on the fake's own timer): a bound
      // that tells the two apart however busy the machine.
      await vi.waitFor(() => expect(onB).toHaveLength(1), { timeout: 5_000 });
      const [sim] = await simulationsOf(api.engine, execution!, team.workspaceId);
      expect(sim?.status).toBe('cancelled');
    } finally {
      await slow.stop();
    }
  });

  it('a worker stopped in good order hands its running simulations back at once', async () => {
    const slow = await startFakeBrain({ delayMs: 300 });
    try {
      const url = await ensureDatabase(server.url, `team_${++n}`);
      const api = await instance(url, { runSimulations: false });
      const team = await seedTeamScenario(api.engine, 30);
      const b = await instance(url, {
        worker: true,
        workerConcurrency: 2,
        leaseMs: 60_000,
        llmDefault: { kind: 'openai', baseUrl: slow.url, apiKey: 'k', model: 'm' },
      });
      const [execution] = await executeRuns(api.engine, team, 2);
      const statuses = async () =>
        (await simulationsOf(api.engine, execution!, team.workspaceId)).map((s) => s.status);
      await vi.waitFor(async () => expect(await statuses()).toEqual(['running', 'running']), {
        timeout: 10_000,
      });
      await b.engine.stop();
      // Not after the minute the lease would hold: now, for the next worker.
      expect(await statuses()).toEqual(['queued', 'queued']);
      expect(b.lines.join('\n')).toContain('2 simulation(s) interrupted by this stop went back');
    } finally {
      await slow.stop();
    }
  });

  it('a worker that loses its database says so, retries with backoff, and loses nothing', async () => {
    const url = await ensureDatabase(server.url, `team_${++n}`);
    const api = await instance(url, { runSimulations: false });
    const team = await seedTeamScenario(api.engine, 4);
    const b = await instance(url, { worker: true, workerConcurrency: 4 });
    const seen = finishedOn(api.engine);
    await executeRuns(api.engine, team, 20);
    await vi.waitFor(() => expect(seen.length).toBeGreaterThan(2), { timeout: 20_000 });
    // The database goes away for two seconds: every connection ended, no new one accepted.
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    const name = new URL(url).pathname.slice(1);
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [
      name,
    ]);
    await new Promise((r) => setTimeout(r, 2_000));
    await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
    await admin.end();
    const rows = async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      const { rows } = await client.query<{ status: string; n: number }>(
        'SELECT status, COUNT(*)::int AS n FROM simulations GROUP BY status',
      );
      await client.end();
      return rows;
    };
    await vi.waitFor(async () => expect(await rows()).toEqual([{ status: 'completed', n: 20 }]), {
      timeout: 30_000,
      interval: 500,
    });
    const said = b.lines.join('\n');
    expect(said).toMatch(/failed \(.*\); trying again in [\d.]+ m?s/);
    expect(said).toMatch(/answers again|works again/);
  }, 60_000);

  it('a run whose database connection drops mid-run runs again, and is not failed', async () => {
    const url = await ensureDatabase(server.url, `team_${++n}`);
    const api = await instance(url, { runSimulations: false });
    const team = await seedTeamScenario(api.engine, 2);
    // The worker's connection is cut as its run reads the scorecard to score the conversation; by
    // the time the run records its ending, the database answers again on a new connection.
    const proxy = await startPgProxy(url, { cutAt: 'from "scorecards"' });
    try {
      const b = await instance(proxy.url, { worker: true, workerConcurrency: 1 });
      const [executionId] = await executeRuns(api.engine, team, 1);
      await vi.waitFor(
        async () => {
          const sims = await simulationsOf(api.engine, executionId!, team.workspaceId);
          expect(sims.map((s) => s.status)).toEqual(['completed']);
        },
        { timeout: 10_000, interval: 200 },
      );
      expect(proxy.cut()).toBe(1);
      expect(b.lines.join('\n')).toMatch(/stays running, to run again/);
    } finally {
      await Promise.allSettled(engines.splice(0).map((e) => e.stop()));
      await proxy.stop();
    }
  }, 30_000);

  it('schedules, sync and alerts run on one instance at a time; another takes over when it stops', async () => {
    const url = await ensureDatabase(server.url, `team_${++n}`);
    const a = await instance(url);
    const b = await instance(url);
    const leading = () =>
      [a, b].filter((i) => i.lines.some((l) => l.includes('callbench-singletons: leading')));
    await vi.waitFor(() => expect(leading()).toHaveLength(1), { timeout: 5_000 });
    await new Promise((r) => setTimeout(r, 600)); // the other asked again, and was refused
    expect(leading()).toHaveLength(1);
    const [leader] = leading();
    const other = leader === a ? b : a;
    await leader!.engine.stop();
    await vi.waitFor(
      () => expect(other.lines.some((l) => l.includes('callbench-singletons: leading'))).toBe(true),
      { timeout: 3_000 },
    );
  });

  it('the same agent synced on two instances at once is imported once, with no error', async () => {
    const providers = await startFakeProviders();
    try {
      providers.state.vapiCalls.push(...Array.from({ length: 120 }, (_, i) => vapiCall(i)));
      const url = await ensureDatabase(server.url, `team_${++n}`);
      // The fake's calls were made in June 2026: the import looks back from then.
      const clock = testClock(Date.parse('2026-06-10T12:00:00Z'));
      const a = await instance(url, { clock });
      const b = await instance(url, { clock });
      // Each instance hears its own syncs and, through the database, the other's.
      const heard = (engine: Engine) => {
        const ends: { ok: boolean; error?: string }[] = [];
        engine.events.subscribe((e) => {
          if (e.type === 'sync.finished') ends.push({ ok: e.data.ok, error: e.data.error });
        });
        return ends;
      };
      const [onA, onB] = [heard(a.engine), heard(b.engine)];
      const connected = await a.engine.invoke('agents.connect', {
        provider: 'vapi',
        agent_id: 'asst_1',
        credentials: { api_key: GOOD_KEY, base_url: providers.url },
      });
      expect(connected.status, JSON.stringify(connected)).toBe(201);
      await vi.waitFor(() => expect(onB).toHaveLength(1), { timeout: 10_000 });
      const agentId = (connected.data as { id: string }).id;
      // New calls and a changed first message, then both instances are asked to sync at once.
      providers.state.vapiCalls.push(...Array.from({ length: 80 }, (_, i) => vapiCall(500 + i)));
      providers.state.vapiAssistant.firstMessage = 'Hello from the new prompt.';
      const asked = await Promise.all(
        [a, b].map((i) => i.engine.invoke('agents.sync', { agent_id: agentId })),
      );
      expect(asked.map((r) => r.status)).toEqual([202, 202]);
      await vi.waitFor(() => expect(onA.length + onB.length).toBeGreaterThanOrEqual(6), {
        timeout: 15_000,
      });
      expect([...onA, ...onB].filter((e) => !e.ok)).toEqual([]);
      const calls = await b.engine.invoke('agents.calls', { agent_id: agentId, limit: 1 });
      expect((calls.data as { total: number }).total).toBe(200);
      const versions = await a.engine.invoke('agents.versions', { agent_id: agentId });
      expect((versions.data as { versions: unknown[] }).versions).toHaveLength(2);
      const agent = await b.engine.invoke('agents.get', { agent_id: agentId });
      expect(agent.data).toMatchObject({ sync: { status: 'idle', error: null } });
    } finally {
      await providers.stop();
    }
  });

  it('a recording saved on one instance plays from another, by range, and goes when orphaned', async () => {
    const url = await ensureDatabase(server.url, `team_${++n}`);
    const a = await instance(url);
    const b = await instance(url);
    const shelf = (engine: Engine) =>
      createRecordings({ dataDir: tempDir(), store: engine.store, log: () => undefined });
    // Larger than one chunk read from the database, with every byte value in it.
    const wav = Buffer.from(Array.from({ length: 1_300_000 }, (_, i) => (i * 7) % 256));
    const name = await shelf(a.engine).save('sim_shared', wav);
    const elsewhere = shelf(b.engine);
    expect(await elsewhere.size(name)).toBe(wav.length);
    const read = async (range?: { start: number; end: number }) => {
      const parts: Buffer[] = [];
      for await (const part of elsewhere.read(name, range)) parts.push(part as Buffer);
      return Buffer.concat(parts);
    };
    expect((await read()).equals(wav)).toBe(true);
    const range = { start: 1_048_570, end: 1_048_590 };
    expect((await read(range)).equals(wav.subarray(range.start, range.end + 1))).toBe(true);
    // No simulation keeps it. Just saved, it may be about to get one: a sweep (the instances run
    // one as they start) leaves it; past the grace, a sweep on any instance removes it.
    expect(await elsewhere.sweep(Date.now())).toBe(0);
    expect(await elsewhere.sweep(Date.now() + 11 * 60_000)).toBe(1);
    expect(await shelf(a.engine).size(name)).toBeNull();
  });

  it('a sync interval changed on any instance reschedules the sync where it runs', async () => {
    const url = await ensureDatabase(server.url, `team_${++n}`);
    const a = await instance(url);
    const b = await instance(url);
    const leading = () =>
      [a, b].filter((i) => i.lines.some((l) => l.includes('callbench-singletons: leading')));
    await vi.waitFor(() => expect(leading()).toHaveLength(1), { timeout: 5_000 });
    const [leader] = leading();
    const other = leader === a ? b : a;
    const res = await other.engine.invoke('settings.update', { sync: { intervalMinutes: 7 } });
    expect(res.status).toBe(200);
    await vi.waitFor(
      () => expect(leader!.lines.join('\n')).toContain('agents sync every 7 minutes'),
      { timeout: 3_000 },
    );
  });
});
