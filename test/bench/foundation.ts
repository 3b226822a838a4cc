import Fastify from 'fastify';
import { rmSync } from 'node:fs';
import { createEngine } from '../../src/engine.js';
import { newId } from '../../src/ids.js';
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
  const key = engine.start().firstApiKey!;
  const ws = engine.store.workspaces.list()[0]!.id;
  const base = Date.parse('2026-01-01T00:00:00Z');
  engine.store.transaction(() => {
    for (let i = 0; i < count; i++) {
      const at = new Date(base + i * 1000).toISOString();
      const special = i % Math.floor(count / marked) === 0;
      engine.store.personas.insert(ws, {
        id: newId('per', base + i),
        name: `${WORDS[i % 10]} caller ${i}${special ? ' Zephyr' : ''}`,
        language: 'en',
        prompt: 'You call about an order that is late and you want a refund.',
        emotion: 'neutral',
        difficulty: 'medium',
        backgroundNoise: 'none',
        tags: ['bench', WORDS[i % 10]!.toLowerCase()],
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
    async stop() {
      await engine.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function foundationBench(seconds: number): Promise<Figure[]> {
  const figures: Figure[] = [];

  // 1. Throughput of an authenticated persona page against a bare route serving the same objects.
  const app = await engineWith(1_000, 20);
  const path = `/api/v1/workspaces/${app.ws}/personas?limit=50`;
  const headers = { authorization: `Bearer ${app.key}` };
  const page = await (await fetch(app.url + path, { headers })).json();
  const bare = Fastify({ logger: false });
  bare.get('/personas', async () => page);
  const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });
  // Uncached: every request asks for another page, so each one runs its queries.
  let n = 0;
  const rps = await alternate(3, {
    bare: () => throughput(`${bareUrl}/personas`, {}, seconds),
    ours: () => throughput(app.url + path, headers, seconds),
    uncached: () =>
      throughput(app.url, headers, seconds, () => `${path}&offset=${(n++ * 7) % 950}`),
  });
  await bare.close();
  const ratio = rps.ours / rps.bare;
  figures.push({
    name: 'GET /personas?limit=50 throughput vs bare fastify from memory',
    value: round(ratio),
    goal: '>= 0.5',
    met: ratio >= 0.5,
    detail: `${Math.round(rps.ours)} req/s against ${Math.round(rps.bare)} req/s (repeated page, answered from the read cache)`,
  });
  figures.push({
    name: 'the same, every request a different page (read cache missed)',
    value: round(rps.uncached / rps.bare),
    goal: 'reported',
    met: true,
    detail: `${Math.round(rps.uncached)} req/s against ${Math.round(rps.bare)} req/s`,
  });

  // 2. A name search at 100,000 personas against 1,000 (20 matches in each).
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
