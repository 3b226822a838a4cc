import type { Json } from '../helpers/json.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import { secretsOf, storedRows } from '../helpers/store-under-test.js';

describe('alerts', () => {
  let s: TestServer;
  let toolId: string;
  // Alert names are unique: each test has an engine of its own.
  beforeEach(async () => {
    s = await startServer();
    toolId = (
      await s.call('POST', '/v1/tools', {
        name: 'crm',
        type: 'api',
        config: { url: 'https://crm.example.com' },
      })
    ).body.id;
  });
  afterEach(() => s.stop());

  const spec = (over: Record<string, unknown> = {}) => ({
    name: 'CRM degraded',
    condition: {
      type: 'tool_performance',
      toolId,
      metric: 'success_rate',
      operator: 'less_than',
      threshold: 95,
      timeWindow: '15m',
    },
    severity: 'high',
    notifications: {
      email: ['qa@example.com'],
      slack: {
        channel: '#qa',
        webhookUrl: 'https://hooks.slack.example/services/T0/B0/abcdef123456',
      },
    },
    ...over,
  });
  const paths = (res: { body: Json }) =>
    res.body.error.details.map((d: { path: string }) => d.path);

  it("creates the specification's alert and answers it bare, the webhook URL masked", async () => {
    const res = await s.call('POST', '/v1/alerts', spec());
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^alr_/),
      name: 'CRM degraded',
      severity: 'high',
      isActive: true,
      state: 'ok',
      condition: {
        type: 'tool_performance',
        toolId,
        metric: 'success_rate',
        operator: 'less_than',
        threshold: 95,
        timeWindow: '15m',
      },
      notifications: {
        email: ['qa@example.com'],
        slack: { channel: '#qa', webhookUrl: '****3456' },
      },
    });
    expect(
      JSON.stringify(await storedRows(s.stored, 'SELECT definition FROM alerts')),
    ).not.toContain('abcdef123456');
  });

  it('accepts a tool name for toolId and stores the id', async () => {
    const res = await s.call(
      'POST',
      '/v1/alerts',
      spec({
        condition: {
          type: 'tool_performance',
          toolId: 'crm',
          metric: 'p95_response_time',
          operator: 'greater_than',
          threshold: 800,
        },
      }),
    );
    expect(res.body.condition).toMatchObject({ toolId, timeWindow: '15m' });
  });

  it('validates condition, metric, operator, severity, window, addresses and webhooks', async () => {
    const bad = await s.call(
      'POST',
      '/v1/alerts',
      spec({
        condition: {
          type: 'tool_performance',
          toolId: 'ghost',
          metric: 'latency',
          operator: 'below',
          threshold: 1,
          timeWindow: '15 minutes',
        },
        severity: 'urgent',
        notifications: { email: ['not-an-address'], webhook: { url: 'ftp://x' } },
      }),
    );
    expect(bad.status).toBe(400);
    expect(paths(bad)).toEqual(
      expect.arrayContaining([
        'condition.operator',
        'condition.timeWindow',
        'severity',
        'notifications.email[0]',
        'notifications.webhook.url',
      ]),
    );
    const semantic = await s.call(
      'POST',
      '/v1/alerts',
      spec({
        condition: {
          type: 'tool_performance',
          toolId: 'ghost',
          metric: 'latency',
          operator: 'less_than',
          threshold: 1,
        },
      }),
    );
    expect(paths(semantic)).toEqual(['condition.toolId', 'condition.metric']);
    const noThreshold = await s.call(
      'POST',
      '/v1/alerts',
      spec({ condition: { type: 'tool_performance', toolId, metric: 'error_rate' } }),
    );
    expect(paths(noThreshold)).toEqual(['condition.operator', 'condition.threshold']);
    expect(
      paths(
        await s.call(
          'POST',
          '/v1/alerts',
          spec({
            condition: {
              type: 'agent_score',
              agentId: 'agt_x',
              operator: 'less_than',
              threshold: 70,
            },
          }),
        ),
      ),
    ).toEqual(['condition.agentId']);
    expect(
      paths(
        await s.call(
          'POST',
          '/v1/alerts',
          spec({ condition: { type: 'scenario_failure', operator: 'less_than', threshold: 70 } }),
        ),
      ),
    ).toEqual(['condition.scenarioId']);
    expect(paths(await s.call('POST', '/v1/alerts', { condition: { type: 'weather' } }))).toEqual([
      'name',
      'condition.type',
    ]);
  });

  it("refuses a threshold outside its metric's range, on create and on a patch", async () => {
    const condition = (metric: string, threshold: number) => ({
      condition: { type: 'tool_performance', toolId, metric, operator: 'less_than', threshold },
    });
    for (const [metric, threshold, range] of [
      ['success_rate', 101, '0 to 100'],
      ['success_rate', 1e20, '0 to 100'],
      ['error_rate', -1, '0 to 100'],
      ['timeout_rate', 100.5, '0 to 100'],
      ['avg_response_time', -5, 'at least 0'],
      ['p95_response_time', -0.1, 'at least 0'],
      ['call_count', -1, 'at least 0'],
    ] as const) {
      const res = await s.call('POST', '/v1/alerts', spec(condition(metric, threshold)));
      expect(res.status, `${metric} ${threshold}`).toBe(400);
      expect(res.body.error.details).toEqual([
        { path: 'condition.threshold', message: `must be ${range} for ${metric}` },
      ]);
    }
    // The edges are values a tester means: none is refused.
    for (const [metric, threshold] of [
      ['success_rate', 100],
      ['error_rate', 0],
      ['p95_response_time', 120_000],
      ['call_count', 0],
    ] as const) {
      const res = await s.call(
        'POST',
        '/v1/alerts',
        spec({ name: `${metric} ${threshold}`, ...condition(metric, threshold) }),
      );
      expect(res.status, `${metric} ${threshold}`).toBe(201);
    }
    const agentId = 'agent-none';
    const score = await s.call(
      'POST',
      '/v1/alerts',
      spec({ condition: { type: 'agent_score', agentId, operator: 'less_than', threshold: 150 } }),
    );
    expect(paths(score)).toEqual(['condition.agentId', 'condition.threshold']);
    // A patch is checked against the merged condition: its threshold alone can leave the range.
    const created = await s.call('POST', '/v1/alerts', spec({ name: 'patched' }));
    const patched = await s.call('PATCH', `/v1/alerts/${created.body.id}`, {
      condition: { threshold: 120 },
    });
    expect(patched.status).toBe(400);
    expect(paths(patched)).toEqual(['condition.threshold']);
    const stored = await s.call('GET', `/v1/alerts/${created.body.id}`);
    expect(stored.body.condition.threshold).toBe(95);
  });

  it('patches: top-level fields replaced, condition and notifications merged; secrets kept', async () => {
    const a = (
      await s.call(
        'POST',
        '/v1/alerts',
        spec({
          notifications: {
            webhook: { url: 'https://hooks.example.com/x', secret: 'whsec_0123456789' },
          },
        }),
      )
    ).body;
    const res = await s.call('PATCH', `/v1/alerts/${a.id}`, {
      condition: { threshold: 90 },
      severity: 'critical',
      cooldown: '30m',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      severity: 'critical',
      cooldown: '30m',
      condition: { threshold: 90, metric: 'success_rate', toolId },
    });
    expect(res.body.notifications.webhook).toEqual({
      url: 'https://hooks.example.com/x',
      secret: '****6789',
    });
    const stored = (await s.engine.store.alerts.get(a.id))!.definition.notifications as Json;
    expect((await secretsOf(s)).open(stored.webhook.secret)).toBe('whsec_0123456789');
    expect(
      paths(await s.call('PATCH', `/v1/alerts/${a.id}`, { condition: { metric: 'vibes' } })),
    ).toEqual(['condition.metric']);
    expect((await s.call('PATCH', `/v1/alerts/${a.id}`, { isActive: false })).body.isActive).toBe(
      false,
    );
    expect(
      (await s.call('PATCH', `/v1/alerts/${a.id}`, { cooldown: null })).body,
    ).not.toHaveProperty('cooldown');
  });

  it('lists, gets, deletes; a tool with alerts cannot be deleted', async () => {
    const made = [
      (await s.call('POST', '/v1/alerts', spec())).body.id as string,
      (await s.call('POST', '/v1/alerts', spec({ name: 'CRM failing' }))).body.id as string,
    ];
    const list = (await s.call('GET', '/v1/alerts')).body.alerts as { id: string }[];
    expect(list.map((a) => a.id).sort()).toEqual([...made].sort());
    expect((await s.call('GET', `/v1/alerts/${made[0]}`)).body).toMatchObject({
      name: 'CRM degraded',
    });
    const blocked = await s.call('DELETE', '/v1/tools/crm');
    expect(blocked.status).toBe(409);
    expect(blocked.body.error.message).toBe(
      "Tool 'crm' is in use: watched by 2 alerts: CRM degraded, CRM failing; remove it from them first",
    );
    for (const a of list)
      expect((await s.call('DELETE', `/v1/alerts/${a.id}`)).body).toEqual({
        deleted: true,
        id: a.id,
      });
    expect((await s.call('GET', `/v1/alerts/${list[0]!.id}`)).status).toBe(404);
    expect((await s.call('DELETE', '/v1/tools/crm')).status).toBe(200);
  });
});
