import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine, type Engine } from '../../src/engine.js';
import type { AgentSnapshot } from '../../src/providers/types.js';
import { median, round, type Figure } from './harness.js';

/**
 * An experiment of 200 simulations a side (10 scenarios × 20 runs, 3 scripted turns each, on the
 * replica, the fake model answering at once, 8 at a time) against its two sides run as plain
 * executions one after the other: the agent's 10 executions, then the same with the candidate's
 * configuration as overrides. The experiment's time runs from its request to its comparison
 * stored; the figure is the ratio, alternated over rounds, median taken.
 */
const TURNS = 3;
const SCENARIOS = 10;
const RUNS = 20;
const CONFIGURATION = { prompt: 'You are a support agent. Be brief.' };

async function call(engine: Engine, name: string, input: Record<string, unknown>) {
  const res = await engine.invoke(name, input);
  if (res.status >= 300) throw new Error(`${name}: ${JSON.stringify(res)}`);
  return res.data as Record<string, unknown>;
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

/** The agent (on the replica), a persona, a scorecard and the scenarios, made once. */
async function setup(engine: Engine) {
  const now = new Date().toISOString();
  await engine.store.agents.insert({
    ...{ id: 'agt_bench', provider: 'vapi', providerAgentId: 'b', name: 'Bench agent' },
    ...{ status: 'active', description: null, snapshot, overrides: {}, channel: 'replica' },
    ...{ credentials: null, tags: [], syncStatus: 'idle', lastSyncedAt: null, syncError: null },
    ...{ callsCursorMs: null, created_at: now, updated_at: now },
  });
  const ws = ((await call(engine, 'workspaces.list', {})).workspaces as { id: string }[])[0]!.id;
  const persona = (
    (await call(engine, 'personas.create', { workspace_id: ws, name: 'Caller', prompt: 'Asks.' }))
      .persona as { id: string }
  ).id;
  const metrics = [{ name: 'Helps', category: 'tone', type: 'contains', config: { text: 'help' } }];
  const scorecard = (
    (await call(engine, 'scorecards.create', { workspace_id: ws, name: 'Bench', metrics }))
      .scorecard as { id: string }
  ).id;
  const script = Array.from({ length: TURNS }, (_, i) => ({ say: `Question ${i + 1}?` }));
  const scenarios: string[] = [];
  for (let i = 0; i < SCENARIOS; i++) {
    const made = await call(engine, 'scenarios.create', {
      ...{ workspace_id: ws, name: `Bench ${i}`, prompt: 'p', personas: [persona] },
      ...{ targetAgents: ['agt_bench'], scorecard, script },
    });
    scenarios.push((made.scenario as { id: string }).id);
  }
  return { ws, scenarios };
}

/** Counts simulation endings, so a run can wait for so many more. */
function endings(engine: Engine) {
  let ended = 0;
  let waiting: { until: number; resolve(): void } | null = null;
  engine.events.subscribe((e) => {
    if (e.type === 'simulation.finished' && ++ended === waiting?.until) waiting.resolve();
  });
  return (n: number) => new Promise<void>((resolve) => (waiting = { until: ended + n, resolve }));
}

/** Both sides as plain executions, one after the other (the candidate as the agent's overrides). */
async function sequential(
  engine: Engine,
  at: Awaited<ReturnType<typeof setup>>,
  more: ReturnType<typeof endings>,
) {
  const started = performance.now();
  for (const overrides of [{}, { configuration: CONFIGURATION }]) {
    await engine.store.agents.update('agt_bench', { overrides });
    const done = more(SCENARIOS * RUNS);
    for (const scenario_id of at.scenarios)
      await call(engine, 'scenarios.execute', { workspace_id: at.ws, scenario_id, runs: RUNS });
    await done;
  }
  await engine.store.agents.update('agt_bench', { overrides: {} });
  return (performance.now() - started) / 1000;
}

/** The experiment, from its request to its comparison stored. */
async function experiment(engine: Engine, at: Awaited<ReturnType<typeof setup>>) {
  const started = performance.now();
  const made = await call(engine, 'experiments.create', {
    ...{ workspace_id: at.ws, agentId: 'agt_bench', configuration: CONFIGURATION },
    ...{ scenarioIds: at.scenarios, runs: RUNS },
  });
  const id = (made.experiment as { id: string }).id;
  for (;;) {
    const got = await call(engine, 'experiments.get', {
      ...{ workspace_id: at.ws, experiment_id: id, wait: 120 },
    });
    const e = got.experiment as { status: string; comparison_id: string | null };
    if (e.status === 'completed' && e.comparison_id) break;
    if (e.status === 'failed' || e.status === 'cancelled') throw new Error(JSON.stringify(e));
  }
  return (performance.now() - started) / 1000;
}

export async function experimentBench(seconds: number): Promise<Figure[]> {
  const server = spawn(process.execPath, ['--import', 'tsx', 'test/bench/fake-model-server.ts'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve) =>
    server.stdout.once('data', (d) => resolve(String(d).trim())),
  );
  const dir = mkdtempSync(join(tmpdir(), 'cb-experiment-'));
  const engine = createEngine({
    ...{ dataDir: dir, simulationConcurrency: 8, maxTurns: TURNS + 5 },
    llmDefault: { kind: 'openai', baseUrl: url, apiKey: 'bench', model: 'bench' },
  });
  try {
    await engine.start();
    const at = await setup(engine);
    const more = endings(engine);
    await experiment(engine, at); // warm: code loaded and compiled on both paths
    // Rounds alternate the two, so that machine noise falls on both alike (more with more time).
    const rounds = Math.max(1, Math.min(3, Math.round(seconds / 3)));
    const ours: number[] = [];
    const plain: number[] = [];
    for (let i = 0; i < rounds; i++) {
      plain.push(await sequential(engine, at, more));
      ours.push(await experiment(engine, at));
    }
    const ratio = median(ours) / median(plain);
    return [
      {
        name: 'experiment of 200 simulations a side (replica, fake model, 8 at a time): wall time vs its two executions run one after the other',
        value: round(ratio),
        goal: '<= 1.2',
        met: ratio <= 1.2,
        detail: `${round(median(ours))} s for the experiment (both sides interleaved, then compared and stored) against ${round(median(plain))} s for the same 400 simulations as plain executions, side after side; median of ${rounds} alternated round(s) after one untimed experiment`,
      },
    ];
  } finally {
    await engine.stop();
    server.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
