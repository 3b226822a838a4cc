import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngine } from '../../src/engine.js';
import { memorySampler } from './memory.js';
import type { AgentSnapshot } from '../../src/providers/types.js';
import { replicaAgent } from '../helpers/support-sam.js';

/**
 * One benchmark run, in a process of its own so that its peak memory is its own. Prints
 * {simulations, roundTrips, seconds, peakMb}.
 * - `engine`: N scripted simulations of TURNS caller lines against a replica agent on the fake
 *   model, CONCURRENCY at once, each scored; timed from execute to the last one ending. The
 *   engine makes its model calls on its model threads, as it always does.
 * - `bare`: the same conversations as bare fetch calls (the history posted each turn), CONCURRENCY
 *   at once, on one thread: no engine, no SDK, no store, no scoring.
 * Both time N conversations after WARM_UP untimed ones.
 */
const TURNS = 10;
const CONCURRENCY = 8;
/** Conversations run before the timed ones, on both sides alike: code loaded, compiled and warm. */
const WARM_UP = 20;
const [url, mode, countText, measure] = process.argv.slice(2) as [
  string,
  'engine' | 'bare',
  string,
  'rss' | 'live' | undefined,
];
const count = Number(countText);
const dir = mkdtempSync(join(tmpdir(), 'cb-sims-'));
const sampler = memorySampler(measure);

if (mode === 'engine') {
  const engine = createEngine({
    dataDir: dir,
    simulationConcurrency: CONCURRENCY,
    maxTurns: TURNS + 5,
    llmDefault: { kind: 'openai', baseUrl: url, apiKey: 'bench', model: 'bench' },
  });
  await engine.start();
  sampler.include(() => engine.modelThreadsHeapUsed());
  const now = new Date().toISOString();
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
  await engine.store.agents.insert(
    replicaAgent({ id: 'agt_bench', providerAgentId: 'b', snapshot: snapshot, at: now }),
  );
  const ws = ((await engine.invoke('workspaces.list', {})).data as { workspaces: { id: string }[] })
    .workspaces[0]!.id;
  const persona = (
    (
      await engine.invoke('personas.create', {
        workspace_id: ws,
        name: 'Bench caller',
        prompt: 'Asks things.',
      })
    ).data as { persona: { id: string } }
  ).persona.id;
  const scorecard = (
    (
      await engine.invoke('scorecards.create', {
        workspace_id: ws,
        name: 'Bench',
        metrics: [
          { name: 'Offers help', category: 'tone', type: 'contains', config: { text: 'help' } },
          { name: 'Short', category: 'efficiency', type: 'max_turns', config: { max: 20 } },
        ],
      })
    ).data as { scorecard: { id: string } }
  ).scorecard.id;
  const script = Array.from({ length: TURNS }, (_, i) => ({
    say: `Question number ${i + 1} about my order {{order}}?`,
  }));
  const scenario = (
    (
      await engine.invoke('scenarios.create', {
        workspace_id: ws,
        name: 'Bench',
        prompt: 'p',
        personas: [persona],
        targetAgents: ['agt_bench'],
        scorecard,
        script,
        promptVariables: [{ name: 'order', type: 'string', defaultValue: 'A1' }],
      })
    ).data as { scenario: { id: string } }
  ).scenario.id;

  let ended = 0;
  let waiting: { until: number; resolve(): void } | null = null;
  engine.events.subscribe((e) => {
    if (e.type === 'simulation.finished' && ++ended === waiting?.until) waiting.resolve();
  });
  // Executions of at most 20 runs each, as the API allows; one persona and agent, so 20 simulations each.
  const simulate = async (n: number): Promise<string[]> => {
    const finished = new Promise<void>((resolve) => (waiting = { until: ended + n, resolve }));
    const executions: string[] = [];
    for (let left = n; left > 0; left -= 20) {
      const res = await engine.invoke('scenarios.execute', {
        workspace_id: ws,
        scenario_id: scenario,
        runs: Math.min(20, left),
      });
      if (res.status !== 202) throw new Error(JSON.stringify(res));
      executions.push((res.data as { execution: { id: string } }).execution.id);
    }
    await finished;
    return executions;
  };
  await simulate(WARM_UP);
  const started = performance.now();
  const executions = await simulate(count);
  const seconds = (performance.now() - started) / 1000;
  const peakMb = sampler.stop();
  const rows = engine.store.db
    .prepare(
      `SELECT COUNT(*) AS n, SUM(json_array_length(turns)) AS turns, SUM(json_extract(usage, '$.llm_calls')) AS calls FROM simulations
    WHERE status = 'completed' AND passed = 1 AND execution_id IN (SELECT value FROM json_each(?))`,
    )
    .get(JSON.stringify(executions)) as { n: number; turns: number; calls: number };
  console.log(
    JSON.stringify({
      simulations: rows.n,
      turns: rows.turns,
      modelCalls: rows.calls,
      roundTrips: count * TURNS,
      seconds,
      peakMb,
    }),
  );
  await engine.stop();
} else {
  // The same conversations with nothing around them: the growing history posted each turn.
  const converse = (n: number) =>
    Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (n > 0) {
          n--;
          const messages = [
            { role: 'system', content: 'You are a support agent.' },
            { role: 'assistant', content: 'Hello, how can I help?' },
          ];
          for (let turn = 1; turn <= TURNS; turn++) {
            messages.push({ role: 'user', content: `Question number ${turn} about my order A1?` });
            const res = await fetch(`${url}/chat/completions`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
              body: JSON.stringify({ model: 'bench', messages, temperature: 0.2, max_tokens: 100 }),
            });
            const answer = (await res.json()) as { choices: { message: { content: string } }[] };
            messages.push({ role: 'assistant', content: answer.choices[0]!.message.content });
          }
        }
      }),
    );
  await converse(WARM_UP);
  const started = performance.now();
  await converse(count);
  const seconds = (performance.now() - started) / 1000;
  const peakMb = sampler.stop();
  console.log(JSON.stringify({ simulations: 0, roundTrips: count * TURNS, seconds, peakMb }));
}
rmSync(dir, { recursive: true, force: true });
process.exit(0);
