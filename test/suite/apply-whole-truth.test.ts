import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Json } from '../helpers/json.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { buildFixture, type Fixture } from './suite-fixture.js';

/*
 * A suite file is the truth inside every object it gives (#38): a hand-written file with only the
 * required fields applies once and then plans unchanged (every default the engine fills is one the
 * file side sees too), and a nested key removed from a file is a change named by its path that the
 * apply carries out. A top-level field left out keeps its stored value, as the README says.
 */

const file = (path: string, lines: string[]) => ({ path, content: `${lines.join('\n')}\n` });
type SuiteFile = ReturnType<typeof file>;

const SECRETS = {
  TOOL_REFUND_AUTH_KEY: 'key-value-1',
  TOOL_ORDERS_DB_CONNECTION: 'file:/tmp/x.db',
};

/** Every kind with only its required fields (nested objects too), every tool and alert type. */
const MINIMAL: SuiteFile[] = [
  file('callbench.yaml', [
    'name: Minimal suite',
    'agents:',
    '  - key: bot',
    '    provider: http',
    '    providerAgentId: order-bot',
    '    url: https://bot.example.com/chat',
  ]),
  file('personas/anna.yaml', ['key: anna', 'name: Anna', 'prompt: Call about an order.']),
  file('personas/bea.yaml', [
    'key: bea',
    'name: Bea',
    'prompt: Call, in a noisy street.',
    'voice: {engine: system, voiceId: en-us}',
    'noise: {snrDb: 10}',
    'behaviours:',
    '  bargeIn: {probability: 0.2}',
    '  silence: {probability: 0.1}',
    '  backchannel: {probability: 0.3}',
  ]),
  file('scorecards/card.yaml', [
    'key: card',
    'name: Card',
    'metrics:',
    '  - {type: contains, name: Says hi, config: {text: hi}}',
    '  - {type: tool_called, name: Looked up, config: {tool: lookup}}',
  ]),
  file('scenarios/bare.yaml', ['key: bare', 'name: Bare', 'prompt: Just ask.']),
  file('scenarios/late.yaml', [
    'key: late',
    'name: Late order',
    'prompt: Ask about order {{order_id}} ({{note}}).',
    'promptVariables: [{name: order_id}, {name: note}]',
    'personas: [anna, bea]',
    'targetAgents: [bot]',
    'scorecard: card',
    'expectedBehavior: {toolCalls: [lookup]}',
    'script:',
    '  - say: Hi',
    '  - {say: Wait, interrupt: {afterMs: 100}}',
    '  - {dtmf: "1#", silence: {ms: 200}}',
    'audio: {enabled: true}',
    'cases:',
    '  - variables: {order_id: "1", note: first}',
    '  - variables: {order_id: "2"}',
  ]),
  file('schedules/nightly.yaml', [
    'key: nightly',
    'name: Nightly',
    'scenarioId: late',
    'periodicity: daily',
  ]),
  file('tools/lookup.yaml', [
    'key: lookup',
    'name: lookup',
    'type: api',
    'config: {url: "https://crm.example.com/orders/{id}"}',
    'parameters: [{name: id, type: string}]',
    'responseMapping: {status: order.status}',
  ]),
  file('tools/refund.yaml', [
    'key: refund',
    'name: refund',
    'type: action',
    'config:',
    '  url: https://crm.example.com/refund',
    '  auth: {type: api_key, key: "${secret:TOOL_REFUND_AUTH_KEY}"}',
  ]),
  file('tools/transfer.yaml', [
    'key: transfer',
    'name: transfer',
    'type: routing',
    'config: {transferTo: "+15550100"}',
  ]),
  file('tools/orders-db.yaml', [
    'key: orders-db',
    'name: orders_db',
    'type: database',
    'config:',
    '  driver: sqlite',
    '  connection: ${secret:TOOL_ORDERS_DB_CONNECTION}',
    '  query: SELECT 1 AS one',
  ]),
  file('tools/lookup-then-refund.yaml', [
    'key: lookup-then-refund',
    'name: lookup_then_refund',
    'type: composite',
    'steps: [{tool: lookup}, {tool: refund}]',
  ]),
  file('alerts/slow-lookups.yaml', [
    'key: slow-lookups',
    'name: Slow lookups',
    'condition: {type: tool_performance, toolId: lookup, metric: success_rate, operator: less_than, threshold: 90}',
  ]),
  file('alerts/score-drop.yaml', [
    'key: score-drop',
    'name: Score drop',
    'condition: {type: agent_score, agentId: bot, operator: less_than, threshold: 60}',
  ]),
  file('alerts/late-failing.yaml', [
    'key: late-failing',
    'name: Late failing',
    'condition: {type: scenario_failure, scenarioId: late, operator: less_than, threshold: 50}',
    'notifications: {email: [qa@example.com]}',
  ]),
  file('alerts/bot-changed.yaml', [
    'key: bot-changed',
    'name: Bot changed',
    'condition: {type: agent_config_changed, agentId: bot}',
  ]),
];

const summary = (res: { body: Json }): string[] =>
  (res.body.data.plan.entries as Json[]).map(
    (e) => `${e.action} ${e.kind} ${e.key}${e.changes.length ? `: ${e.changes.join(', ')}` : ''}`,
  );
const notUnchanged = (res: { body: Json }) => summary(res).filter((e) => !/^unchanged /.test(e));

/** The suite with one file's text edited. */
const edit = (files: SuiteFile[], path: string, fn: (text: string) => string): SuiteFile[] =>
  files.map((f) => (f.path === path ? { ...f, content: fn(f.content) } : f));

/** The text without the line matching `line` and the lines indented under it (its block). */
function withoutBlock(text: string, line: RegExp): string {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => line.test(l));
  if (at < 0) throw new Error(`no line ${line} in:\n${text}`);
  const indent = (l: string) => l.length - l.trimStart().length;
  let end = at + 1;
  while (end < lines.length && lines[end]!.trim() && indent(lines[end]!) > indent(lines[at]!))
    end++;
  return [...lines.slice(0, at), ...lines.slice(end)].join('\n');
}

describe('suite apply: the file is the whole truth inside its objects', () => {
  let s: TestServer;
  beforeEach(async () => {
    s = await startServer();
  });
  afterEach(() => s.stop());

  const apply = async (files: SuiteFile[]) => {
    const res = await s.ws('POST', '/suite/apply', { files, secrets: SECRETS });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res;
  };
  const plan = (files: SuiteFile[]) => s.ws('POST', '/suite/plan', { files, secrets: SECRETS });

  it('a minimal hand-written suite applies once, then plans every entry unchanged', async () => {
    const first = await apply(MINIMAL);
    expect(notUnchanged(first).filter((e) => !/^create /.test(e))).toEqual([]);
    const again = await plan(MINIMAL);
    expect(again.body.data.plan.problems).toEqual([]);
    // Every file and the agent, each unchanged.
    expect(summary(again)).toHaveLength(MINIMAL.length);
    expect(notUnchanged(again)).toEqual([]);
    // So is what an export of it writes (complete files, every default spelled out).
    const exported = (await s.ws('POST', '/suite/export', {})).body.data.files as SuiteFile[];
    expect(notUnchanged(await plan(exported))).toEqual([]);
  });

  it('a nested key removed from a minimal file is planned, applied and then unchanged', async () => {
    await apply(MINIMAL);
    let files = edit(MINIMAL, 'scenarios/late.yaml', (t) => t.replace(', note: first', ''));
    files = edit(files, 'alerts/late-failing.yaml', (t) =>
      t.replace('notifications: {email: [qa@example.com]}', 'notifications: {}'),
    );
    files = edit(files, 'personas/bea.yaml', (t) =>
      withoutBlock(t, /^ {2}silence:/).replace(', voiceId: en-us', ''),
    );
    files = edit(files, 'scenarios/late.yaml', (t) => t.replace(', silence: {ms: 200}', ''));
    const planned = await plan(files);
    expect(notUnchanged(planned).sort()).toEqual([
      'update alert late-failing: notifications.email',
      'update persona bea: voice.voiceId, behaviours.silence',
      'update scenario late: script[2].silence, cases[0].variables.note',
    ]);
    await apply(files);
    expect(notUnchanged(await plan(files))).toEqual([]);
    const scenarios = (await s.ws('GET', '/scenarios')).body.data.scenarios as Json[];
    const late = scenarios.find((x) => x.key === 'late');
    expect(late.cases).toEqual([
      { variables: { order_id: '1' } },
      { variables: { order_id: '2' } },
    ]);
    expect(late.script[2]).toEqual({ dtmf: '1#' });
    const personas = (await s.ws('GET', '/personas')).body.data.personas as Json[];
    const bea = (await s.ws('GET', `/personas/${personas.find((p) => p.key === 'bea').id}`)).body
      .data.persona;
    expect(bea.voice).toEqual({ engine: 'system', voiceId: null, speed: null });
    expect(Object.keys(bea.behaviours).sort()).toEqual(['backchannel', 'bargeIn']);
    const alerts = (await s.call('GET', '/v1/alerts')).body.alerts as Json[];
    expect(alerts.find((a) => a.key === 'late-failing').notifications).toEqual({});
  });

  it('a top-level field left out keeps its stored value, even where the update replaces', async () => {
    await apply(MINIMAL);
    const files = edit(MINIMAL, 'tools/lookup.yaml', (t) =>
      withoutBlock(t, /^responseMapping:/).replace('type: api', 'type: api\ndescription: Finds'),
    );
    const applied = await apply(files);
    expect(notUnchanged(applied)).toEqual(['update tool lookup: description']);
    const tools = (await s.call('GET', '/v1/tools')).body.tools as Json[];
    const lookup = tools.find((t) => t.key === 'lookup');
    expect(lookup.description).toBe('Finds');
    expect(lookup.responseMapping).toEqual({ status: 'order.status' });
    expect(notUnchanged(await plan(files))).toEqual([]);
  });
});

/** One nested key removed from an exported (complete) file of each kind with nested objects. */
const REMOVALS: { path: string; line: RegExp; change: string; gone: RegExp }[] = [
  {
    path: 'tools/ord-lookup.yaml',
    line: /^ {4}X-Team:/,
    change: 'update tool ord-lookup: config.headers.X-Team',
    gone: /X-Team/,
  },
  {
    path: 'alerts/lookups-failing.yaml',
    line: /^ {2}slack:/,
    change: 'update alert lookups-failing: notifications.slack',
    gone: /slack:/,
  },
  {
    path: 'alerts/score-drop.yaml',
    line: /^ {2}minSamples:/,
    change: 'update alert score-drop: condition.minSamples',
    gone: /minSamples/,
  },
  {
    path: 'personas/angry-caller.yaml',
    line: /^ {2}hangup:/,
    change: 'update persona angry-caller: behaviours.hangup',
    gone: /hangup:/,
  },
  {
    path: 'scenarios/late-order.yaml',
    line: /^ {4}silence:/,
    change: 'update scenario late-order: script[2].silence',
    gone: /silence:/,
  },
  {
    path: 'scorecards/orders.yaml',
    line: /^ {6}arguments:/,
    change: 'update scorecard orders: metrics[0].config.arguments',
    gone: /arguments:/,
  },
];

describe('suite apply: a nested key removed from an exported file', () => {
  let s: TestServer;
  let fixture: Fixture;
  beforeEach(async () => {
    s = await startServer();
    fixture = await buildFixture(s);
  });
  afterEach(async () => {
    await fixture.stop();
    await s.stop();
  });

  it('is a change named by its path; the apply removes it and the next export leaves it out', async () => {
    const exported = (await s.ws('POST', '/suite/export', {})).body.data.files as SuiteFile[];
    const files = REMOVALS.reduce(
      (out, r) => edit(out, r.path, (t) => withoutBlock(t, r.line)),
      exported,
    );
    const planned = await s.ws('POST', '/suite/plan', { files });
    expect(planned.body.data.plan.problems).toEqual([]);
    expect(notUnchanged(planned).sort()).toEqual(REMOVALS.map((r) => r.change).sort());

    const applied = await s.ws('POST', '/suite/apply', { files });
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);
    expect(notUnchanged(await s.ws('POST', '/suite/plan', { files }))).toEqual([]);

    const again = (await s.ws('POST', '/suite/export', {})).body.data.files as SuiteFile[];
    for (const r of REMOVALS)
      expect(again.find((f) => f.path === r.path)!.content, r.path).not.toMatch(r.gone);
    // The alert lost its Slack channel and kept the others; the tool kept its secret header.
    const alert = (await s.call('GET', `/v1/alerts/${fixture.ids.toolAlert}`)).body;
    expect(Object.keys(alert.notifications).sort()).toEqual(['email', 'os', 'webhook']);
    const tool = (await s.call('GET', `/v1/tools/${fixture.ids.ord_lookup}`)).body;
    expect(Object.keys(tool.config.headers)).toEqual(['X-Api-Token']);
  });
});

describe('alerts.update: a null removes a merged key', () => {
  let s: TestServer;
  beforeEach(async () => {
    s = await startServer();
  });
  afterEach(() => s.stop());

  it('removes a notification channel or a condition field sent as null, keeps the rest', async () => {
    const tool = await s.call('POST', '/v1/tools', {
      name: 'lookup',
      type: 'routing',
      config: { transferTo: '+15550100' },
    });
    const created = await s.call('POST', '/v1/alerts', {
      name: 'Lookups',
      condition: {
        type: 'tool_performance',
        toolId: tool.body.id,
        metric: 'call_count',
        operator: 'greater_than',
        threshold: 5,
        minSamples: 3,
      },
      notifications: {
        email: ['qa@example.com'],
        slack: { channel: '#qa', webhookUrl: 'https://hooks.slack.com/services/T/B/SECRET' },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const patched = await s.call('PATCH', `/v1/alerts/${created.body.id}`, {
      condition: { minSamples: null },
      notifications: { slack: null },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.notifications).toEqual({ email: ['qa@example.com'] });
    expect(patched.body.condition).not.toHaveProperty('minSamples');
    expect(patched.body.condition).toMatchObject({ metric: 'call_count', threshold: 5 });
    // The type itself cannot be removed.
    const refused = await s.call('PATCH', `/v1/alerts/${created.body.id}`, {
      condition: { type: null },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual([
      expect.objectContaining({ path: 'condition.type' }),
    ]);
  });
});
