import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModels } from '../helpers/fake-models.js';
import { GOOD_KEY, startFakeProviders, type FakeProviders } from '../helpers/fake-providers.js';
import {
  connectHttpAgent,
  createPersona,
  refusedUrl,
  startLocalServer,
  type LocalServer,
} from '../helpers/http-agents.js';
import { storedRows } from '../helpers/store-under-test.js';
import { startServer, type TestServer } from '../helpers/server.js';

/** An agent at its own URL: 401 without the right key, 405 to GET like most chat endpoints. */
const ownAgent = () =>
  startLocalServer((req, res) => {
    if (req.headers.authorization !== 'Bearer agent-key-1234') res.writeHead(401).end();
    else if (req.method === 'GET') res.writeHead(405).end();
    else {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ reply: 'Hello.' }));
    }
  });

describe('checks before an execution, and connection tests', () => {
  let s: TestServer;
  let agent: LocalServer;
  let providers: FakeProviders;
  let models: Awaited<ReturnType<typeof startFakeModels>>;
  let refused: string;
  const connectHttp = (name: string, url: string, key = 'agent-key-1234') =>
    connectHttpAgent(s, name, url, key);

  beforeAll(async () => {
    [s, agent, providers, models, refused] = await Promise.all([
      startServer(),
      ownAgent(),
      startFakeProviders(),
      startFakeModels(),
      refusedUrl(),
    ]);
  });
  afterAll(async () => {
    await s.stop();
    await Promise.all([agent.stop(), providers.stop(), models.stop()]);
  });

  it('execute answers one 400 listing every problem', async () => {
    const gone = await connectHttp('gone', refused);
    const persona = await createPersona(s, 'Ann');
    const scorecard = (
      await s.ws('POST', '/scorecards', {
        name: 'Judged',
        metrics: [
          {
            name: 'Helpful',
            category: 'quality',
            type: 'llm_judge',
            config: { criterion: 'The agent helps' },
          },
        ],
      })
    ).body.data.scorecard.id as string;
    const scenario = (
      await s.ws('POST', '/scenarios', {
        name: 'Many problems',
        prompt: 'Order is late.',
        promptVariables: [{ name: 'customer' }],
        personas: [persona],
        targetAgents: [gone],
        scorecard,
        script: [{ say: 'Hi, I am {{customer}}.' }],
      })
    ).body.data.scenario.id as string;
    // Saved before undeclared variables were refused at save: its execution names them.
    await storedRows(s.stored, 'UPDATE scenarios SET prompt = ?, script = ? WHERE id = ?', [
      'Order {{order_id}} is late.',
      JSON.stringify([{ say: 'Hi, I am {{customer}} about {{parcel}}.' }]),
      scenario,
    ]);
    const res = await s.ws('POST', `/scenarios/${scenario}/execute`, {});
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([
        { path: 'prompt', message: '{{order_id}} is used but not declared in promptVariables' },
        {
          path: 'script[0].say',
          message: '{{parcel}} is used but not declared in promptVariables',
        },
        { path: 'settings.llm.judge', message: expect.stringContaining('judge role') },
        { path: `agents.${gone}`, message: `agent gone at ${refused} refuses connections` },
      ]),
    );
    expect(res.body.error.details).toHaveLength(4);
    // Nothing was started.
    expect((await s.ws('GET', '/executions')).body.data.executions).toEqual([]);
  });

  it("a model URL that refuses connections is named too (the caller's, here)", async () => {
    await s.call('PATCH', '/v1/settings', {
      llm: { caller: { kind: 'openai', baseUrl: refused, apiKey: 'k-0123456789', model: 'm' } },
    });
    try {
      const good = await connectHttp('good', agent.url);
      const persona = await createPersona(s, 'Bo');
      const scenario = (
        await s.ws('POST', '/scenarios', {
          name: 'Model-played',
          prompt: 'Ask about an order.',
          personas: [persona],
          targetAgents: [good],
        })
      ).body.data.scenario.id as string;
      const res = await s.ws('POST', `/scenarios/${scenario}/execute`, {});
      expect(res.status).toBe(400);
      expect(res.body.error.details).toEqual([
        {
          path: 'settings.llm.caller',
          message: `the caller model at ${refused} refuses connections`,
        },
      ]);
    } finally {
      await s.call('PATCH', '/v1/settings', { llm: { caller: null } });
    }
  });

  it('tests an agent at its own URL: reachable, credentials refused, or refusing connections', async () => {
    const test = async (id: string) =>
      (await s.call('POST', `/v1/agents/${id}/test-connection`)).body;
    expect(await test(await connectHttp('own-ok', agent.url))).toMatchObject({
      ok: true,
      message: expect.stringContaining('answered 405'),
    });
    expect(await test(await connectHttp('own-badkey', agent.url, 'wrong-key-0000'))).toMatchObject({
      ok: false,
      message: expect.stringContaining('refused the credentials (401)'),
    });
    expect(await test(await connectHttp('own-gone', refused))).toMatchObject({
      ok: false,
      message: expect.stringContaining('refuses connections'),
    });
  });

  it("tests a provider agent with its stored key against the provider's API", async () => {
    const res = await s.call('POST', '/v1/agents/connect', {
      provider: 'vapi',
      agent_id: 'asst_1',
      credentials: { api_key: GOOD_KEY, base_url: providers.url },
    });
    const id = res.body.id as string;
    const tested = await s.call('POST', `/v1/agents/${id}/test-connection`);
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({ ok: true, latencyMs: expect.any(Number) });
  });

  it("tests a role's model with one short call; a role without a model says so", async () => {
    await s.call('PATCH', '/v1/settings', {
      llm: { judge: { kind: 'openai', baseUrl: models.url, apiKey: 'k-0123456789', model: 'm1' } },
    });
    try {
      models.openai('OK');
      const judged = await s.call('POST', '/v1/settings/llm/judge/test-connection');
      expect(judged.body).toMatchObject({ ok: true, message: 'm1 answered "OK"' });
      expect(models.requests.at(-1)!.body).toMatchObject({ model: 'm1', max_tokens: 5 });
    } finally {
      // The first test counts on having no judge model: leave none, whatever the order.
      await s.call('PATCH', '/v1/settings', { llm: { judge: null } });
    }
    expect((await s.call('POST', '/v1/settings/llm/replica/test-connection')).body).toEqual({
      ok: false,
      latencyMs: 0,
      message: 'no language model is configured for the replica role',
    });
    expect((await s.call('POST', '/v1/settings/llm/nobody/test-connection')).status).toBe(400);
  });
});
