import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Json } from '../helpers/json.js';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * Applying a suite (#38): matching by key (a renamed resource is updated in place), pruning (the
 * workspace's own kinds only: tools and alerts stay), and what a workspace access token may do
 * (never create or update a tool, an alert or an agent: 403 naming each file, nothing written).
 */

const file = (path: string, lines: string[]) => ({ path, content: `${lines.join('\n')}\n` });
const manifest = (agents: string[] = ['agents: []']) =>
  file('callbench.yaml', ['name: Checkout suite', ...agents]);
const persona = (key: string, name: string, prompt = 'Call about an order.') =>
  file(`personas/${key}.yaml`, [`key: ${key}`, `name: ${name}`, `prompt: ${prompt}`]);
const tool = (key: string, url: string) =>
  file(`tools/${key}.yaml`, [
    `key: ${key}`,
    `name: ${key.replace(/-/g, '_')}`,
    'type: api',
    'config:',
    `  url: ${url}`,
  ]);
const alert = (key: string, toolKey: string) =>
  file(`alerts/${key}.yaml`, [
    `key: ${key}`,
    `name: ${key}`,
    'condition:',
    '  type: tool_performance',
    `  toolId: ${toolKey}`,
    '  metric: success_rate',
    '  operator: less_than',
    '  threshold: 90',
  ]);

const entries = (res: { body: Json }) =>
  (res.body.data.plan.entries as Json[]).map(
    (e) => `${e.action} ${e.kind} ${e.key}${e.changes.length ? `: ${e.changes.join(', ')}` : ''}`,
  );

describe('suite apply: keys, prune and tokens', () => {
  let s: TestServer;
  beforeEach(async () => {
    s = await startServer();
  });
  afterEach(() => s.stop());

  const personas = async () =>
    ((await s.ws('GET', '/personas')).body.data.personas as Json[])
      .map((p) => ({ id: p.id, key: p.key, name: p.name }))
      .sort((a, b) => (a.key < b.key ? -1 : 1));

  it('matches by key: editing a name is an update of the same resource; same-named ones are fine', async () => {
    const first = await s.ws('POST', '/suite/apply', {
      files: [manifest(), persona('anna', 'Anna'), persona('anna-twin', 'Anna')],
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const before = await personas();
    expect(before.map((p) => [p.key, p.name])).toEqual([
      ['anna', 'Anna'],
      ['anna-twin', 'Anna'],
    ]);
    const files = [manifest(), persona('anna', 'Anna Smith'), persona('anna-twin', 'Anna')];
    const plan = await s.ws('POST', '/suite/plan', { files });
    expect(entries(plan)).toEqual(['update persona anna: name', 'unchanged persona anna-twin']);
    expect((await s.ws('POST', '/suite/apply', { files })).status).toBe(200);
    const after = await personas();
    expect(after.find((p) => p.key === 'anna')).toEqual({
      ...before.find((p) => p.key === 'anna'),
      name: 'Anna Smith',
    });
    expect(after).toHaveLength(2);
    // The suite's name is the workspace's suite name now (the export writes it).
    const exported = await s.ws('POST', '/suite/export', {});
    const callbench = (exported.body.data.files as Json[]).find((f) => f.path === 'callbench.yaml');
    expect(callbench.content).toContain('name: Checkout suite');
  });

  it('prunes the workspace resources no file defines, never tools or alerts', async () => {
    const url = 'https://crm.example.com/a';
    const first = await s.ws('POST', '/suite/apply', {
      files: [
        manifest(),
        persona('anna', 'Anna'),
        persona('bob', 'Bob'),
        tool('crm', url),
        alert('crm-slow', 'crm'),
      ],
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const extra = await s.ws('POST', '/personas', { name: 'Made by hand', prompt: 'Hi.' });
    expect(extra.status).toBe(201);
    const files = [manifest(), persona('anna', 'Anna')];
    const plan = await s.ws('POST', '/suite/plan', { files, prune: true });
    expect(entries(plan)).toEqual([
      'unchanged persona anna',
      // Deletes in reverse dependency order: schedules, scenarios, scorecards, personas.
      'delete scorecard default-scorecard',
      'delete persona bob',
      'delete persona made-by-hand',
    ]);
    const applied = await s.ws('POST', '/suite/apply', { files, prune: true });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect((await personas()).map((p) => p.key)).toEqual(['anna']);
    const tools = (await s.call('GET', '/v1/tools')).body.tools as Json[];
    expect(tools.map((t) => t.name)).toEqual(['crm']);
    const alerts = (await s.call('GET', '/v1/alerts')).body.alerts as Json[];
    expect(alerts.map((a) => a.name)).toEqual(['crm-slow']);
  });

  it('refuses a workspace token that would create or update a tool, an alert or an agent', async () => {
    const made = await s.call('POST', `/api/v1/workspaces/${s.workspaceId}/tokens`, {});
    const token = { authorization: `Bearer ${made.body.data.token.token}` };
    const url = 'https://crm.example.com/a';
    const files = [
      manifest([
        'agents:',
        '  - key: bot',
        '    provider: http',
        '    providerAgentId: order-bot',
        '    url: https://bot.example.com/chat',
      ]),
      persona('anna', 'Anna'),
      tool('crm', url),
      alert('crm-slow', 'crm'),
    ];
    const refused = await s.ws('POST', '/suite/apply', { files }, token);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('forbidden');
    expect(refused.body.error.details).toEqual([
      { path: 'callbench.yaml', message: "would create the agent 'bot'" },
      { path: 'tools/crm.yaml', message: "would create the tool 'crm'" },
      { path: 'alerts/crm-slow.yaml', message: "would create the alert 'crm-slow'" },
    ]);
    expect(await personas()).toEqual([]);
    expect((await s.call('GET', '/v1/tools')).body.tools).toEqual([]);
    expect((await s.call('GET', '/v1/agents')).body.agents).toEqual([]);
    // A plan writes nothing: a token may ask for it.
    expect((await s.ws('POST', '/suite/plan', { files }, token)).status).toBe(200);

    // With an API key they are made; then the token may apply the suite while they stay unchanged.
    expect((await s.ws('POST', '/suite/apply', { files })).status).toBe(200);
    const edited = [
      ...files.slice(0, 1),
      persona('anna', 'Anna', 'A new prompt.'),
      ...files.slice(2),
    ];
    const allowed = await s.ws('POST', '/suite/apply', { files: edited }, token);
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
    expect(entries(allowed)).toContain('update persona anna: prompt');
    const changedTool = [
      ...edited.slice(0, 2),
      tool('crm', 'https://crm.example.com/b'),
      ...edited.slice(3),
    ];
    const again = await s.ws('POST', '/suite/apply', { files: changedTool }, token);
    expect(again.status).toBe(403);
    expect(again.body.error.details).toEqual([
      { path: 'tools/crm.yaml', message: "would update the tool 'crm'" },
    ]);
  });
});
