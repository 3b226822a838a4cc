import { lookup } from 'node:dns/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EngineOptions } from '../../src/engine-options.js';
import { startLocalServer, type LocalServer } from '../helpers/http-agents.js';
import { ensureDatabase, startPostgres, type Postgres } from '../helpers/postgres.js';
import { startReceiver } from '../helpers/receivers.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { onPostgres } from '../helpers/store-under-test.js';
import { startTarget, type Target } from '../helpers/target.js';
import { TEAM_KEY } from '../helpers/team.js';

const refusal = (address: string) =>
  `${address} is a loopback address; team servers do not reach internal addresses unless CALLBENCH_OUTBOUND_ALLOW lists them`;

/** A local server that counts what reaches it: an agent, a model, anything that must get nothing. */
async function counting(): Promise<LocalServer & { requests: () => number }> {
  let requests = 0;
  const server = await startLocalServer((_req, res) => {
    requests++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ reply: 'Hello.' }));
  });
  return { ...server, requests: () => requests };
}

// These start their own PostgreSQL, whichever store the run is on: they run once, in the SQLite run.
describe.skipIf(onPostgres())('a team server does not reach internal addresses', () => {
  let postgres: Postgres;
  let target: Target;
  let n = 0;
  const servers: TestServer[] = [];

  beforeAll(async () => {
    [postgres, target] = await Promise.all([startPostgres(), startTarget()]);
  });
  afterEach(async () => {
    await Promise.allSettled(servers.splice(0).map((s) => s.stop()));
  });
  afterAll(async () => {
    await target?.stop();
    postgres?.stop();
  });

  /** A team server (a PostgreSQL store) on a new database, or on `databaseUrl`'s. */
  async function teamServer(options: Partial<EngineOptions> = {}, databaseUrl?: string) {
    const url = databaseUrl ?? (await ensureDatabase(postgres.url, `guard_${++n}`));
    const s = await startServer({ databaseUrl: url, secretKey: TEAM_KEY, ...options });
    servers.push(s);
    return s;
  }

  const tool = async (s: TestServer, name: string, config: Record<string, unknown>) =>
    expect((await s.call('POST', '/v1/tools', { name, type: 'api', config })).status).toBe(201);
  const testTool = async (s: TestServer, name: string) =>
    (await s.call('POST', `/v1/tools/${name}/test`, {})).body;
  const hits = (path: string) => target.hits.get(path) ?? 0;

  it('tools.test: an internal address, a name resolving to one, an OAuth token URL; nothing is sent', async () => {
    const s = await teamServer();
    const port = new URL(target.url).port;
    await tool(s, 'literal', { url: `${target.url}/orders/literal` });
    await tool(s, 'named', { url: `http://localhost:${port}/orders/named` });
    await tool(s, 'oauth', {
      url: 'https://crm.example.com/orders',
      auth: {
        type: 'oauth2',
        clientId: 'client-1',
        clientSecret: 'client-secret-xyz',
        tokenUrl: `${target.url}/oauth/token`,
      },
    });
    const tokens = hits('/oauth/token');
    const blocked = (address: string) => ({
      success: false,
      error: { type: 'blocked_address', message: refusal(address) },
    });
    expect(await testTool(s, 'literal')).toMatchObject(blocked('127.0.0.1'));
    // Refused on the address the name resolves to: the first one the system gives.
    const [first] = await lookup('localhost', { all: true });
    expect(await testTool(s, 'named')).toMatchObject(blocked(first!.address));
    expect(await testTool(s, 'oauth')).toMatchObject(blocked('127.0.0.1'));
    expect([hits('/orders/literal'), hits('/orders/named'), hits('/oauth/token') - tokens]).toEqual(
      [0, 0, 0],
    );
    // The call log says why, and analytics counts it so.
    const analytics = await s.call('GET', '/v1/tools/literal/analytics?days=1');
    expect(analytics.body.errors).toEqual([
      expect.objectContaining({ type: 'blocked_address', count: 1 }),
    ]);
  });

  it('every redirect hop is checked: an allowed name that redirects to 127.0.0.1 goes no further', async () => {
    const s = await teamServer({ outboundAllow: ['localhost'] });
    const port = new URL(target.url).port;
    const to = encodeURIComponent(`${target.url}/orders/after-hop`);
    await tool(s, 'hop', { url: `http://localhost:${port}/redirect?code=302&to=${to}` });
    const before = hits('/redirect');
    expect(await testTool(s, 'hop')).toMatchObject({
      success: false,
      error: { type: 'blocked_address', message: refusal('127.0.0.1') },
    });
    expect(hits('/redirect') - before).toBe(1);
    expect(hits('/orders/after-hop')).toBe(0);
  });

  it('CALLBENCH_OUTBOUND_ALLOW lets a CIDR through', async () => {
    const s = await teamServer({ outboundAllow: ['10.0.0.0/8', '127.0.0.0/8'] });
    await tool(s, 'allowed', { url: `${target.url}/orders/allowed` });
    expect(await testTool(s, 'allowed')).toMatchObject({
      success: true,
      result: { order: { id: 'allowed' } },
    });
    expect(hits('/orders/allowed')).toBe(1);
  });

  it('an http agent at an internal address: refused at connect and execute, its scheduled simulation fails; it hears nothing', async () => {
    const agent = await counting();
    try {
      // Connected while the server allowed loopback; then started again without the allowance.
      const url = await ensureDatabase(postgres.url, `guard_${++n}`);
      const before = await teamServer({ outboundAllow: ['127.0.0.0/8'] }, url);
      const connected = await before.call('POST', '/v1/agents/connect', {
        provider: 'http',
        agent_id: 'own',
        credentials: { base_url: agent.url },
      });
      expect(connected.status).toBe(201);
      const persona = (await before.ws('POST', '/personas', { name: 'Ann', prompt: 'Calm.' })).body
        .data.persona.id as string;
      const scenario = (
        await before.ws('POST', '/scenarios', {
          name: 'Hello',
          prompt: 'p',
          personas: [persona],
          targetAgents: [connected.body.id],
          script: [{ say: 'Hello?' }],
        })
      ).body.data.scenario.id as string;
      const schedule = (
        await before.ws('POST', '/schedules', {
          name: 'Daily',
          scenarioId: scenario,
          periodicity: 'daily',
        })
      ).body.data.schedule.id as string;
      await before.stop();
      servers.splice(servers.indexOf(before), 1);

      const s = await teamServer({}, url);
      const again = await s.call('POST', '/v1/agents/connect', {
        provider: 'http',
        agent_id: 'other',
        credentials: { base_url: agent.url },
      });
      expect(again.status).toBe(400);
      expect(again.body.error.details).toEqual([
        { path: 'credentials.base_url', message: `${agent.url}: ${refusal('127.0.0.1')}` },
      ]);

      const executed = await s.ws('POST', `/scenarios/${scenario}/execute`, {});
      expect(executed.status).toBe(400);
      expect(executed.body.error.details).toEqual([
        {
          path: `agents.${connected.body.id}`,
          message: `agent own at ${agent.url}: ${refusal('127.0.0.1')}`,
        },
      ]);

      // A schedule's run is not checked first: its simulation fails, saying why.
      const run = await s.ws('POST', `/schedules/${schedule}/run`);
      expect(run.status).toBe(202);
      const execution = run.body.data.run.executionId as string;
      const done = await s.ws('GET', `/executions/${execution}?wait=30`);
      expect(done.body.data.execution.status).toBe('failed');
      const sims = (await s.ws('GET', `/executions/${execution}/simulations`)).body.data
        .simulations as { status: string; error?: string }[];
      expect(sims).toHaveLength(1);
      expect(sims[0]!.status).toBe('failed');
      expect(sims[0]!.error).toContain(refusal('127.0.0.1'));
      expect(agent.requests()).toBe(0);
    } finally {
      await agent.stop();
    }
  });

  it('a webhook and a model at an internal address: not delivered, not called', async () => {
    const [hook, model] = await Promise.all([startReceiver(), counting()]);
    try {
      const s = await teamServer({ deliveryRetryBaseMs: 5 });
      await tool(s, 'watched', { url: 'https://crm.example.com/x' });
      const alert = await s.call('POST', '/v1/alerts', {
        name: 'CRM slow',
        severity: 'high',
        notifications: { webhook: { url: hook.url }, os: false },
        condition: {
          type: 'tool_performance',
          toolId: 'watched',
          metric: 'p95_response_time',
          operator: 'greater_than',
          threshold: 800,
          timeWindow: '15m',
        },
      });
      expect(alert.status).toBe(201);
      const tested = await s.call('POST', `/v1/alerts/${alert.body.id}/test`);
      expect(tested.body.results).toEqual([
        { channel: 'webhook', delivered: false, error: refusal('127.0.0.1') },
      ]);
      // Not retried: an address the server may not reach stays so.
      expect(hook.attempts()).toBe(0);

      // Model calls run on threads of their own: the guard reaches them too.
      await s.call('PATCH', '/v1/settings', {
        llm: { judge: { kind: 'openai', baseUrl: model.url, apiKey: 'k-0123456789', model: 'm' } },
      });
      const judged = await s.call('POST', '/v1/settings/llm/judge/test-connection');
      expect(judged.body).toMatchObject({
        ok: false,
        message: expect.stringContaining(refusal('127.0.0.1')),
      });
      expect(model.requests()).toBe(0);
    } finally {
      await Promise.all([hook.stop(), model.stop()]);
    }
  });
});
