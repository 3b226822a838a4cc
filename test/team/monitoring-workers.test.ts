import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEngine, type Engine } from '../../src/engine.js';
import type { EngineOptions } from '../../src/engine-options.js';
import type { NormalizedCall } from '../../src/domain/providers.js';
import { startFakeBrain } from '../helpers/fake-brain.js';
import { ensureDatabase, startPostgres, type Postgres } from '../helpers/postgres.js';
import { tempDir } from '../helpers/server.js';
import { onPostgres } from '../helpers/store-under-test.js';
import { ALLOW_LOOPBACK, ALLOW_LOOPBACK_ENV, seedTeamScenario, TEAM_KEY } from '../helpers/team.js';

const CALLS = 12;

/** A judge model that takes every request and never answers: its worker is mid-evaluation. */
async function startSilentModel(): Promise<{ url: string; requests: () => number; stop(): void }> {
  let requests = 0;
  const server: Server = createServer((req) => {
    requests++;
    req.resume();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    stop: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** An imported call whose agent gave a tracking number (what the fake judge looks for). */
const importedCall = (i: number): NormalizedCall => {
  const start = Date.parse('2026-06-01T10:00:00Z') + i * 60_000;
  return {
    providerCallId: `pc_${i}`,
    startedAt: new Date(start).toISOString(),
    endedAt: new Date(start + 60_000).toISOString(),
    durationMs: 60_000,
    endReason: 'customer-ended-call',
    cost: null,
    costOriginal: null,
    recordingUrl: null,
    summary: null,
    successful: true,
    transcript: [
      { role: 'user', text: 'Where is my order C3?', startMs: 0, endMs: 1_000 },
      { role: 'agent', text: 'It has shipped, tracking TRK123.', startMs: 1_500, endMs: 3_000 },
    ],
    toolCalls: [],
    providerError: null,
  };
};

/** `callbench worker` in a child process, killed by the test; resolves once it runs. */
function workerProcess(databaseUrl: string, judgeUrl: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    [
      'src/cli/callbench.mjs',
      'worker',
      '--database',
      databaseUrl,
      '--concurrency',
      '3',
      '--data-dir',
      tempDir(),
    ],
    {
      env: {
        ...process.env,
        CALLBENCH_SECRET_KEY: TEAM_KEY,
        ...ALLOW_LOOPBACK_ENV,
        CALLBENCH_LLM_BASE_URL: judgeUrl,
        CALLBENCH_LLM_API_KEY: 'x',
        CALLBENCH_LLM_MODEL: 'm',
        CALLBENCH_LEASE_SECONDS: '2',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('running up to')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`the worker exited (${code})`)));
  });
}

describe.skipIf(onPostgres())('production monitoring on a team server', () => {
  let server: Postgres;
  const engines: Engine[] = [];
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    server = await startPostgres();
  });
  afterEach(async () => {
    for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
    await Promise.allSettled(engines.splice(0).map((e) => e.stop()));
  });
  afterAll(() => server?.stop());

  async function instance(url: string, options: Partial<EngineOptions>): Promise<Engine> {
    const engine = createEngine({
      dataDir: tempDir(),
      databaseUrl: url,
      secretKey: TEAM_KEY,
      outboundAllow: ALLOW_LOOPBACK,
      leaseMs: 1_200,
      leaderRetryMs: 200,
      log: { info: () => {}, error: () => {} },
      ...options,
    });
    engines.push(engine);
    await engine.start();
    return engine;
  }

  it('two workers, one killed mid-evaluation: every call is scored once, by the other', async () => {
    const url = await ensureDatabase(server.url, 'monitoring_workers');
    const api = await instance(url, { runSimulations: false });
    const team = await seedTeamScenario(api, 1);
    const scorecard = await api.invoke('scorecards.create', {
      workspace_id: team.workspaceId,
      name: 'Production',
      metrics: [
        { name: 'Helpful', category: 'quality', type: 'llm_judge', config: { criterion: 'Helps' } },
      ],
    });
    const scorecardId = (scorecard.data as { scorecard: { id: string } }).scorecard.id;
    await api.store.calls.upsert(
      'agt_team',
      Array.from({ length: CALLS }, (_, i) => importedCall(i)),
      Date.now(),
    );
    const set = await api.invoke('agents.update', {
      agent_id: 'agt_team',
      monitoring: { workspaceId: team.workspaceId, scorecardId, sampleRate: 100, enabled: true },
    });
    expect(set.status).toBe(200);

    // Worker A's judge never answers: whatever it claims, it is still scoring when it dies.
    const silent = await startSilentModel();
    const brain = await startFakeBrain();
    try {
      children.push(await workerProcess(url, silent.url));
      const queued = await api.invoke('agents.monitoringBackfill', { agent_id: 'agt_team' });
      expect(queued.data).toEqual({ queued: CALLS });
      await vi.waitFor(() => expect(silent.requests()).toBe(3), { timeout: 20_000 });
      // Worker B, on a judge that answers, takes the rest; then A dies without a word.
      await instance(url, {
        worker: true,
        workerConcurrency: 2,
        llmDefault: { kind: 'openai', baseUrl: brain.url, apiKey: 'k', model: 'm' },
      });
      children[0]!.kill('SIGKILL');
      await vi.waitFor(async () => expect(await api.store.callEvaluations.pending()).toBe(0), {
        timeout: 30_000,
      });
      const evaluations = await api.store.callEvaluations.listForAgent('agt_team');
      expect(evaluations).toHaveLength(CALLS);
      expect(new Set(evaluations.map((e) => e.callId)).size).toBe(CALLS);
      expect(
        evaluations.every((e) => e.reason === 'backfill' && e.scorecardId === scorecardId),
      ).toBe(true);
      // Every call judged once where it was scored: A's three again on B after their lease lapsed.
      expect(brain.calls.judge).toBe(CALLS);
      expect(silent.requests()).toBe(3);
    } finally {
      silent.stop();
      await brain.stop();
    }
  });
});
