import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createEngine } from '../../src/engine.js';
import { newId } from '../../src/ids.js';
import { slugKey } from '../../src/domain/suite-keys.js';
import { tempDir } from '../helpers/server.js';
import { alternate, perCall, round, throughput, type Figure } from './harness.js';

const WORDS = [
  'Amber',
  'Birch',
  'Cedar',
  'Dune',
  'Ember',
  'Fjord',
  'Grove',
  'Harbor',
  'Iris',
  'Juniper',
];

/** Starts an engine whose default workspace holds `count` personas; `marked` of them carry the name "Zephyr". */
async function engineWith(count: number, marked: number) {
  const dataDir = tempDir();
  const engine = createEngine({ dataDir });
  const key = (await engine.start()).firstApiKey!;
  const ws = (await engine.store.workspaces.list())[0]!.id;
  const base = Date.parse('2026-01-01T00:00:00Z');
  await engine.store.transaction(async (tx) => {
    for (let i = 0; i < count; i++) {
      const at = new Date(base + i * 1000).toISOString();
      const special = i % Math.floor(count / marked) === 0;
      const name = `${WORDS[i % 10]} caller ${i}${special ? ' Zephyr' : ''}`;
      // Stored keys, as after an export: the page then reads no other persona to derive one.
      await tx.personas.insert(ws, {
        id: newId('per', base + i),
        key: slugKey(name, 'persona'),
        name,
        language: 'en',
        prompt: 'You call about an order that is late and you want a refund.',
        emotion: 'neutral',
        difficulty: 'medium',
        backgroundNoise: 'none',
        tags: ['bench', WORDS[i % 10]!.toLowerCase()],
        voice: null,
        noise: null,
        behaviours: null,
        created_at: at,
        updated_at: at,
        created_by: { id: 'usr_bench', name: 'bench' },
      });
    }
  });
  const url = await engine.listen(0, '127.0.0.1');
  return {
    url,
    key,
    ws,
    engine,
    dataDir,
    async stop() {
      await engine.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

interface BareRow {
  id: string;
  key: string;
  name: string;
  language: string;
  emotion: string;
  difficulty: string;
  background_noise: string;
  tags: string;
  created_at: string;
  updated_at: string;
  created_by_id: string;
  created_by_name: string;
}

/**
 * The least the same persona page costs: the engine's three queries (count, page, usage of the
 * page's personas) with better-sqlite3 on a second connection, built into the answer the API
 * specifies (the same fields in the same order, tags parsed, `created_by` nested, `usage_stats`,
 * `pagination`): the bench checks that both answer the same bytes before it measures.
 */
function bareSqlRoute(file: string, ws: string) {
  const db = new Database(file, { readonly: true });
  const count = db.prepare('SELECT COUNT(*) FROM personas p WHERE p.workspace_id = ?').pluck();
  const rows = db.prepare<[string, number, number], BareRow>(
    `SELECT p.id, p.key, p.name, p.language, p.emotion, p.difficulty, p.background_noise, p.tags,
       p.created_at, p.updated_at, p.created_by_id, p.created_by_name
       FROM personas p WHERE p.workspace_id = ?
      ORDER BY p.created_at DESC, p.id DESC LIMIT CAST(? AS BIGINT) OFFSET CAST(? AS BIGINT)`,
  );
  const usageSql = (n: number) =>
    `SELECT persona_id AS id, COUNT(*) AS total, AVG(score) AS avg,
       MAX(COALESCE(ended_at, started_at, created_at)) AS last FROM simulations
      WHERE persona_id IN (${Array(n).fill('?').join(',')}) AND status IN ('completed', 'failed')
      GROUP BY persona_id`;
  type UsageRow = { id: string; total: number; avg: number | null; last: string | null };
  const usage = new Map<number, Database.Statement<string[], UsageRow>>();
  const route = (limit: number, offset: number) => {
    const total = count.get(ws) as number;
    const page = rows.all(ws, limit, offset);
    const ids = page.map((r) => r.id);
    let stmt = usage.get(ids.length);
    if (!stmt) usage.set(ids.length, (stmt = db.prepare(usageSql(ids.length))));
    const used = new Map((ids.length ? stmt.all(...ids) : []).map((u) => [u.id, u]));
    const personas = page.map((r) => {
      const u = used.get(r.id);
      return {
        id: r.id,
        key: r.key,
        name: r.name,
        language: r.language,
        emotion: r.emotion,
        difficulty: r.difficulty,
        backgroundNoise: r.background_noise,
        tags: JSON.parse(r.tags) as string[],
        created_at: r.created_at,
        updated_at: r.updated_at,
        created_by: { id: r.created_by_id, name: r.created_by_name },
        usage_stats: {
          total_simulations: u?.total ?? 0,
          avg_score: u?.avg == null ? null : Math.round(u.avg * 100) / 100,
          last_used: u?.last ?? null,
        },
      };
    });
    const pagination = {
      total,
      page: Math.floor(offset / limit) + 1,
      limit,
      has_more: offset + limit < total,
    };
    return { success: true, data: { personas, pagination } };
  };
  return Object.assign(route, { close: () => db.close() });
}

/** Fails the bench when the bare route and the engine do not answer the same bytes. */
async function expectSameAnswer(ours: string, bare: string, headers: Record<string, string>) {
  for (const offset of [0, 7, 500]) {
    const [a, b] = await Promise.all([
      fetch(`${ours}&offset=${offset}`, { headers }).then((r) => r.text()),
      fetch(`${bare}&offset=${offset}`).then((r) => r.text()),
    ]);
    if (a !== b) throw new Error(`the bare persona page differs at offset ${offset}:\n${a}\n${b}`);
  }
}

export async function foundationBench(seconds: number): Promise<Figure[]> {
  const figures: Figure[] = [];

  // 1. Throughput of an authenticated persona page against bare routes: one serving the same
  // objects from memory, one running the same SQL with better-sqlite3 into the same answer.
  const app = await engineWith(1_000, 20);
  const path = `/api/v1/workspaces/${app.ws}/personas?limit=50`;
  const headers = { authorization: `Bearer ${app.key}` };
  const page: unknown = await (await fetch(app.url + path, { headers })).json();
  const bare = Fastify({ logger: false });
  bare.get('/personas', (_req, reply) => reply.send(page));
  const sql = bareSqlRoute(join(app.dataDir, 'callbench.db'), app.ws);
  bare.get('/api/v1/workspaces/:ws/personas', (req, reply) => {
    const q = req.query as { limit?: string; offset?: string };
    return reply.send(sql(Number(q.limit ?? 20), Number(q.offset ?? 0)));
  });
  const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });
  await expectSameAnswer(app.url + path, bareUrl + path, headers);
  // Uncached: every request asks for another page, so each one runs its queries.
  const pages = { stride: 7, modulo: 950 };
  const rps = await alternate(3, {
    bare: () => throughput({ url: `${bareUrl}/personas`, headers: {}, seconds }),
    ours: () => throughput({ url: app.url + path, headers, seconds }),
    bareSql: () =>
      throughput({
        url: bareUrl,
        headers: {},
        seconds,
        pages: { path, ...pages },
      }),
    uncached: () => throughput({ url: app.url, headers, seconds, pages: { path, ...pages } }),
  });
  await bare.close();
  sql.close();
  const ratio = rps.ours / rps.bare;
  figures.push({
    name: 'GET /personas?limit=50 throughput vs bare fastify from memory',
    value: round(ratio),
    goal: '>= 0.5',
    met: ratio >= 0.5,
    detail: `${Math.round(rps.ours)} req/s against ${Math.round(rps.bare)} req/s (repeated page, answered from the read cache)`,
  });
  const uncachedRatio = rps.uncached / rps.bareSql;
  figures.push({
    name: 'the same, every request another page (read cache missed), vs bare fastify running the same SQL',
    value: round(uncachedRatio),
    goal: '>= 0.8',
    met: uncachedRatio >= 0.8,
    detail: `${Math.round(rps.uncached)} req/s against ${Math.round(rps.bareSql)} req/s (bare: the count, page and usage queries with better-sqlite3, built into the same answer, byte for byte)`,
  });

  // 2. A name search at 100,000 personas against 1,000 (20 matches in each).
  // BENCH_ONLY=page stops here (a quicker loop while working on the page's cost).
  if (process.env.BENCH_ONLY === 'page') {
    await app.stop();
    return figures;
  }
  const small = app;
  const large = await engineWith(100_000, 20);
  const search = (s: typeof app) => () =>
    fetch(`${s.url}/api/v1/workspaces/${s.ws}/personas?name=zephyr&limit=50`, {
      headers: { authorization: `Bearer ${s.key}` },
    }).then((r) => r.json());
  const found = (await search(large)()) as { data: { pagination: { total: number } } };
  if (found.data.pagination.total !== 20)
    throw new Error(`expected 20 matches, got ${found.data.pagination.total}`);
  // Every request has an offset never asked before, so the read cache never answers: this measures
  // the query itself (offsets past the 20 matches still count and sort every match).
  let k = 0;
  const uncachedSearch = (s: typeof app) => () =>
    fetch(`${s.url}/api/v1/workspaces/${s.ws}/personas?name=zephyr&limit=5&offset=${k++}`, {
      headers: { authorization: `Bearer ${s.key}` },
    }).then((r) => r.json());
  const times = await alternate(3, {
    small: () => perCall(300, uncachedSearch(small)),
    large: () => perCall(300, uncachedSearch(large)),
  });
  const growth = times.large / times.small;
  figures.push({
    name: 'GET /personas?name=… at 100,000 vs 1,000 personas',
    value: round(growth),
    goal: '<= 3',
    met: growth <= 3,
    detail: `${round(times.large, 3)} ms against ${round(times.small, 3)} ms per request (uncached)`,
  });
  await large.stop();
  await small.stop();
  return figures;
}
