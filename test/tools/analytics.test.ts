import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolCallRecord } from '../../src/tools/types.js';
import { startServer, testClock, type TestServer } from '../helpers/server.js';
import { storedRows } from '../helpers/store-under-test.js';

const DAY = 86_400_000;

describe('tool analytics: GET /v1/tools/{id}/analytics', () => {
  let s: TestServer;
  const clock = testClock(Date.parse('2026-06-15T12:00:00Z'));
  let toolId: string;

  const call = (over: Partial<ToolCallRecord>): ToolCallRecord => ({
    toolId,
    toolName: 'crm',
    agentId: null,
    source: 'production',
    startedMs: clock.now() - DAY,
    durationMs: 100,
    outcome: 'success',
    statusCode: 200,
    attempts: 1,
    errorMessage: null,
    parameters: null,
    result: null,
    ...over,
  });

  beforeAll(async () => {
    s = await startServer({ clock });
    toolId = (
      await s.call('POST', '/v1/tools', {
        name: 'crm',
        type: 'api',
        config: { url: 'http://127.0.0.1:1/x' },
      })
    ).body.id;
    const other = (
      await s.call('POST', '/v1/tools', {
        name: 'other',
        type: 'api',
        config: { url: 'http://127.0.0.1:1/y' },
      })
    ).body.id;
    const log = s.engine.store.toolCalls;
    // 14 successes of 10, 20, ... 140 ms; agents a1 (10 calls) and a2 (4).
    for (let i = 1; i <= 14; i++)
      await log.insert(
        call({
          durationMs: i * 10,
          agentId: i <= 10 ? 'a1' : 'a2',
          startedMs: clock.now() - i * 3_600_000,
        }),
      );
    for (let i = 0; i < 3; i++)
      await log.insert(
        call({
          outcome: 'timeout',
          durationMs: 1000,
          statusCode: null,
          errorMessage: 'No complete answer within 1000 ms',
        }),
      );
    await log.insert(
      call({
        outcome: 'not_found',
        durationMs: 50,
        statusCode: 404,
        errorMessage: 'older 404',
        startedMs: clock.now() - 3 * DAY,
      }),
    );
    await log.insert(
      call({
        outcome: 'not_found',
        durationMs: 60,
        statusCode: 404,
        errorMessage: 'newest 404',
        startedMs: clock.now() - 2 * DAY,
      }),
    );
    await log.insert(
      call({
        outcome: 'http_error',
        durationMs: 70,
        statusCode: 500,
        errorMessage: 'boom',
        agentId: 'a2',
      }),
    );
    // Outside the window, and another tool: neither counts.
    await log.insert(
      call({ outcome: 'timeout', durationMs: 9999, startedMs: clock.now() - 8 * DAY }),
    );
    await log.insert(
      call({ toolId: other, toolName: 'other', outcome: 'auth_error', durationMs: 5 }),
    );
  });
  afterAll(() => s.stop());

  it("answers the specification's record with figures computed by hand", async () => {
    const res = await s.call('GET', `/v1/tools/${toolId}/analytics?days=7`);
    expect(res.status).toBe(200);
    // The trend (7 days in 6-hour buckets) is read in test/api/tool-results.test.ts.
    const { trend, ...record } = res.body;
    expect(trend).toHaveLength(28);
    expect(record).toEqual({
      toolId,
      name: 'crm',
      timeRange: '7d',
      usage: { totalCalls: 20, uniqueAgents: 2, avgCallsPerDay: 3 },
      // avg = (1050 + 3000 + 50 + 60 + 70) / 20 = 211.5; p95 = 19th of 20 sorted durations = 1000
      performance: {
        successRate: 70,
        avgResponseTime: 212,
        p95ResponseTime: 1000,
        timeoutRate: 15,
        errorRate: 15,
      },
      errors: [
        { type: 'timeout', count: 3, percentage: 15, message: 'No complete answer within 1000 ms' },
        { type: 'not_found', count: 2, percentage: 10, message: 'newest 404' },
        { type: 'http_error', count: 1, percentage: 5, message: 'boom' },
      ],
      recommendations: [
        expect.stringContaining(
          '15% of calls time out and the tool has no errorHandling.onTimeout',
        ),
        expect.stringContaining('10% of calls end in not_found'),
        expect.stringContaining('15% of calls fail with errors other than timeouts'),
      ],
    });
  });

  it('accepts the tool name, narrows with days, and defaults to 7 days', async () => {
    const oneDay = (await s.call('GET', '/v1/tools/crm/analytics?days=1')).body;
    expect(oneDay.timeRange).toBe('1d');
    // In the last day: successes 1..14 h ago (all 14), the 3 timeouts and the http_error at exactly one day.
    expect(oneDay.usage.totalCalls).toBe(18);
    expect((await s.call('GET', '/v1/tools/crm/analytics')).body.timeRange).toBe('7d');
  });

  it('rates always add up to 100', async () => {
    const id = (
      await s.call('POST', '/v1/tools', {
        name: 'thirds',
        type: 'api',
        config: { url: 'http://127.0.0.1:1/z' },
      })
    ).body.id;
    for (const outcome of ['success', 'timeout', 'network_error'] as const)
      await s.engine.store.toolCalls.insert(call({ toolId: id, toolName: 'thirds', outcome }));
    const p = (await s.call('GET', `/v1/tools/${id}/analytics`)).body.performance;
    expect([p.successRate, p.timeoutRate, p.errorRate]).toEqual([33.33, 33.33, 33.34]);
    expect(p.successRate + p.timeoutRate + p.errorRate).toBeCloseTo(100, 10);
  });

  it('a tool with no calls answers zeros and no errors, not a 404', async () => {
    const id = (
      await s.call('POST', '/v1/tools', {
        name: 'quiet',
        type: 'routing',
        config: { transferTo: 'x' },
      })
    ).body.id;
    const res = await s.call('GET', `/v1/tools/${id}/analytics?days=30`);
    expect(res.body).toMatchObject({
      usage: { totalCalls: 0, uniqueAgents: 0, avgCallsPerDay: 0 },
      performance: {
        successRate: 0,
        avgResponseTime: 0,
        p95ResponseTime: 0,
        timeoutRate: 0,
        errorRate: 0,
      },
      errors: [],
    });
    expect(res.body.recommendations).toEqual([expect.stringContaining('No calls in this window')]);
  });

  it('validates days (1 to 365) and 404s an unknown tool', async () => {
    for (const days of ['0', '366', 'week'])
      expect((await s.call('GET', `/v1/tools/crm/analytics?days=${days}`)).status).toBe(400);
    expect((await s.call('GET', '/v1/tools/ghost/analytics')).status).toBe(404);
  });

  it('real test calls are logged with source, agent, outcome and attempts; secrets never', async () => {
    const id = (
      await s.call('POST', '/v1/tools', {
        name: 'logged',
        type: 'api',
        config: {
          url: 'http://127.0.0.1:1/x',
          auth: { type: 'bearer', token: 'log-secret-token-1' },
        },
      })
    ).body.id;
    await s.call('POST', '/v1/tools/logged/test', { agentId: 'agt_7' });
    await s.engine.store.toolCalls.flush();
    const rows = await storedRows(s.stored, 'SELECT * FROM tool_calls WHERE tool_id = ?', [id]);
    expect(rows).toEqual([
      expect.objectContaining({
        source: 'test',
        agent_id: 'agt_7',
        outcome: 'network_error',
        attempts: 1,
        parameters: null,
        result: null,
      }),
    ]);
    expect(JSON.stringify(await storedRows(s.stored, 'SELECT * FROM tool_calls'))).not.toContain(
      'log-secret-token-1',
    );
    const a = (await s.call('GET', `/v1/tools/${id}/analytics`)).body;
    expect(a.usage).toMatchObject({ totalCalls: 1, uniqueAgents: 1 });
    expect(a.errors[0]).toMatchObject({ type: 'network_error', count: 1, percentage: 100 });
  });
});
