import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startServer, type TestServer } from '../helpers/server.js';
import { connectHttpAgent } from '../helpers/http-agents.js';
import { GOOD_KEY, startFakeProviders } from '../helpers/fake-providers.js';
import {
  KIND_SPECS,
  SUITE_DIRS,
  SUITE_KINDS,
  type FileObject,
  type InputRefs,
  type RefKind,
  type SuiteKind,
} from '../../src/operations/suite/kinds.js';
import { readCasesCsv } from '../../src/operations/suite/cases-csv.js';
import { ManifestSchema } from '../../src/operations/suite/manifest.js';
import { buildFixture, SECRETS, type Fixture } from './suite-fixture.js';

/**
 * The export of a suite (#38) over HTTP: every kind with every field set, the scope rules, secrets
 * never written, stable bytes, and (with the file format's own conversions) a round trip into an
 * empty engine that exports the same bytes.
 */

interface SuiteFile {
  path: string;
  content: string;
}

const exportOf = async (
  s: TestServer,
  body: Record<string, unknown> = {},
): Promise<SuiteFile[]> => {
  const res = await s.ws('POST', '/suite/export', body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.files as SuiteFile[];
};

const fileAt = (files: SuiteFile[], path: string): string => {
  const file = files.find((f) => f.path === path);
  if (!file) throw new Error(`no ${path} in ${files.map((f) => f.path).join(', ')}`);
  return file.content;
};

/** The placeholder names the export gives, with the values the fixture created them with. */
const SECRET_NAMES: Record<string, string> = {
  AGENT_ORDER_BOT_API_KEY: SECRETS.agentKey,
  ALERT_LOOKUPS_FAILING_SLACK_WEBHOOK_URL: SECRETS.slack,
  ALERT_LOOKUPS_FAILING_WEBHOOK_SECRET: SECRETS.webhook,
  TOOL_CRM_SYNC_AUTH_CLIENT_SECRET: SECRETS.clientSecret,
  TOOL_LEGACY_API_AUTH_PASSWORD: SECRETS.password,
  TOOL_ORD_LOOKUP_AUTH_TOKEN: SECRETS.bearer,
  TOOL_ORD_LOOKUP_HEADERS_X_API_TOKEN: SECRETS.header,
  TOOL_ORDERS_DB_CONNECTION: SECRETS.connection,
  TOOL_REFUND_AUTH_KEY: SECRETS.apiKey,
};

describe('suite export', () => {
  let s: TestServer;
  let fixture: Fixture;
  let files: SuiteFile[];
  beforeAll(async () => {
    s = await startServer();
    fixture = await buildFixture(s);
    files = await exportOf(s);
  });
  afterAll(async () => {
    await fixture?.stop();
    await s.stop();
  });

  it('writes one file per resource in scope, the cases CSV, callbench.yaml and the schemas, sorted', () => {
    const paths = files.map((f) => f.path);
    expect(paths).toEqual([...paths].sort());
    expect(paths).toEqual([
      '.callbench/schemas/alert.json',
      '.callbench/schemas/persona.json',
      '.callbench/schemas/scenario.json',
      '.callbench/schemas/schedule.json',
      '.callbench/schemas/scorecard.json',
      '.callbench/schemas/suite.json',
      '.callbench/schemas/tool.json',
      'alerts/draft-failing.yaml',
      'alerts/late-order-failing.yaml',
      'alerts/lookups-failing.yaml',
      'alerts/score-drop.yaml',
      'callbench.yaml',
      'personas/angry-caller-2.yaml',
      'personas/angry-caller.yaml',
      'scenarios/draft.yaml',
      'scenarios/late-order.cases.csv',
      'scenarios/late-order.yaml',
      'schedules/draft-runs.yaml',
      'schedules/weekdays.yaml',
      'scorecards/default-scorecard.yaml',
      'scorecards/orders.yaml',
      'tools/crm-sync.yaml',
      'tools/legacy-api.yaml',
      'tools/lookup-then-refund.yaml',
      'tools/ord-lookup.yaml',
      'tools/orders-db.yaml',
      'tools/refund.yaml',
      'tools/transfer.yaml',
    ]);
  });

  it('writes a resource in its input schema order, nested objects too, with defaults written out', () => {
    expect(fileAt(files, 'personas/angry-caller.yaml')).toBe(
      [
        '$schema: ../.callbench/schemas/persona.json',
        'key: angry-caller',
        'name: Angry caller',
        'language: en-US',
        'emotion: angry',
        'difficulty: hard',
        'backgroundNoise: street',
        'tags:',
        '  - vip',
        '  - angry',
        'prompt: |-',
        '  You are angry about a late order.',
        '  You want a refund.',
        'voice:',
        '  engine: system',
        '  voiceId: en-gb+f3',
        '  speed: 1.2',
        'noise:',
        '  snrDb: 12',
        'behaviours:',
        '  bargeIn:',
        '    probability: 0.3',
        '    afterMs: 900',
        '  hangup:',
        '    probability: 0.1',
        '',
      ].join('\n'),
    );
    const tool = parse(fileAt(files, 'tools/ord-lookup.yaml')) as FileObject;
    expect(Object.keys(tool)).toEqual([
      '$schema',
      'key',
      'name',
      'description',
      'type',
      'config',
      'parameters',
      'responseMapping',
      'rules',
      'errorHandling',
      'logPayloads',
    ]);
    expect(Object.keys(tool.config as object)).toEqual([
      'method',
      'url',
      'auth',
      'headers',
      'timeoutMs',
    ]);
    expect(Object.keys((tool.config as FileObject).auth as object)).toEqual(['type', 'token']);
    expect(Object.keys((tool.parameters as FileObject[])[0]!)).toEqual([
      'name',
      'type',
      'description',
      'required',
    ]);
    const alert = parse(fileAt(files, 'alerts/lookups-failing.yaml')) as FileObject;
    expect(Object.keys(alert)).toEqual([
      '$schema',
      'key',
      'name',
      'condition',
      'severity',
      'notifications',
      'cooldown',
      'isActive',
    ]);
    expect(alert.condition).toEqual({
      type: 'tool_performance',
      toolId: 'ord-lookup',
      metric: 'success_rate',
      operator: 'less_than',
      threshold: 90,
      timeWindow: '15m',
    });
    expect(Object.keys(alert.condition as object)[1]).toBe('toolId');
    expect(Object.keys(alert.notifications as object)).toEqual(['email', 'slack', 'webhook', 'os']);
    expect(Object.keys((alert.notifications as FileObject).slack as object)).toEqual([
      'channel',
      'webhookUrl',
    ]);
  });

  it('writes keys for ids, script acts, audio and cases, and no ids, timestamps or stats', () => {
    const scenario = parse(fileAt(files, 'scenarios/late-order.yaml')) as FileObject;
    expect(scenario).toMatchObject({
      key: 'late-order',
      personas: ['angry-caller-2', 'angry-caller'],
      targetAgents: ['order-bot'],
      scorecard: 'orders',
      audio: {
        enabled: true,
        line: { codec: 'mulaw', sampleRate: 8000, lossPercent: 2, jitterMs: 0, latencyMs: 0 },
      },
      cases: 'late-order.cases.csv',
    });
    expect(Object.keys(scenario.audio as object)).toEqual(['enabled', 'line']);
    expect((scenario.script as FileObject[]).map((l) => Object.keys(l))).toEqual([
      ['say', 'expect'],
      ['say', 'backchannel'],
      ['say', 'interrupt', 'silence'],
      ['dtmf'],
      ['say', 'expect', 'hangup'],
    ]);
    expect(Object.keys((scenario.script as FileObject[])[0]!.expect as object)).toEqual([
      'contains',
      'toolCalled',
    ]);
    expect(fileAt(files, 'scenarios/late-order.cases.csv')).toBe(
      'order_id,note\n4172,plain\n"99, ""quoted""",""\n5,\n',
    );
    expect(parse(fileAt(files, 'schedules/weekdays.yaml'))).toEqual({
      $schema: '../.callbench/schemas/schedule.json',
      key: 'weekdays',
      name: 'Weekdays',
      scenarioId: 'late-order',
      periodicity: '0 9 * * 1-5',
      timezone: 'Europe/Paris',
      periodEndCondition: 'after:5',
      isActive: false,
      maxCostUsd: null,
    });
    const scorecard = parse(fileAt(files, 'scorecards/orders.yaml')) as FileObject;
    expect((scorecard.metrics as FileObject[])[0]).toEqual({
      name: 'Looked up',
      category: 'general',
      description: null,
      weight: 1,
      critical: false,
      type: 'tool_called',
      config: { tool: 'ord_lookup', arguments: { a: { b: 3, y: 2 }, z: 1 } },
    });
    for (const file of files.filter((f) => f.path.endsWith('.yaml'))) {
      expect(file.content, file.path).not.toMatch(/\b[a-z]{2,5}_[0-9a-z]{21}\b/);
      for (const id of [fixture.agentId, ...Object.values(fixture.ids)])
        expect(file.content, file.path).not.toContain(id);
      expect(file.content, file.path).not.toMatch(
        /created_at|updated_at|usage_stats|stats:|version:/,
      );
      expect(file.content.endsWith('\n') && !file.content.includes('\r'), file.path).toBe(true);
    }
  });

  it('validates every resource file against its kind file schema and callbench.yaml against its own', () => {
    for (const kind of SUITE_KINDS) {
      for (const file of files.filter((f) => f.path.startsWith(`${SUITE_DIRS[kind]}/`))) {
        if (!file.path.endsWith('.yaml')) continue;
        const parsed = KIND_SPECS[kind].fileSchema.safeParse(parse(file.content));
        expect(parsed.error?.issues ?? [], file.path).toEqual([]);
      }
    }
    const manifest = ManifestSchema.parse(parse(fileAt(files, 'callbench.yaml')));
    expect(manifest.agents).toEqual([
      {
        key: 'order-bot',
        provider: 'http',
        providerAgentId: 'Order bot',
        url: `${fixture.agentUrl}/simple`,
        format: 'simple',
        apiKey: '${secret:AGENT_ORDER_BOT_API_KEY}',
      },
    ]);
    expect(manifest.secrets).toEqual(Object.keys(SECRET_NAMES).sort());
  });

  it('never writes a secret: each secret field holds its placeholder', () => {
    const all = files.map((f) => f.content).join('\n');
    for (const value of Object.values(SECRETS)) expect(all).not.toContain(value);
    expect(all).not.toContain('****');
    const tool = parse(fileAt(files, 'tools/ord-lookup.yaml')) as FileObject;
    expect(tool.config).toMatchObject({
      auth: { type: 'bearer', token: '${secret:TOOL_ORD_LOOKUP_AUTH_TOKEN}' },
      headers: { 'X-Api-Token': '${secret:TOOL_ORD_LOOKUP_HEADERS_X_API_TOKEN}', 'X-Team': 'qa' },
    });
    expect(parse(fileAt(files, 'tools/orders-db.yaml')).config.connection).toBe(
      '${secret:TOOL_ORDERS_DB_CONNECTION}',
    );
  });

  it('leaves out tools and alerts the workspace does not name, and excluded tags with their schedules and alerts', async () => {
    const all = files.map((f) => f.content).join('\n');
    expect(all).not.toMatch(/unrelated/i);
    const excluded = (await exportOf(s, { excludeTags: ['wip'] })).map((f) => f.path);
    expect(excluded).not.toContain('scenarios/draft.yaml');
    expect(excluded).not.toContain('schedules/draft-runs.yaml');
    expect(excluded).not.toContain('alerts/draft-failing.yaml');
    expect(excluded).toContain('scenarios/late-order.yaml');
  });

  it('is stable: the same bytes again, and a renamed resource keeps the key it was exported with', async () => {
    expect(await exportOf(s)).toEqual(files);
    const renamed = await s.ws('PUT', `/personas/${fixture.ids.angry1}`, {
      name: 'Furious caller',
    });
    expect(renamed.status).toBe(200);
    const again = await exportOf(s);
    expect(fileAt(again, 'personas/angry-caller.yaml')).toContain('name: Furious caller');
    await s.ws('PUT', `/personas/${fixture.ids.angry1}`, { name: 'Angry caller' });
    expect(await exportOf(s)).toEqual(files);
  });

  it('answers the JSON Schemas without a credential', async () => {
    for (const name of ['suite', ...SUITE_KINDS]) {
      const res = await fetch(`${s.url}/schemas/${name}.json`);
      expect(res.status, name).toBe(200);
      const body = (await res.json()) as FileObject;
      expect(`${JSON.stringify(body, null, 2)}\n`).toBe(
        fileAt(files, `.callbench/schemas/${name}.json`),
      );
      expect(body.additionalProperties, name).toBe(false);
    }
    expect((await fetch(`${s.url}/schemas/widget.json`)).status).toBe(400);
    const doc = (await s.call('GET', '/openapi.json')).body;
    expect(doc.paths['/schemas/{kind}.json'].get.security).toEqual([]);
  });
});

describe('suite export scope', () => {
  it("takes the tools a target agent's configuration lists, and the alerts on that agent", async () => {
    const s = await startServer();
    const provider = await startFakeProviders();
    try {
      const connected = await s.call('POST', '/v1/agents/connect', {
        provider: 'vapi',
        agent_id: 'asst_1',
        credentials: { api_key: GOOD_KEY, base_url: provider.url },
      });
      const agentId = String(connected.body.id);
      const tools = [{ name: 'listed_by_agent' }];
      expect(
        (await s.call('PATCH', `/v1/agents/${agentId}`, { configuration: { tools } })).status,
      ).toBe(200);
      for (const name of ['listed_by_agent', 'not_listed'])
        await s.call('POST', '/v1/tools', {
          name,
          type: 'routing',
          config: { transferTo: '+1555' },
        });
      const onAgent = { type: 'agent_config_changed', agentId };
      expect(
        (await s.call('POST', '/v1/alerts', { name: 'Changed', condition: onAgent })).status,
      ).toBe(201);
      await s.ws('POST', '/scenarios', {
        name: 'Call',
        prompt: 'p',
        tags: ['agent'],
        targetAgents: [agentId],
      });
      const paths = (await exportOf(s)).map((f) => f.path);
      expect(paths).toContain('tools/listed-by-agent.yaml');
      expect(paths).toContain('alerts/changed.yaml');
      expect(paths).not.toContain('tools/not-listed.yaml');
      const manifest = ManifestSchema.parse(parse(fileAt(await exportOf(s), 'callbench.yaml')));
      expect(manifest.agents).toEqual([
        { key: 'support-sam', provider: 'vapi', providerAgentId: 'asst_1' },
      ]);
      // With the scenario left out, nothing names the agent: neither is exported.
      const without = (await exportOf(s, { excludeTags: ['agent'] })).map((f) => f.path);
      expect(without).not.toContain('tools/listed-by-agent.yaml');
      expect(without).not.toContain('alerts/changed.yaml');
      expect(without).not.toContain('scenarios/call.yaml');
    } finally {
      await provider.stop();
      await s.stop();
    }
  });
});

describe('suite files back into an empty engine', () => {
  let s: TestServer;
  let empty: TestServer;
  let fixture: Fixture;
  beforeAll(async () => {
    s = await startServer();
    empty = await startServer();
    fixture = await buildFixture(s);
  });
  afterAll(async () => {
    await fixture?.stop();
    await Promise.all([s.stop(), empty.stop()]);
  });

  /** Creates (or, for the workspace's default scorecard, updates) one file's resource. */
  async function createFrom(kind: SuiteKind, input: FileObject, existing?: string) {
    const ws = (method: string, path: string) => empty.ws(method, path, input);
    const at = {
      persona: () => ws('POST', '/personas'),
      scorecard: () =>
        existing ? ws('PUT', `/scorecards/${existing}`) : ws('POST', '/scorecards'),
      scenario: () => ws('POST', '/scenarios'),
      schedule: () => ws('POST', '/schedules'),
      tool: () => empty.call('POST', '/v1/tools', input),
      alert: () => empty.call('POST', '/v1/alerts', input),
    }[kind];
    const res = await at();
    expect(res.status, `${kind}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    const body = res.body.data ?? res.body;
    return String((body[kind] ?? body).id);
  }

  it('gives inputs that create equal resources: their export is byte-identical', async () => {
    const files = await exportOf(s);
    const manifest = ManifestSchema.parse(parse(fileAt(files, 'callbench.yaml')));
    const ids = new Map<string, string>();
    const agent = manifest.agents[0]!;
    ids.set(
      `agent:${agent.key}`,
      await connectHttpAgent(empty, agent.providerAgentId, agent.url!, SECRETS.agentKey),
    );
    const refs: InputRefs = {
      idOf: (kind: RefKind, key: string) => ids.get(`${kind}:${key}`)!,
      secret: (name) => SECRET_NAMES[name]!,
      cases: (name) =>
        readCasesCsv(fileAt(files, `scenarios/${name}`)).rows.map((r) => ({
          variables: r.variables,
        })),
    };
    const existing = await empty.engine.store.suiteKeys.keys('scorecard', empty.workspaceId);
    const order: SuiteKind[] = ['tool', 'persona', 'scorecard', 'scenario', 'schedule', 'alert'];
    for (const kind of order) {
      const kindFiles = files
        .filter((f) => f.path.startsWith(`${SUITE_DIRS[kind]}/`) && f.path.endsWith('.yaml'))
        .map((f) => KIND_SPECS[kind].fileSchema.parse(parse(f.content)) as FileObject)
        // A composite's steps exist first.
        .sort((a, b) => Number(a.type === 'composite') - Number(b.type === 'composite'));
      for (const file of kindFiles) {
        const key = String(file.key);
        const current = [...existing].find(([, k]) => kind === 'scorecard' && k === key)?.[0];
        const input = KIND_SPECS[kind].toInput(file, refs);
        const id = await createFrom(kind, input, current);
        ids.set(`${kind}:${key}`, id);
        await empty.engine.store.suiteKeys.persist(kind, new Map([[id, key]]));
      }
    }
    expect(await exportOf(empty)).toEqual(files);
  });
});
