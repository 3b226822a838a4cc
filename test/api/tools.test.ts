import type { Json } from '../helpers/json.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import { GOOD_KEY, startFakeProviders } from '../helpers/fake-providers.js';
import { secretsOf, storedRows } from '../helpers/store-under-test.js';

const api = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: 'Looks up an order',
  type: 'api',
  config: {
    method: 'GET',
    url: 'https://crm.example.com/orders/{orderId}',
    headers: { 'X-Team': 'qa' },
  },
  parameters: [{ name: 'orderId', type: 'string', required: true }],
  responseMapping: { status: 'order.status' },
  ...extra,
});

describe('tools', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s.stop());

  const paths = (res: { body: Json }) =>
    res.body.error.details.map((d: { path: string }) => d.path);

  it("creates a tool of the specification's shape and answers it bare with id and version", async () => {
    const res = await s.call(
      'POST',
      '/v1/tools',
      api('order_status', {
        rules: [
          {
            condition: 'amount > 500',
            action: 'require_approval',
            message: 'A manager must approve.',
          },
        ],
        errorHandling: {
          onTimeout: { action: 'retry', maxRetries: 2, fallbackMessage: 'One moment' },
          onNotFound: { action: 'ask_for_clarification', fallbackMessage: 'Which order?' },
        },
        parameters: [
          { name: 'orderId', type: 'string', required: true },
          { name: 'amount', type: 'number', min: 0.01, max: 10_000, default: 1 },
        ],
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^tool_/),
      name: 'order_status',
      type: 'api',
      version: 1,
    });
    expect(res.body).not.toHaveProperty('success');
    expect((await s.call('GET', '/v1/tools/order_status')).body.id).toBe(res.body.id);
    expect((await s.call('GET', `/v1/tools/${res.body.id}`)).body.name).toBe('order_status');
    expect(
      (await s.call('GET', '/v1/tools')).body.tools.map((t: { name: string }) => t.name),
    ).toContain('order_status');
  });

  it("validates each type's config", async () => {
    expect(paths(await s.call('POST', '/v1/tools', { name: 'a', type: 'api' }))).toEqual([
      'config',
    ]);
    expect(
      paths(
        await s.call('POST', '/v1/tools', {
          name: 'a',
          type: 'api',
          config: { method: 'FETCH', url: 'ftp://x' },
        }),
      ),
    ).toEqual(['config.method', 'config.url']);
    expect(
      (
        await s.call('POST', '/v1/tools', {
          name: 'route',
          type: 'routing',
          config: { transferTo: '+15550100', priority: 'high' },
          conditions: [{ check: 'tier == "gold"', action: 'allow' }],
        })
      ).status,
    ).toBe(201);
    expect(
      paths(await s.call('POST', '/v1/tools', { name: 'r2', type: 'routing', config: {} })),
    ).toEqual(['config.transferTo']);
    expect(
      (
        await s.call('POST', '/v1/tools', {
          name: 'db',
          type: 'database',
          config: { driver: 'sqlite', connection: '/tmp/x.db', query: 'SELECT 1' },
        })
      ).status,
    ).toBe(201);
    expect(
      paths(
        await s.call('POST', '/v1/tools', {
          name: 'db2',
          type: 'database',
          config: { driver: 'mysql', connection: 'x', query: 'q' },
        }),
      ),
    ).toEqual(['config.driver']);
    expect(
      (
        await s.call('POST', '/v1/tools', {
          name: 'refund',
          type: 'action',
          config: { method: 'POST', url: 'https://pay.example.com/refunds' },
        })
      ).status,
    ).toBe(201);
    expect(
      paths(await s.call('POST', '/v1/tools', { name: 'x', type: 'webhook', config: {} })),
    ).toEqual(['type']);
  });

  it('validates config.auth per auth type', async () => {
    const withAuth = (auth: unknown) =>
      s.call(
        'POST',
        '/v1/tools',
        api('auth_tool', {
          config: { method: 'GET', url: 'https://x.example.com/{orderId}', auth },
        }),
      );
    for (const auth of [
      { type: 'bearer' },
      { type: 'api_key', location: 'cookie', key: 'k' },
      { type: 'oauth2', clientId: 'c', clientSecret: 's', tokenUrl: 'not a url' },
      { type: 'basic', username: 'u' },
      { type: 'magic' },
    ]) {
      const res = await withAuth(auth);
      expect(res.status, JSON.stringify(auth)).toBe(400);
      expect(paths(res).every((p: string) => p.startsWith('config.auth'))).toBe(true);
    }
    const ok = await withAuth({ type: 'api_key', key: 'key-1234567890abcd', paramName: 'X-Key' });
    expect(ok.status).toBe(201);
    expect(ok.body.config.auth).toEqual({
      type: 'api_key',
      key: '****abcd',
      location: 'header',
      paramName: 'X-Key',
    });
  });

  it('checks parameters: types of defaults, bounds, enums, duplicates, URL placeholders', async () => {
    const res = await s.call(
      'POST',
      '/v1/tools',
      api('params', {
        config: { method: 'GET', url: 'https://x.example.com/{orderId}/{missing}' },
        parameters: [
          { name: 'orderId', type: 'string', required: true },
          { name: 'orderId', type: 'string' },
          { name: 'count', type: 'number', default: '10', min: 5, max: 1 },
          { name: 'kind', type: 'string', enum: ['a', 'b'], default: 'c' },
          { name: 'flag', type: 'boolean', min: 1 },
        ],
      }),
    );
    expect(res.status).toBe(400);
    expect(paths(res)).toEqual(
      expect.arrayContaining([
        'parameters[1].name',
        'parameters[2]',
        'parameters[2].default',
        'parameters[3].default',
        'parameters[4]',
        'config.url',
      ]),
    );
  });

  it('rejects a parameter name that is not an identifier', async () => {
    const res = await s.call(
      'POST',
      '/v1/tools',
      api('params', { parameters: [{ name: 'orderId' }, { name: 'bad name', type: 'string' }] }),
    );
    expect(paths(res)).toEqual(['parameters[1].name']);
  });

  it('rejects rule and routing expressions that do not parse, or that reach for prototypes', async () => {
    const rule = await s.call(
      'POST',
      '/v1/tools',
      api('rules', {
        rules: [{ condition: 'amount >', action: 'require_approval', message: 'x' }],
      }),
    );
    expect(paths(rule)).toEqual(['rules[0].condition']);
    const proto = await s.call(
      'POST',
      '/v1/tools',
      api('rules', {
        rules: [{ condition: 'customer["constructor"]', action: 'require_approval', message: 'x' }],
      }),
    );
    expect(proto.body.error.details[0].message).toContain('constructor');
    const routing = await s.call('POST', '/v1/tools', {
      name: 'r3',
      type: 'routing',
      config: { transferTo: 'x' },
      conditions: [{ check: '== 1', action: 'allow' }],
    });
    expect(paths(routing)).toEqual(['conditions[0].check']);
  });

  it('enforces the name pattern and uniqueness (409)', async () => {
    expect(paths(await s.call('POST', '/v1/tools', api('has space')))).toEqual(['name']);
    expect(paths(await s.call('POST', '/v1/tools', api('x'.repeat(65))))).toEqual(['name']);
    await s.call('POST', '/v1/tools', api('dupe'));
    const again = await s.call('POST', '/v1/tools', api('dupe'));
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
  });

  it('stores secrets encrypted, answers them masked, and keeps them when the mask is sent back', async () => {
    const token = 'sk_live_super_secret_9876';
    const created = (
      await s.call(
        'POST',
        '/v1/tools',
        api('secretive', {
          config: {
            method: 'GET',
            url: 'https://x.example.com/{orderId}',
            auth: { type: 'bearer', token },
          },
        }),
      )
    ).body;
    expect(created.config.auth.token).toBe('****9876');
    const raw = JSON.stringify(
      await storedRows(
        s.stored,
        'SELECT definition FROM tools UNION ALL SELECT definition FROM tool_versions',
      ),
    );
    expect(raw).not.toContain(token);
    // Read it, change the description, send it back: the stored token must survive.
    const { id: _id, version: _v, created_at: _c, updated_at: _u, ...definition } = created;
    const updated = await s.call('PUT', '/v1/tools/secretive', {
      ...definition,
      description: 'changed',
    });
    expect(updated.status).toBe(200);
    const stored = (await s.engine.store.tools.findByName('secretive'))!.definition as Json;
    const secrets = await secretsOf(s);
    expect(secrets.open(stored.config.auth.token)).toBe(token);
    // A new value replaces it.
    await s.call('PUT', '/v1/tools/secretive', {
      ...definition,
      config: { ...definition.config, auth: { type: 'bearer', token: 'new-token-value-1111' } },
    });
    expect((await s.call('GET', '/v1/tools/secretive')).body.config.auth.token).toBe('****1111');
  });

  it("a database connection's password is a secret too: sealed, masked, kept when echoed", async () => {
    const connection = 'postgres://app:db-pass-4321@127.0.0.1:5432/crm';
    const created = await s.call('POST', '/v1/tools', {
      name: 'pg_secret',
      type: 'database',
      config: { driver: 'postgres', connection, query: 'SELECT 1' },
    });
    expect(created.body.config.connection).toBe('postgres://app:****@127.0.0.1:5432/crm');
    expect(
      JSON.stringify(
        await storedRows(
          s.stored,
          'SELECT definition FROM tools UNION ALL SELECT definition FROM tool_versions',
        ),
      ),
    ).not.toContain('db-pass-4321');
    const { id: _i, version: _v, created_at: _c, updated_at: _u, ...definition } = created.body;
    await s.call('PUT', '/v1/tools/pg_secret', { ...definition, description: 'echoed' });
    const dry = await s.call('POST', '/v1/tools/pg_secret/test', { dryRun: true });
    expect(dry.body.request.connection).toBe('postgres://app:****@127.0.0.1:5432/crm');
    const stored = (await s.engine.store.tools.findByName('pg_secret'))!.definition as Json;
    expect((await secretsOf(s)).open(stored.config.connection)).toBe(connection);
  });

  it('numbers every version and rolls back as a new version', async () => {
    await s.call('POST', '/v1/tools', api('versioned', { description: 'one' }));
    await s.call('PUT', '/v1/tools/versioned', api('versioned', { description: 'two' }));
    await s.call('PUT', '/v1/tools/versioned', api('versioned', { description: 'three' }));
    const versions = (await s.call('GET', '/v1/tools/versioned/versions')).body.versions;
    expect(
      versions.map((v: { version: number; tool: { description: string } }) => [
        v.version,
        v.tool.description,
      ]),
    ).toEqual([
      [3, 'three'],
      [2, 'two'],
      [1, 'one'],
    ]);
    const back = await s.call('POST', '/v1/tools/versioned/rollback', { version: 1 });
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ version: 4, description: 'one' });
    const after = (await s.call('GET', '/v1/tools/versioned/versions')).body.versions;
    expect(after).toHaveLength(4);
    expect(after[0]).toMatchObject({ version: 4, change: 'rollback to version 1' });
    expect((await s.call('POST', '/v1/tools/versioned/rollback', { version: 9 })).status).toBe(404);
    expect((await s.call('POST', '/v1/tools/versioned/rollback', {})).status).toBe(400);
  });

  it('composite steps must name existing tools and form no cycle', async () => {
    await s.call('POST', '/v1/tools', api('step_a'));
    await s.call('POST', '/v1/tools', api('step_b'));
    const ok = await s.call('POST', '/v1/tools', {
      name: 'combo',
      type: 'composite',
      aggregateResults: true,
      parameters: [{ name: 'orderId', type: 'string', required: true }],
      steps: [
        { tool: 'step_a', params: ['orderId'] },
        { tool: 'step_b', params: ['orderId'], dependsOn: 'step_a' },
      ],
    });
    expect(ok.status).toBe(201);
    expect(
      paths(
        await s.call('POST', '/v1/tools', {
          name: 'c2',
          type: 'composite',
          steps: [{ tool: 'ghost', params: [] }],
        }),
      ),
    ).toEqual(['steps[0].tool']);
    expect(
      paths(
        await s.call('POST', '/v1/tools', {
          name: 'c3',
          type: 'composite',
          config: { url: 'x' },
          steps: [{ tool: 'step_a' }],
        }),
      ),
    ).toEqual(['config']);
    expect(
      paths(
        await s.call('POST', '/v1/tools', {
          name: 'c4',
          type: 'composite',
          steps: [{ tool: 'step_a', dependsOn: 'step_b' }],
        }),
      ),
    ).toEqual(['steps[0].dependsOn']);
    // combo2 -> combo; then making combo call combo2 closes a cycle.
    await s.call('POST', '/v1/tools', {
      name: 'combo2',
      type: 'composite',
      steps: [{ tool: 'combo' }],
    });
    const cycle = await s.call('PUT', '/v1/tools/combo', {
      name: 'combo',
      type: 'composite',
      steps: [{ tool: 'combo2' }],
    });
    expect(cycle.status).toBe(400);
    expect(cycle.body.error.details[0].message).toBe(
      'composite steps form a cycle: combo -> combo2 -> combo',
    );
    // A tool in use cannot be deleted or renamed away from its composites.
    const del = await s.call('DELETE', '/v1/tools/step_a');
    expect(del.status).toBe(409);
    expect(del.body.error.details.composites).toEqual(['combo']);
    expect(del.body.error.message).toBe(
      "Tool 'step_a' is in use: a step of 1 composite tool: combo; remove it from them first",
    );
    expect((await s.call('PUT', '/v1/tools/step_a', api('step_a_renamed'))).status).toBe(409);
  });

  it("refuses to delete a tool an agent's configuration lists, naming the agent", async () => {
    await s.call('POST', '/v1/tools', api('refund_lookup'));
    const provider = await startFakeProviders();
    try {
      const connected = await s.call('POST', '/v1/agents/connect', {
        provider: 'vapi',
        agent_id: 'asst_1',
        credentials: { api_key: GOOD_KEY, base_url: provider.url },
      });
      const agent = connected.body as { id: string; name: string };
      const listing = (tools: Json[]) =>
        s.call('PATCH', `/v1/agents/${agent.id}`, { configuration: { tools } });
      expect((await listing([{ name: 'refund_lookup' }])).status).toBe(200);
      // A dry run meets the same refusal, and deletes nothing.
      const check = await s.call('DELETE', '/v1/tools/refund_lookup?dryRun=true');
      expect(check.status).toBe(409);
      const del = await s.call('DELETE', '/v1/tools/refund_lookup');
      expect(del.status).toBe(409);
      expect(del.body.error.message).toBe(
        `Tool 'refund_lookup' is in use: listed by 1 agent: ${agent.name}; remove it from them first`,
      );
      expect(del.body.error.details.agents).toEqual([{ id: agent.id, name: agent.name }]);
      // Taken out of the agent's configuration (an override), the tool can go.
      expect((await listing([])).status).toBe(200);
      const free = await s.call('DELETE', '/v1/tools/refund_lookup?dryRun=true');
      expect(free.body).toMatchObject({ deleted: false, dryRun: true });
      expect((await s.call('DELETE', '/v1/tools/refund_lookup')).status).toBe(200);
    } finally {
      await provider.stop();
    }
  });

  it('deletes a free tool with its versions, then 404s it', async () => {
    await s.call('POST', '/v1/tools', api('temp'));
    const res = await s.call('DELETE', '/v1/tools/temp');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: true, id: expect.stringMatching(/^tool_/) });
    expect((await s.call('GET', '/v1/tools/temp')).status).toBe(404);
    expect((await s.call('GET', '/v1/tools/temp/versions')).status).toBe(404);
  });

  it('unknown fields are named', async () => {
    const res = await s.call('POST', '/v1/tools', api('typo', { responseMap: {} }));
    expect(res.body.error.details).toEqual([
      { path: 'responseMap', message: 'is not a field of this resource' },
    ]);
  });
});
