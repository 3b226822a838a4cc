import { rmSync } from 'node:fs';
import { createEngine } from '../../src/engine.js';
import { newId } from '../../src/ids.js';
import { tempDir } from '../helpers/server.js';
import { alternate, median, round, type Figure } from './harness.js';

/*
 * `npm run bench suites` (#38): importing a suite against making the same resources through the API
 * one request at a time, both over HTTP on a real server (port 0), both into an empty engine, in the
 * same run. Figures: plan plus apply of a 1,000-persona, 200-scenario, 50-tool suite (goal at most
 * 0.5x the one-by-one creation), a second apply with every resource unchanged (at most 0.2x), and
 * the export of 2,000 personas against 1,000 (at most 2.5x: linear). The suite's files are real:
 * exported by the engine from resources created through the API.
 */

const SIZES = { personas: 1_000, scenarios: 200, tools: 50, personasPerScenario: 5 };

interface SuiteFile {
  path: string;
  content: string;
}

/** A started engine on 127.0.0.1:0, its key and default workspace, and its removal. */
async function startEngine() {
  const dataDir = tempDir();
  const engine = createEngine({ dataDir });
  const key = (await engine.start()).firstApiKey!;
  const url = await engine.listen(0, '127.0.0.1');
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  /** One JSON request; a non-2xx answer fails the bench, naming what was refused. */
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(url + path, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 2_000)}`);
    return JSON.parse(text) as T;
  }
  const listed = await call<{ data: { workspaces: { id: string }[] } }>(
    'GET',
    '/api/v1/workspaces',
  );
  const ws = listed.data.workspaces[0]!.id;
  return {
    engine,
    ws,
    call,
    wsPath: `/api/v1/workspaces/${ws}`,
    async stop() {
      await engine.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
type Running = Awaited<ReturnType<typeof startEngine>>;

const toolBody = (i: number) => ({
  name: `order_tool_${i}`,
  description: `Looks up order data, variant ${i}`,
  type: 'api',
  config: { url: `https://api.example.com/orders/${i}`, method: 'GET', timeoutMs: 5_000 },
  parameters: [{ name: 'order_id', type: 'string', required: true, description: 'The order' }],
});

const personaBody = (i: number) => ({
  name: `Caller ${i}`,
  language: 'en',
  prompt: `You are caller ${i}. Your order is late and you want to know where it is.`,
  emotion: i % 3 === 0 ? 'frustrated' : 'neutral',
  difficulty: i % 2 ? 'medium' : 'hard',
  tags: ['bench', `group-${i % 10}`],
});

const scenarioBody = (i: number, personas: string[], scorecard: string) => ({
  name: `Late order ${i}`,
  prompt: 'Order {{order_id}} is late. Ask where it is and when it arrives.',
  promptVariables: [{ name: 'order_id', type: 'string', defaultValue: 'A1' }],
  personas,
  scorecard,
  tags: ['bench', i % 4 === 0 ? 'nightly' : 'smoke'],
  expectedOutcome: 'The caller learns when the order arrives',
  expectedBehavior: { toolCalls: [`order_tool_${i % SIZES.tools}`] },
  script: [{ say: 'Where is my order {{order_id}}?', expect: { contains: 'order' } }],
  maxTurns: 8,
  cases:
    i % 10 === 0
      ? Array.from({ length: 5 }, (_, c) => ({ variables: { order_id: `${i}-${c}` } }))
      : null,
});

/** The one-by-one baseline: every resource of the suite created by its own API request. */
async function createOneByOne(app: Running): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < SIZES.tools; i++) await app.call('POST', '/v1/tools', toolBody(i));
  const card = await app.call<{ data: { scorecard: { id: string } } }>(
    'POST',
    `${app.wsPath}/scorecards`,
    {
      name: 'Bench scorecard',
      metrics: [{ name: 'Mentions the order', type: 'contains', config: { text: 'order' } }],
    },
  );
  const personas: string[] = [];
  for (let i = 0; i < SIZES.personas; i++) {
    const made = await app.call<{ data: { persona: { id: string } } }>(
      'POST',
      `${app.wsPath}/personas`,
      personaBody(i),
    );
    personas.push(made.data.persona.id);
  }
  for (let i = 0; i < SIZES.scenarios; i++) {
    const from = (i * SIZES.personasPerScenario) % SIZES.personas;
    const chosen = personas.slice(from, from + SIZES.personasPerScenario);
    await app.call(
      'POST',
      `${app.wsPath}/scenarios`,
      scenarioBody(i, chosen, card.data.scorecard.id),
    );
  }
  return performance.now() - start;
}

type Plan = { valid: boolean; entries: { kind: string; key: string; action: string }[] };

/** Plan plus apply of the files into the engine's workspace, over HTTP; the apply's plan. */
async function planAndApply(app: Running, files: SuiteFile[], planFirst: boolean) {
  const start = performance.now();
  if (planFirst) {
    const planned = await app.call<{ data: { plan: Plan } }>('POST', `${app.wsPath}/suite/plan`, {
      files,
    });
    if (!planned.data.plan.valid) throw new Error('the exported suite does not plan cleanly');
  }
  const applied = await app.call<{ data: { plan: Plan } }>('POST', `${app.wsPath}/suite/apply`, {
    files,
  });
  return { ms: performance.now() - start, plan: applied.data.plan };
}

const count = (plan: Plan, action: string) =>
  plan.entries.filter((e) => e.action === action).length;

/** One round: the baseline in a fresh engine, then plan plus apply (twice) into another fresh one. */
async function importRound(files: SuiteFile[] | null) {
  const source = await startEngine();
  const createMs = await createOneByOne(source);
  const exported =
    files ??
    (
      await source.call<{ data: { files: SuiteFile[] } }>(
        'POST',
        `${source.wsPath}/suite/export`,
        {},
      )
    ).data.files;
  await source.stop();
  const target = await startEngine();
  const first = await planAndApply(target, exported, true);
  const second = await planAndApply(target, exported, false);
  const total = await target.call<{ data: { pagination: { total: number } } }>(
    'GET',
    `${target.wsPath}/personas?limit=1`,
  );
  await target.stop();
  if (total.data.pagination.total !== SIZES.personas)
    throw new Error(`applied ${total.data.pagination.total} personas, not ${SIZES.personas}`);
  return { createMs, first, second, files: exported };
}

/** An engine whose default workspace holds `n` personas (written through the store: setup only). */
async function engineWithPersonas(n: number): Promise<Running> {
  const app = await startEngine();
  const base = Date.parse('2026-01-01T00:00:00Z');
  await app.engine.store.transaction(async (tx) => {
    for (let i = 0; i < n; i++) {
      const at = new Date(base + i * 1_000).toISOString();
      const { name, prompt, tags } = personaBody(i);
      await tx.personas.insert(app.ws, {
        id: newId('per', base + i),
        key: null,
        name,
        language: 'en',
        prompt,
        tags,
        emotion: i % 3 === 0 ? 'frustrated' : 'neutral',
        difficulty: i % 2 ? 'medium' : 'hard',
        backgroundNoise: 'none',
        voice: null,
        noise: null,
        behaviours: null,
        created_at: at,
        updated_at: at,
        created_by: { id: 'usr_bench', name: 'bench' },
      });
    }
  });
  return app;
}

/** Median wall time of `times` exports of the default workspace, in ms. */
async function exportMs(app: Running, times: number): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < times; i++) {
    const start = performance.now();
    await app.call('POST', `${app.wsPath}/suite/export`, {});
    samples.push(performance.now() - start);
  }
  return median(samples);
}

async function importFigures(rounds: number): Promise<Figure[]> {
  const created: number[] = [];
  const applied: number[] = [];
  const unchanged: number[] = [];
  let files: SuiteFile[] | null = null;
  let last: Awaited<ReturnType<typeof importRound>> | undefined;
  for (let r = 0; r < rounds; r++) {
    last = await importRound(files);
    files = last.files;
    created.push(last.createMs);
    applied.push(last.first.ms);
    unchanged.push(last.second.ms);
  }
  const create = median(created);
  const firstRatio = median(applied) / create;
  const secondRatio = median(unchanged) / create;
  const { first, second } = last!;
  const notUnchanged = second.plan.entries.filter((e) => e.action !== 'unchanged');
  const suite = `${SIZES.personas} personas, ${SIZES.scenarios} scenarios, ${SIZES.tools} tools (${files!.length} files)`;
  return [
    {
      name: `plan + apply of a suite (${suite}) into an empty workspace vs creating it one request at a time`,
      value: round(firstRatio),
      goal: '<= 0.5',
      met: firstRatio <= 0.5,
      detail: `${Math.round(median(applied))} ms against ${Math.round(create)} ms (median of ${rounds}; ${count(first.plan, 'create')} created)`,
    },
    {
      name: 'a second apply of the same files (all unchanged) vs creating it one request at a time',
      value: round(secondRatio),
      goal: '<= 0.2',
      met: secondRatio <= 0.2 && notUnchanged.length === 0,
      detail: `${Math.round(median(unchanged))} ms against ${Math.round(create)} ms; ${notUnchanged.length} entries not unchanged${
        notUnchanged.length
          ? ` (${notUnchanged
              .slice(0, 3)
              .map((e) => `${e.action} ${e.kind} ${e.key}`)
              .join(', ')})`
          : ''
      }`,
    },
  ];
}

async function exportFigure(samples: number): Promise<Figure> {
  const small = await engineWithPersonas(1_000);
  const large = await engineWithPersonas(2_000);
  try {
    // Warm-up: the first export of each persists the keys it gave, and the first few of a process
    // run its code cold (measured: 150 ms, then 130, then 45 steady at 1,000 personas).
    await exportMs(small, 3);
    await exportMs(large, 3);
    const times = await alternate(3, {
      small: () => exportMs(small, samples),
      large: () => exportMs(large, samples),
    });
    const growth = times.large / times.small;
    return {
      name: 'export of 2,000 personas vs 1,000',
      value: round(growth),
      goal: '<= 2.5',
      met: growth <= 2.5,
      detail: `${round(times.large, 1)} ms against ${round(times.small, 1)} ms per export`,
    };
  } finally {
    await small.stop();
    await large.stop();
  }
}

/** BENCH_SECONDS scales the rounds: below 3, one import round and three exports a sample. */
export async function suitesBench(seconds: number): Promise<Figure[]> {
  const rounds = seconds >= 3 ? 3 : 1;
  const figures = await importFigures(rounds);
  figures.push(await exportFigure(seconds >= 3 ? 5 : 3));
  return figures;
}
