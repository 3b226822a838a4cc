import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { handled } from '../helpers/handled.js';
import { startServer, testClock, type TestServer } from '../helpers/server.js';
import { storedRows } from '../helpers/store-under-test.js';

const TOKEN = 'sk_live_raw_secret_4242';
const HOUR = 3_600_000;

/**
 * A real target on 127.0.0.1: /echo answers the request's credentials back (a careless target) in
 * a header and in its body, /big a body larger than the raw view, /fail a 500 echoing them too.
 */
async function startEchoTarget(): Promise<{ url: string; server: Server }> {
  const server = createServer(
    handled(async (req, res) => {
      const path = new URL(req.url!, 'http://x').pathname;
      const auth = String(req.headers.authorization ?? '');
      // The request is read to its end before answering, as a real target would.
      await new Promise((resolve) => req.resume().on('end', resolve));
      if (path === '/big') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        return res.end('x'.repeat(100 * 1024));
      }
      const status = path === '/fail' ? 500 : 200;
      res.writeHead(status, { 'content-type': 'application/json', 'x-echo-auth': auth });
      res.end(JSON.stringify({ order: { status: 'shipped' }, youSent: auth }));
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const tool = (name: string, url: string) => ({
  name,
  type: 'api',
  config: { method: 'GET', url: `${url}/{path}`, auth: { type: 'bearer', token: TOKEN } },
  parameters: [{ name: 'path', type: 'string', required: true }],
  responseMapping: { status: 'order.status' },
});

describe('tool test: the raw answer beside the mapped result', () => {
  let s: TestServer;
  let target: { url: string; server: Server };
  beforeAll(async () => {
    target = await startEchoTarget();
    s = await startServer();
    expect((await s.call('POST', '/v1/tools', tool('echo', target.url))).status).toBe(201);
  });
  afterAll(async () => {
    await s.stop();
    target.server.close();
  });

  const test = (path: string, extra: Record<string, unknown> = {}) =>
    s.call('POST', '/v1/tools/echo/test', { parameters: { path }, ...extra });

  it('answers status, headers and body as they came, the tool secret masked in each', async () => {
    const res = await test('echo');
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({ status: 'shipped' });
    const raw = res.body.raw;
    expect(raw).toMatchObject({ status: 200, truncated: false });
    expect(raw.headers['content-type']).toBe('application/json');
    expect(raw.headers['x-echo-auth']).toBe('Bearer ****');
    expect(JSON.parse(raw.body)).toEqual({ order: { status: 'shipped' }, youSent: 'Bearer ****' });
    expect(raw.bytes).toBeGreaterThan(0);
    expect(JSON.stringify(res.body)).not.toContain(TOKEN);
  });

  it('keeps the raw answer of a failing target, masked too', async () => {
    const res = await test('fail');
    expect(res.body).toMatchObject({ success: false, statusCode: 500, result: null });
    expect(res.body.raw.status).toBe(500);
    expect(res.body.raw.headers['x-echo-auth']).toBe('Bearer ****');
    expect(JSON.stringify(res.body)).not.toContain(TOKEN);
  });

  it('bounds the body to its first 64 KiB and says so', async () => {
    const res = await test('big');
    expect(res.body.raw).toMatchObject({ truncated: true, bytes: 100 * 1024 });
    expect(res.body.raw.body).toHaveLength(64 * 1024);
  });

  it('has no raw answer on a dry run, where nothing is sent', async () => {
    const res = await test('echo', { dryRun: true });
    expect(res.body.dryRun).toBe(true);
    expect(res.body).not.toHaveProperty('raw');
  });
});

describe('analytics: a time window and a trend over it', () => {
  let s: TestServer;
  let target: { url: string; server: Server };
  const T = Date.parse('2026-06-30T12:00:00Z');
  const clock = testClock(T);
  beforeEach(() => clock.set('2026-06-30T12:00:00Z'));
  beforeAll(async () => {
    target = await startEchoTarget();
    s = await startServer({ clock });
    await s.call('POST', '/v1/tools', tool('trend', target.url));
    const call = (path: string) => s.call('POST', '/v1/tools/trend/test', { parameters: { path } });
    // Three hours ago: two successes and a failure; ten minutes ago: one success.
    clock.set(new Date(T - 3 * HOUR).toISOString());
    for (const path of ['echo', 'echo', 'fail']) await call(path);
    clock.set(new Date(T - 10 * 60_000).toISOString());
    await call('echo');
  });
  afterAll(async () => {
    await s.stop();
    target.server.close();
  });

  const analytics = async (query: string) => {
    const res = await s.call('GET', `/v1/tools/trend/analytics${query}`);
    expect(res.status).toBe(200);
    return res.body as {
      timeRange: string;
      usage: { totalCalls: number };
      trend: {
        start: string;
        count: number;
        successRate: number | null;
        p95ResponseTime: number | null;
      }[];
    };
  };
  const counted = (trend: { count: number }[]) => trend.reduce((n, b) => n + b.count, 0);

  it('cuts the last 24 hours into hourly buckets with count, success rate and latency', async () => {
    const a = await analytics('?window=24h');
    expect(a.timeRange).toBe('24h');
    expect(a.usage.totalCalls).toBe(4);
    expect(a.trend).toHaveLength(24);
    expect(counted(a.trend)).toBe(4);
    const busy = a.trend.filter((b) => b.count > 0);
    expect(busy.map((b) => [b.count, b.successRate])).toEqual([
      [3, 66.67],
      [1, 100],
    ]);
    expect(busy[0]!.start).toBe('2026-06-30T08:00:00.000Z');
    expect(busy.every((b) => typeof b.p95ResponseTime === 'number')).toBe(true);
    expect(a.trend[0]).toMatchObject({ count: 0, successRate: null, p95ResponseTime: null });
  });

  it('reads the last hour, all time, and the days it always took', async () => {
    const hour = await analytics('?window=1h');
    expect([hour.trend.length, hour.usage.totalCalls, counted(hour.trend)]).toEqual([12, 1, 1]);
    const all = await analytics('?window=all');
    expect(all.timeRange).toBe('all');
    expect([all.usage.totalCalls, counted(all.trend), all.trend[0]!.count]).toEqual([4, 4, 3]);
    const week = await analytics('?days=7');
    expect([week.timeRange, week.trend.length, counted(week.trend)]).toEqual(['7d', 28, 4]);
  });

  it('refuses a window it does not know, naming it', async () => {
    const res = await s.call('GET', '/v1/tools/trend/analytics?window=2w');
    expect(res.status).toBe(400);
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual(['window']);
  });

  it("gives an agent's simulations a window and a trend", async () => {
    await storedRows(
      s.stored,
      "INSERT INTO agents (id, provider, provider_agent_id, name, status, created_at, updated_at) VALUES ('agt_t', 'vapi', 't', 'T', 'active', '2026-06-01T00:00:00Z', '2026-06-01T00:00:00Z')",
    );
    const scn = (await s.ws('POST', '/scenarios', { name: 'S', prompt: 'p' })).body.data.scenario
      .id;
    await storedRows(
      s.stored,
      "INSERT INTO executions (id, workspace_id, scenario_id, status, created_at) VALUES ('exe_t', ?, ?, 'completed', '2026-06-01T00:00:00Z')",
      [s.workspaceId, scn],
    );
    const at = (ms: number) => new Date(T - ms).toISOString();
    const sims: [string, number, number, number, string][] = [
      ['st1', 90, 1, 4000, at(2 * HOUR)],
      ['st2', 30, 0, 8000, at(2 * HOUR)],
      ['st3', 80, 1, 6000, at(3 * 24 * HOUR)],
    ];
    for (const [id, score, passed, duration, when] of sims)
      await storedRows(
        s.stored,
        "INSERT INTO simulations (id, workspace_id, execution_id, scenario_id, agent_id, status, score, passed, duration_ms, created_at, ended_at, results) VALUES (?, ?, 'exe_t', ?, 'agt_t', 'completed', ?, ?, ?, ?, ?, '[]')",
        [id, s.workspaceId, scn, score, passed, duration, when, when],
      );
    const day = (await s.call('GET', '/v1/agents/agt_t/analytics?window=24h')).body;
    expect(day.timeRange).toBe('24h');
    expect(day.trend).toHaveLength(24);
    expect(day.trend.filter((b: { count: number }) => b.count)).toEqual([
      expect.objectContaining({
        count: 2,
        passed: 1,
        passRate: 50,
        avgScore: 60,
        p50DurationMs: 4000,
        p95DurationMs: 8000,
      }),
    ]);
    const week = (await s.call('GET', '/v1/agents/agt_t/analytics?window=7d')).body;
    expect([week.trend.length, week.simulations.total]).toEqual([28, 3]);
    const all = (await s.call('GET', '/v1/agents/agt_t/analytics?window=all')).body;
    expect(all.simulations.total).toBe(3);
  });
});
