import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type Engine } from '../../src/engine.js';
import type { NormalizedCall } from '../../src/domain/providers.js';
import type { AgentSnapshot } from '../../src/providers/types.js';
import { queueMonitoredCalls } from '../../src/providers/monitoring-sample.js';
import { createModelThreads } from '../../src/llm/model-threads.js';
import { DEFAULT_MODEL_POLICY } from '../../src/llm/types.js';
import { callConversation } from '../../src/simulations/call-conversation.js';
import { modelJudge } from '../../src/simulations/judge.js';
import { metricsFor, scoreConversation } from '../../src/simulations/scoring.js';
import { emptyUsage } from '../../src/llm/types.js';
import { memorySampler } from './memory.js';
import { replicaAgent } from '../helpers/support-sam.js';

/**
 * One production-monitoring run, in a process of its own (its memory its own). Prints JSON.
 * - `score N`: N imported calls queued as a sync queues them and scored by the engine's pool on
 *   its monitoring scorecard (3 deterministic metrics, 1 llm_judge on the instant fake judge),
 *   CONCURRENCY at once, after SCORE_WARM_UP untimed ones; timed from the scorer's start to the
 *   queue's end, peak memory sampled (RSS above the start; with BENCH_MEASURE=live and
 *   --expose-gc, what is reachable after a full GC, model and scoring threads included).
 * - `baseline N`: the same N conversations scored as the simulation runner scores one (the
 *   scorecard's metrics, the judge on model threads), CONCURRENCY at once, nothing queued or stored.
 * - `sample N`: with N calls stored, the sample decision for 1,000 new calls (the import's own
 *   step, in its transaction): median of 7.
 * - `sync busy|alone URL`: a sync of the fake Vapi's calls (500), while 10,000 calls are being
 *   scored, or alone.
 */
const CONCURRENCY = 8;
const WARM_UP = 20;
/**
 * Calls the scorer scores before a `score` run is measured: its model threads started, its code
 * compiled and V8's heap grown to the pace of scoring, so that what the run adds is its own.
 */
const SCORE_WARM_UP = 1_000;
const [mode, arg, judgeUrl, vapiUrl] = process.argv.slice(2) as [string, string, string, string?];
const dir = mkdtempSync(join(tmpdir(), 'cb-production-'));
const started0 = Date.now();
const clock = { now: () => Date.parse('2026-06-20T00:00:00Z') + (Date.now() - started0) };
const T0 = Date.parse('2026-06-10T00:00:00Z');

/** An imported call of 8 turns and a tool call, the agent giving a tracking number. */
function importedCall(i: number, prefix = 'pc'): NormalizedCall {
  const start = T0 + i * 1_000;
  const transcript = Array.from({ length: 8 }, (_, t) => ({
    role: t % 2 ? ('agent' as const) : ('user' as const),
    text: t === 7 ? `It has shipped, tracking TRK${i}.` : `Turn ${t} about order A${i}.`,
    startMs: t * 3_000,
    endMs: t * 3_000 + 2_000,
  }));
  return {
    providerCallId: `${prefix}_${i}`,
    startedAt: new Date(start).toISOString(),
    endedAt: new Date(start + 60_000).toISOString(),
    durationMs: 60_000,
    endReason: 'customer-ended-call',
    cost: 0.1,
    costOriginal: null,
    recordingUrl: null,
    summary: `Call ${i}`,
    successful: true,
    transcript,
    toolCalls: [
      {
        name: 'order_status',
        arguments: { orderId: `A${i}` },
        result: { status: 'shipped' },
        success: true,
        latencyMs: 200,
        atMs: 7_000,
      },
    ] as NormalizedCall['toolCalls'],
    providerError: null,
  };
}

const snapshot: AgentSnapshot = {
  name: 'Bench agent',
  description: null,
  phoneNumbers: [],
  knowledgeBases: [],
  routingRules: [],
  tags: [],
  textChat: false,
  configuration: {
    model: { provider: 'openai', name: 'bench', temperature: 0.2, maxTokens: 100 },
    voice: { provider: null, voiceId: null, stability: null, similarityBoost: null },
    prompt: 'You are a support agent.',
    firstMessage: 'Hello, how can I help?',
    tools: [],
  },
};

const METRICS = [
  {
    name: 'Mentions shipping',
    category: 'accuracy',
    type: 'contains',
    config: { text: 'shipped' },
  },
  { name: 'Brief', category: 'efficiency', type: 'max_turns', config: { max: 20 } },
  { name: 'Looks up', category: 'tools', type: 'tool_called', config: { tool: 'order_status' } },
  {
    name: 'Helpful',
    category: 'quality',
    type: 'llm_judge',
    config: { criterion: 'The agent helps the caller' },
  },
];

async function data<T>(engine: Engine, op: string, input: object): Promise<T> {
  const res = await engine.invoke(op, input);
  if (res.status >= 300) throw new Error(`${op}: ${JSON.stringify(res)}`);
  return res.data as T;
}

/** An engine with a monitored agent (`providerAgentId`) on a scorecard of the 4 metrics. */
async function monitoredEngine(options: { runSimulations: boolean; providerAgentId?: string }) {
  const engine = createEngine({
    dataDir: dir,
    clock,
    simulationConcurrency: CONCURRENCY,
    runSimulations: options.runSimulations,
    llmDefault: { kind: 'openai', baseUrl: judgeUrl, apiKey: 'bench', model: 'bench' },
  });
  await engine.start();
  const ws = (await data<{ workspaces: { id: string }[] }>(engine, 'workspaces.list', {}))
    .workspaces[0]!.id;
  const scorecard = (
    await data<{ scorecard: { id: string } }>(engine, 'scorecards.create', {
      workspace_id: ws,
      name: 'Production',
      metrics: METRICS,
    })
  ).scorecard.id;
  const monitoring = {
    workspaceId: ws,
    scorecardId: scorecard,
    sampleRate: 100,
    enabled: true,
    shortCallMs: 10_000,
  };
  const now = new Date(clock.now()).toISOString();
  const agent = (id: string, providerAgentId: string) =>
    engine.store.agents.insert({
      ...replicaAgent({ id, providerAgentId, snapshot, at: now }),
      monitoring,
      monitoringEnabledAt: now,
    });
  await agent('agt_bench', 'bench');
  if (options.providerAgentId) await agent('agt_synced', options.providerAgentId);
  return { engine, ws, scorecard };
}

/**
 * Stores `n` imported calls of the agent, a thousand per transaction; with `queue`, as a sync
 * imports them with monitoring on (each page's sampled calls queued in its transaction).
 */
async function seedCalls(engine: Engine, agentId: string, n: number, prefix = 'pc', queue = false) {
  for (let i = 0; i < n; i += 1_000) {
    const page = Array.from({ length: Math.min(1_000, n - i) }, (_, j) =>
      importedCall(i + j, prefix),
    );
    await engine.store.transaction(async (tx) => {
      const fresh = await tx.calls.upsert(agentId, page, clock.now());
      if (queue) await queueMonitoredCalls(tx, agentId, fresh, new Date(clock.now()).toISOString());
    });
  }
}

/** Starts the engine's scorer on what is queued (an evaluate asks it to claim, as a sync does). */
async function kick(engine: Engine, agentId: string) {
  const { calls } = await engine.store.calls.list(agentId, 1, 0);
  await data(engine, 'calls.evaluate', { call_id: calls[0]!.id });
}

const untilScored = async (engine: Engine) => {
  while ((await engine.store.callEvaluations.pending()) > 0)
    await new Promise((r) => setTimeout(r, 10));
};

async function scoreRun(n: number, measure: 'rss' | 'live'): Promise<object> {
  const { engine } = await monitoredEngine({ runSimulations: true });
  await seedCalls(engine, 'agt_bench', SCORE_WARM_UP, 'warm', true);
  await kick(engine, 'agt_bench');
  await untilScored(engine);
  await seedCalls(engine, 'agt_bench', n, 'pc', true);
  const queued = await engine.store.callEvaluations.pending();
  const sampler = memorySampler(measure);
  if (measure === 'live') sampler.include(() => engine.modelThreadsHeapUsed());
  const began = performance.now();
  await kick(engine, 'agt_bench');
  await untilScored(engine);
  const seconds = (performance.now() - began) / 1000;
  const peakMb = sampler.stop();
  const row = engine.store.db
    .prepare('SELECT COUNT(*) AS n, SUM(passed) AS passed FROM call_evaluations')
    .get() as { n: number; passed: number };
  await engine.stop();
  return {
    queued,
    evaluated: row.n - SCORE_WARM_UP,
    passed: row.passed - SCORE_WARM_UP,
    seconds,
    peakMb,
  };
}

async function baselineRun(n: number): Promise<object> {
  const { engine, ws, scorecard } = await monitoredEngine({ runSimulations: false });
  await seedCalls(engine, 'agt_bench', n);
  const { calls } = await engine.store.calls.list('agt_bench', n, 0);
  const conversations = calls.map(callConversation);
  const metrics = metricsFor((await engine.store.scorecards.get(ws, scorecard))!, null, null);
  const models = createModelThreads(2);
  const client = models.client(
    { kind: 'openai', baseUrl: judgeUrl, apiKey: 'bench', model: 'bench' },
    DEFAULT_MODEL_POLICY,
  );
  let passed = 0;
  const score = async (list: typeof conversations) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < list.length) {
          const i = next++;
          const s = await scoreConversation(
            metrics,
            list[i]!,
            70,
            modelJudge(client, emptyUsage()),
          );
          // Recorded as a simulation's result is: one transaction writing the scores.
          await engine.store.transaction((tx) =>
            tx.callEvaluations.upsert({
              ...s,
              callId: calls[i]!.id,
              agentId: 'agt_bench',
              workspaceId: ws,
              scorecardId: scorecard,
              evaluatedAt: new Date().toISOString(),
              reason: 'sampled',
              callStartedAt: calls[i]!.startedAt,
              agentVersion: null,
            }),
          );
          if (s.passed) passed++;
        }
      }),
    );
  };
  await score(conversations.slice(0, WARM_UP));
  passed = 0;
  engine.store.db.exec('DELETE FROM call_evaluations');
  const began = performance.now();
  await score(conversations);
  const seconds = (performance.now() - began) / 1000;
  await models.close();
  await engine.stop();
  return { evaluated: n, passed, seconds };
}

async function sampleRun(stored: number): Promise<object> {
  const { engine } = await monitoredEngine({ runSimulations: false });
  await seedCalls(engine, 'agt_bench', stored, 'old');
  const times: number[] = [];
  for (let rep = 0; rep < 7; rep++) {
    const page = Array.from({ length: 1_000 }, (_, i) => importedCall(i, `new${rep}`));
    const fresh = await engine.store.calls.upsert('agt_bench', page, clock.now());
    const at = new Date(clock.now()).toISOString();
    // The upsert's pages written back first: a checkpoint of them must not land in the timed commit.
    engine.store.db.pragma('wal_checkpoint(TRUNCATE)');
    const began = performance.now();
    const queued = await engine.store.transaction((tx) =>
      queueMonitoredCalls(tx, 'agt_bench', fresh, at),
    );
    times.push(performance.now() - began);
    if (queued !== 1_000) throw new Error(`${queued} of 1000 queued`);
    engine.store.db.exec('DELETE FROM evaluation_jobs');
  }
  await engine.stop();
  times.sort((a, b) => a - b);
  return { stored, ms: times[3] };
}

async function syncRun(busy: boolean): Promise<object> {
  const { engine } = await monitoredEngine({ runSimulations: true, providerAgentId: 'a1' });
  // Both sides with the scorer warm (its model threads started), as an engine is after its first.
  await seedCalls(engine, 'agt_bench', WARM_UP, 'warm', true);
  await kick(engine, 'agt_bench');
  await untilScored(engine);
  await seedCalls(engine, 'agt_bench', 10_000, 'pc', busy);
  if (busy) await kick(engine, 'agt_bench');
  // The sync itself, from its start to its end (the connect's own request to the provider before
  // it is no part of a sync).
  let began = 0;
  const done = new Promise<number>((resolve) =>
    engine.events.subscribe((e) => {
      if (e.type === 'sync.started') began = performance.now();
      if (e.type === 'sync.finished') resolve(performance.now());
    }),
  );
  await engine.invoke('agents.connect', {
    provider: 'vapi',
    agent_id: 'a1',
    credentials: { api_key: 'k', base_url: vapiUrl },
  });
  const seconds = ((await done) - began) / 1000;
  const scoringLeft = await engine.store.callEvaluations.pending('agt_bench');
  const imported = (await engine.store.calls.figures('agt_synced')).totalCalls;
  const queuedForSynced = await engine.store.callEvaluations.pending('agt_synced');
  await engine.stop();
  return { seconds, imported, scoringLeft, queuedForSynced };
}

const result =
  mode === 'score'
    ? await scoreRun(Number(arg), process.env.BENCH_MEASURE === 'live' ? 'live' : 'rss')
    : mode === 'baseline'
      ? await baselineRun(Number(arg))
      : mode === 'sample'
        ? await sampleRun(Number(arg))
        : await syncRun(arg === 'busy');
console.log(JSON.stringify(result));
rmSync(dir, { recursive: true, force: true });
process.exit(0);
