import type { TestServer } from '../helpers/server.js';
import { connectHttpAgent, startLocalServer, type LocalServer } from '../helpers/http-agents.js';

/**
 * A workspace with every kind of suite resource and every field set (#38): same-named personas,
 * audio settings, script acts, cases, every tool type with secrets, both alert channels, a
 * schedule; plus what an export must leave out (a tool and an alert the workspace does not name,
 * a scenario tagged `wip` with its schedule and alert). Secret values are in `SECRETS`.
 */

export const SECRETS = {
  bearer: 'tok-bearer-SECRET-1111',
  header: 'hdr-SECRET-2222',
  apiKey: 'key-SECRET-3333',
  clientSecret: 'oauth-SECRET-4444',
  password: 'pw-SECRET-5555',
  connection: 'file:/var/data/orders-SECRET-6666.db',
  webhook: 'whsec-SECRET-7777',
  slack: 'https://hooks.slack.com/services/T000/B000/SECRET8888',
  agentKey: 'agent-SECRET-9999',
} as const;

export interface Fixture {
  agentUrl: string;
  agentId: string;
  ids: Record<string, string>;
  stop(): Promise<void>;
}

const ok = async (res: Promise<{ status: number; body: unknown }>, what: string) => {
  const r = await res;
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as Record<string, unknown> & { data: Record<string, { id: string }> };
};

/** The tools: one of each type (secrets in every secret field), a composite, and an unrelated one. */
export function toolBodies(agentUrl: string): ({ name: string } & Record<string, unknown>)[] {
  return [
    {
      name: 'ord_lookup',
      description: 'Looks up an order',
      type: 'api',
      config: {
        timeoutMs: 5000,
        headers: { 'X-Team': 'qa', 'X-Api-Token': SECRETS.header },
        auth: { token: SECRETS.bearer, type: 'bearer' },
        url: `${agentUrl}/orders/{orderId}`,
        method: 'GET',
      },
      parameters: [
        { required: true, name: 'orderId', type: 'string', description: 'The order number' },
        { name: 'amount', type: 'number', min: 0, max: 500, default: 1 },
      ],
      responseMapping: { status: 'order.status', eta: 'order.eta' },
      rules: [{ condition: 'amount > 100', action: 'require_approval', message: 'Ask first' }],
      errorHandling: { onTimeout: { action: 'retry', maxRetries: 2, fallbackMessage: 'Wait' } },
      logPayloads: true,
    },
    {
      name: 'refund',
      description: 'Refunds',
      type: 'action',
      config: {
        url: `${agentUrl}/refund`,
        auth: { type: 'api_key', key: SECRETS.apiKey, location: 'query', paramName: 'k' },
      },
      parameters: [],
    },
    {
      name: 'crm_sync',
      type: 'action',
      config: {
        method: 'PUT',
        url: `${agentUrl}/crm`,
        auth: {
          type: 'oauth2',
          clientId: 'cb',
          clientSecret: SECRETS.clientSecret,
          tokenUrl: `${agentUrl}/token`,
          scope: 'crm',
        },
      },
    },
    {
      name: 'legacy_api',
      type: 'api',
      config: {
        url: `${agentUrl}/legacy`,
        auth: { type: 'basic', username: 'u', password: SECRETS.password },
      },
    },
    {
      name: 'transfer',
      type: 'routing',
      config: { transferTo: '+15550100', priority: 'high' },
      conditions: [{ check: 'amount < 400', action: 'allow' }],
      parameters: [{ name: 'amount', type: 'number' }],
    },
    {
      name: 'orders_db',
      type: 'database',
      config: { driver: 'sqlite', connection: SECRETS.connection, query: 'SELECT 1 AS one' },
    },
    {
      name: 'lookup_then_refund',
      type: 'composite',
      steps: [
        { tool: 'ord_lookup', params: ['orderId'] },
        { tool: 'refund', dependsOn: 'ord_lookup' },
      ],
      aggregateResults: true,
    },
    { name: 'unrelated', type: 'routing', config: { transferTo: '+15550199' } },
  ];
}

async function workspaceResources(s: TestServer, ids: Record<string, string>) {
  const persona = (body: Record<string, unknown>) =>
    ok(s.ws('POST', '/personas', body), 'persona').then((b) => b.data.persona!.id);
  ids.angry1 = await persona({
    behaviours: { hangup: { probability: 0.1 }, bargeIn: { probability: 0.3, afterMs: 900 } },
    noise: { snrDb: 12 },
    voice: { speed: 1.2, engine: 'system', voiceId: 'en-gb+f3' },
    tags: ['vip', 'angry'],
    prompt: 'You are angry about a late order.\nYou want a refund.',
    name: 'Angry caller',
    language: 'en-us',
    emotion: 'angry',
    difficulty: 'hard',
    backgroundNoise: 'street',
  });
  ids.angry2 = await persona({ name: 'Angry caller', prompt: 'Angry too, but calmer.' });
  const card = await ok(
    s.ws('POST', '/scorecards', {
      name: 'Orders',
      description: 'Checks the order flow',
      passThreshold: 80,
      metrics: [
        {
          type: 'tool_called',
          name: 'Looked up',
          config: { tool: 'ord_lookup', arguments: { z: 1, a: { y: 2, b: 3 } } },
        },
        {
          type: 'tool_not_called',
          name: 'No transfer',
          critical: true,
          config: { tool: 'transfer' },
        },
        {
          type: 'contains',
          name: 'Says shipped',
          weight: 2,
          category: 'accuracy',
          config: { text: 'shipped' },
        },
        {
          type: 'max_response_latency_ms',
          name: 'Fast',
          description: 'p90',
          config: { max: 2000 },
        },
      ],
    }),
    'scorecard',
  );
  ids.scorecard = card.data.scorecard!.id;
  return ids;
}

async function scenarios(s: TestServer, agentId: string, ids: Record<string, string>) {
  const scenario = (body: Record<string, unknown>) =>
    ok(s.ws('POST', '/scenarios', body), 'scenario').then((b) => b.data.scenario!.id);
  ids.late = await scenario({
    audio: { line: { codec: 'mulaw', sampleRate: 8000, lossPercent: 2 }, enabled: true },
    cases: [
      { variables: { order_id: '4172', note: 'plain' } },
      { variables: { order_id: '99, "quoted"', note: '' } },
      { variables: { order_id: '5' } },
    ],
    maxDurationMs: 120000,
    maxTurns: 12,
    script: [
      {
        say: 'Hi, where is order {{order_id}}?',
        expect: { toolCalled: 'ord_lookup', contains: 'order' },
      },
      { say: 'mm-hmm', backchannel: { afterMs: 500 } },
      { say: 'Wait!', interrupt: { afterMs: 800 }, silence: { ms: 300 } },
      { dtmf: '12#' },
      { say: 'Bye', hangup: true, expect: { regex: 'bye|goodbye' } },
    ],
    expectedBehavior: {
      providesTrackingInfo: true,
      toolCalls: ['lookup_then_refund', 'crm_sync', 'legacy_api', 'orders_db'],
    },
    expectedOutcome: 'The order status is given',
    tags: ['orders'],
    scorecard: ids.scorecard,
    targetAgents: [agentId],
    personas: [ids.angry2, ids.angry1],
    promptVariables: [{ name: 'order_id', type: 'string', defaultValue: '1' }, { name: 'note' }],
    prompt: 'Ask about order {{order_id}}.',
    name: 'Late order',
  });
  ids.wip = await scenario({ name: 'Draft', prompt: 'Not ready', tags: ['WIP'] });
  ids.lateSchedule = (
    await ok(
      s.ws('POST', '/schedules', {
        isActive: false,
        periodEndCondition: 'after:5',
        timezone: 'Europe/Paris',
        periodicity: '0 9 * * 1-5',
        scenarioId: ids.late,
        name: 'Weekdays',
      }),
      'schedule',
    )
  ).data.schedule!.id;
  ids.wipSchedule = (
    await ok(
      s.ws('POST', '/schedules', { name: 'Draft runs', scenarioId: ids.wip, periodicity: 'daily' }),
      'schedule',
    )
  ).data.schedule!.id;
}

async function alerts(s: TestServer, agentId: string, ids: Record<string, string>) {
  const alert = async (body: Record<string, unknown>) =>
    ((await ok(s.call('POST', '/v1/alerts', body), 'alert')) as unknown as { id: string }).id;
  ids.toolAlert = await alert({
    notifications: {
      os: false,
      webhook: { secret: SECRETS.webhook, url: 'https://hooks.example.com/cb' },
      slack: { webhookUrl: SECRETS.slack, channel: '#qa' },
      email: ['qa@example.com'],
    },
    cooldown: '30m',
    severity: 'high',
    condition: {
      threshold: 90,
      operator: 'less_than',
      metric: 'success_rate',
      toolId: 'ord_lookup',
      type: 'tool_performance',
    },
    name: 'Lookups failing',
  });
  ids.agentAlert = await alert({
    name: 'Score drop',
    condition: {
      type: 'agent_score',
      agentId,
      operator: 'less_than',
      threshold: 60,
      minSamples: 3,
    },
  });
  ids.scenarioAlert = await alert({
    name: 'Late order failing',
    condition: {
      type: 'scenario_failure',
      scenarioId: ids.late,
      operator: 'less_than',
      threshold: 50,
    },
  });
  ids.wipAlert = await alert({
    name: 'Draft failing',
    condition: {
      type: 'scenario_failure',
      scenarioId: ids.wip,
      operator: 'less_than',
      threshold: 50,
    },
  });
  ids.unrelatedAlert = await alert({
    name: 'Unrelated',
    condition: {
      type: 'tool_performance',
      toolId: 'unrelated',
      metric: 'call_count',
      operator: 'greater_than',
      threshold: 5,
    },
  });
}

/** Builds the fixture in the test server's first workspace. */
export async function buildFixture(s: TestServer): Promise<Fixture> {
  const agent: LocalServer = await startLocalServer((_req, res) => res.end('{"reply":"ok"}'));
  const agentId = await connectHttpAgent(s, 'Order bot', `${agent.url}/simple`, SECRETS.agentKey);
  const ids: Record<string, string> = {};
  for (const body of toolBodies(agent.url))
    ids[body.name] = String((await ok(s.call('POST', '/v1/tools', body), 'tool')).id);
  await workspaceResources(s, ids);
  await scenarios(s, agentId, ids);
  await alerts(s, agentId, ids);
  return { agentUrl: agent.url, agentId, ids, stop: () => agent.stop() };
}
