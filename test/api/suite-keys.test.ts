import type { Json } from '../helpers/json.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, testClock, type TestServer } from '../helpers/server.js';
import { storedRows } from '../helpers/store-under-test.js';

/*
 * Suite keys (#38) as the API answers them: every persona, scorecard, scenario, schedule, tool and
 * alert answers `key` on GET and in lists, the stored one or else the one an export would give;
 * a stored key stays through a rename. The export and import persist keys through
 * store.suiteKeys.persist, which these tests call as they do.
 */
describe('suite keys on GET and list', () => {
  let s: TestServer;
  const clock = testClock();

  beforeEach(async () => {
    s = await startServer({ clock });
  });
  afterEach(() => s.stop());

  /** Creates through the API, one second apart (keys are numbered in creation order). */
  async function make(path: string, body: Record<string, unknown>, inWorkspace = true) {
    clock.advance(1_000);
    const res = inWorkspace ? await s.ws('POST', path, body) : await s.call('POST', path, body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const data = inWorkspace ? Object.values(res.body.data as Record<string, Json>)[0] : res.body;
    // Create answers keep their shape: the key is answered by GET and lists.
    expect(data).not.toHaveProperty('key');
    return data.id as string;
  }
  const persona = (name: string) => make('/personas', { name, prompt: 'Call.' });
  const getKey = async (path: string) => {
    const res = await s.ws('GET', path);
    expect(res.status).toBe(200);
    return Object.values(res.body.data as Record<string, Json>)[0].key as string;
  };

  it('answers derived keys for every kind, numbered by creation order, on GET and in lists', async () => {
    const anna = await persona('Angry Anna');
    const anna2 = await persona('angry anna!');
    const carl = await persona('Calm Carl');
    const card = await make('/scorecards', { name: 'Support card', metrics: [] });
    const scenario = await make('/scenarios', { name: 'Late order', prompt: 'Ask.' });
    const schedule = await make('/schedules', {
      name: 'Nightly',
      scenarioId: scenario,
      periodicity: 'daily',
    });
    const tool = await make(
      '/v1/tools',
      { name: 'ord_lookup', type: 'api', config: { url: 'https://crm.example.com' } },
      false,
    );
    const alert = await make(
      '/v1/alerts',
      {
        name: 'Lookup slow!',
        condition: {
          type: 'tool_performance',
          toolId: tool,
          metric: 'success_rate',
          operator: 'less_than',
          threshold: 95,
          timeWindow: '15m',
        },
        severity: 'high',
        notifications: { os: false },
      },
      false,
    );

    expect(await getKey(`/personas/${anna}`)).toBe('angry-anna');
    expect(await getKey(`/personas/${anna2}`)).toBe('angry-anna-2');
    expect(await getKey(`/personas/${carl}`)).toBe('calm-carl');
    expect(await getKey(`/scorecards/${card}`)).toBe('support-card');
    expect(await getKey(`/scenarios/${scenario}`)).toBe('late-order');
    expect(await getKey(`/schedules/${schedule}`)).toBe('nightly');
    expect((await s.call('GET', `/v1/tools/${tool}`)).body.key).toBe('ord-lookup');
    expect((await s.call('GET', '/v1/tools/ord_lookup')).body.key).toBe('ord-lookup');
    expect((await s.call('GET', `/v1/alerts/${alert}`)).body.key).toBe('lookup-slow');

    const listed = (await s.ws('GET', '/personas?sortBy=name&sortOrder=asc')).body.data.personas;
    expect(listed.map((p: Json) => [p.name, p.key])).toEqual([
      ['Angry Anna', 'angry-anna'],
      ['angry anna!', 'angry-anna-2'],
      ['Calm Carl', 'calm-carl'],
    ]);
    // The key follows the id in answers.
    expect(Object.keys(listed[0]).slice(0, 2)).toEqual(['id', 'key']);
    const cards = (await s.ws('GET', '/scorecards')).body.data.scorecards as Json[];
    expect(cards.map((c) => c.key)).toEqual(['default-scorecard', 'support-card']);
    expect((await s.ws('GET', '/scenarios')).body.data.scenarios[0].key).toBe('late-order');
    expect((await s.ws('GET', '/schedules')).body.data.schedules[0].key).toBe('nightly');
    expect((await s.call('GET', '/v1/tools')).body.tools[0].key).toBe('ord-lookup');
    expect((await s.call('GET', '/v1/alerts')).body.alerts[0].key).toBe('lookup-slow');
  });

  it('keys are per workspace for personas, engine-wide for tools', async () => {
    await persona('Angry Anna');
    const other = (await s.call('POST', '/api/v1/workspaces', { name: 'Other' })).body.data
      .workspace.id as string;
    clock.advance(1_000);
    const there = await s.call('POST', `/api/v1/workspaces/${other}/personas`, {
      name: 'Angry Anna',
      prompt: 'Call.',
    });
    const id = there.body.data.persona.id as string;
    const got = await s.call('GET', `/api/v1/workspaces/${other}/personas/${id}`);
    expect(got.body.data.persona.key).toBe('angry-anna');
    for (const name of ['crm_api', 'crm-api'])
      await make(
        '/v1/tools',
        { name, type: 'api', config: { url: 'https://crm.example.com' } },
        false,
      );
    const tools = (await s.call('GET', '/v1/tools')).body.tools as Json[];
    expect(Object.fromEntries(tools.map((t) => [t.name, t.key]))).toEqual({
      crm_api: 'crm-api',
      'crm-api': 'crm-api-2',
    });
  });

  it('a persisted key is stored, answered, kept after a rename, and never replaced', async () => {
    const anna = await persona('Angry Anna');
    const store = s.engine.store;
    await store.suiteKeys.persist('persona', await store.suiteKeys.keys('persona', s.workspaceId));
    const stored = await storedRows<{ key: string }>(
      s.stored,
      'SELECT key FROM personas WHERE id = ?',
      [anna],
    );
    expect(stored).toEqual([{ key: 'angry-anna' }]);

    const renamed = await s.ws('PUT', `/personas/${anna}`, { name: 'Furious Anna' });
    expect(renamed.status).toBe(200);
    expect(await getKey(`/personas/${anna}`)).toBe('angry-anna');
    // A new persona with the old name steps around the stored key.
    const newcomer = await persona('Angry Anna');
    expect(await getKey(`/personas/${newcomer}`)).toBe('angry-anna-2');

    await store.suiteKeys.persist('persona', new Map([[anna, 'something-else']]));
    expect(await getKey(`/personas/${anna}`)).toBe('angry-anna');
  });

  it('keys persisted on tools and alerts are answered and survive a new version', async () => {
    const tool = await make(
      '/v1/tools',
      { name: 'crm', type: 'api', config: { url: 'https://crm.example.com' } },
      false,
    );
    await s.engine.store.suiteKeys.persist('tool', new Map([[tool, 'crm-api']]));
    const updated = await s.call('PUT', `/v1/tools/${tool}`, {
      name: 'crm_v2',
      type: 'api',
      config: { url: 'https://crm.example.com/v2' },
    });
    expect(updated.status).toBe(200);
    expect((await s.call('GET', `/v1/tools/${tool}`)).body.key).toBe('crm-api');
  });

  it('keeps the name of the suite last imported into a workspace', async () => {
    const workspaces = s.engine.store.workspaces;
    expect(await workspaces.suiteName(s.workspaceId)).toBeNull();
    await workspaces.setSuiteName(s.workspaceId, 'Support suite');
    expect(await workspaces.suiteName(s.workspaceId)).toBe('Support suite');
    expect(await workspaces.suiteName('ws_none')).toBeNull();
  });
});

describe('scenario cases', () => {
  let s: TestServer;

  beforeEach(async () => {
    s = await startServer();
  });
  afterEach(() => s.stop());

  const variables = [
    { name: 'order_id', type: 'string', defaultValue: 'A1' },
    { name: 'tier', type: 'string', defaultValue: 'gold' },
  ];
  const create = (over: Record<string, unknown> = {}) =>
    s.ws('POST', '/scenarios', {
      name: 'Late order',
      prompt: 'Order {{order_id}} ({{tier}}) is late.',
      promptVariables: variables,
      ...over,
    });
  const paths = (res: { body: Json }) =>
    (res.body.error.details as Json[]).map((d) => d.path as string);
  const scenarioCount = async () =>
    (await s.ws('GET', '/scenarios')).body.data.pagination.total as number;

  it('stores and answers cases on create, get, list and update; null clears them', async () => {
    const cases = [
      { variables: { order_id: '4172', tier: 'gold' } },
      { variables: { order_id: '9999' } },
      { variables: {} },
    ];
    const made = await create({ cases });
    expect(made.status).toBe(201);
    expect(made.body.data.scenario.cases).toEqual(cases);
    const id = made.body.data.scenario.id as string;
    expect((await s.ws('GET', `/scenarios/${id}`)).body.data.scenario.cases).toEqual(cases);
    expect((await s.ws('GET', '/scenarios')).body.data.scenarios[0].cases).toEqual(cases);

    const fewer = [{ variables: { tier: 'silver' } }];
    const updated = await s.ws('PUT', `/scenarios/${id}`, { cases: fewer });
    expect(updated.status).toBe(200);
    expect(updated.body.data.scenario.cases).toEqual(fewer);
    // An edit of something else keeps them.
    await s.ws('PUT', `/scenarios/${id}`, { name: 'Renamed' });
    expect((await s.ws('GET', `/scenarios/${id}`)).body.data.scenario.cases).toEqual(fewer);
    const cleared = await s.ws('PUT', `/scenarios/${id}`, { cases: null });
    expect(cleared.body.data.scenario.cases).toBeNull();
    expect((await create({ name: 'No cases' })).body.data.scenario.cases).toBeNull();
  });

  it('takes 1,000 cases and refuses 1,001, naming the field; nothing is stored', async () => {
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ variables: { order_id: String(i) } }));
    const ok = await create({ cases: many(1_000) });
    expect(ok.status).toBe(201);
    expect(ok.body.data.scenario.cases).toHaveLength(1_000);
    const refused = await create({ name: 'Too many', cases: many(1_001) });
    expect(refused.status).toBe(400);
    expect(paths(refused)).toEqual(['cases']);
    expect(await scenarioCount()).toBe(1);
  });

  it('refuses a variable promptVariables does not declare, naming each case and name', async () => {
    const refused = await create({
      cases: [
        { variables: { order_id: '1' } },
        { variables: { order_id: '2', foo: 'x' } },
        { variables: {} },
        { variables: { bar: 'y', tier: 'gold' } },
      ],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('validation_error');
    expect(paths(refused)).toEqual(['cases[1].variables.foo', 'cases[3].variables.bar']);
    expect(await scenarioCount()).toBe(0);
  });

  it('refuses unknown fields in a case and values that are not text', async () => {
    const extra = await create({ cases: [{ variables: {}, expected: 'x' }] });
    expect(extra.status).toBe(400);
    expect(paths(extra)).toEqual(['cases[0].expected']);
    const numeric = await create({ cases: [{ variables: { order_id: 7 } }] });
    expect(numeric.status).toBe(400);
    expect(paths(numeric)).toEqual(['cases[0].variables.order_id']);
    expect(await scenarioCount()).toBe(0);
  });

  it('on update, checks the cases against the variables the scenario will have', async () => {
    const made = await create({ cases: [{ variables: { tier: 'gold' } }] });
    const id = made.body.data.scenario.id as string;
    const undeclared = await s.ws('PUT', `/scenarios/${id}`, {
      cases: [{ variables: { nope: '1' } }],
    });
    expect(undeclared.status).toBe(400);
    expect(paths(undeclared)).toEqual(['cases[0].variables.nope']);
    // Dropping a declared variable the stored cases use is refused too.
    const dropped = await s.ws('PUT', `/scenarios/${id}`, {
      prompt: 'Order {{order_id}} is late.',
      promptVariables: [variables[0]],
    });
    expect(dropped.status).toBe(400);
    expect(paths(dropped)).toEqual(['cases[0].variables.tier']);
    const after = (await s.ws('GET', `/scenarios/${id}`)).body.data.scenario;
    expect(after.cases).toEqual([{ variables: { tier: 'gold' } }]);
    expect(after.promptVariables).toHaveLength(2);
  });
});
