import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ToolCallRecord } from '../../src/tools/types.js';
import { startReceiver } from '../helpers/receivers.js';
import { startServer, testClock, type TestServer } from '../helpers/server.js';
import { storedRows } from '../helpers/store-under-test.js';

describe('alert evaluation: ok -> firing -> resolved', () => {
  let s: TestServer;
  let hook: Awaited<ReturnType<typeof startReceiver>>;
  let toolId: string;
  let clock = testClock(Date.parse('2026-06-10T12:00:00Z'));
  const log = async (
    outcome: ToolCallRecord['outcome'],
    durationMs = 100,
    n = 1,
    tool = toolId,
  ) => {
    for (let i = 0; i < n; i++) {
      await s.engine.store.toolCalls.insert({
        toolId: tool,
        toolName: 'crm',
        agentId: null,
        source: 'production',
        startedMs: clock.now() - 1000,
        durationMs,
        outcome,
        statusCode: null,
        attempts: 1,
        errorMessage: null,
        parameters: null,
        result: null,
      });
    }
  };
  const evaluate = async (alertId?: string) =>
    (
      (await s.call('POST', '/v1/alerts/evaluate')).body.changes as {
        alertId: string;
        state: string;
        value: number | null;
      }[]
    ).filter((c) => !alertId || c.alertId === alertId);
  const events = async (id: string) => (await s.call('GET', `/v1/alerts/${id}/events`)).body.events;

  // Each test logs its own tool calls on an engine of its own, from the same instant.
  beforeEach(async () => {
    clock = testClock(Date.parse('2026-06-10T12:00:00Z'));
    [s, hook] = await Promise.all([
      // Evaluations come when the test asks: a round at the wall clock's minute would race them.
      startServer({ clock, deliveryRetryBaseMs: 5, alertEveryMinute: false }),
      startReceiver(),
    ]);
    toolId = (
      await s.call('POST', '/v1/tools', {
        name: 'crm',
        type: 'api',
        config: { url: 'http://127.0.0.1:1/x' },
      })
    ).body.id;
  });
  afterEach(async () => {
    await s.stop();
    await hook.stop();
  });

  it('fires once when the condition holds over enough samples, notifies once, and resolves once', async () => {
    const a = (
      await s.call('POST', '/v1/alerts', {
        name: 'CRM failing',
        notifications: { webhook: { url: hook.url }, os: false },
        condition: {
          type: 'tool_performance',
          toolId,
          metric: 'success_rate',
          operator: 'less_than',
          threshold: 90,
          timeWindow: '15m',
        },
      })
    ).body;
    await log('http_error', 100, 4);
    expect(await evaluate()).toEqual([]); // 4 samples: below minSamples (5)
    await log('timeout');
    expect(await evaluate()).toEqual([{ alertId: a.id, state: 'firing', value: 0 }]);
    expect((await s.call('GET', `/v1/alerts/${a.id}`)).body.state).toBe('firing');
    expect(await evaluate()).toEqual([]);
    expect(hook.received).toHaveLength(1);
    expect(JSON.parse(hook.received[0]!.body)).toMatchObject({
      event: 'alert.firing',
      value: 0,
      threshold: 90,
      timeWindow: '15m',
    });

    await log('success', 100, 45); // 45 of 50: 90%, no longer below 90
    expect(await evaluate()).toEqual([{ alertId: a.id, state: 'resolved', value: 90 }]);
    expect(hook.received).toHaveLength(2);
    expect(JSON.parse(hook.received[1]!.body)).toMatchObject({
      event: 'alert.resolved',
      value: 90,
    });
    const history = await events(a.id);
    expect(history.map((e: { state: string }) => e.state)).toEqual(['resolved', 'firing']);
    expect(history[1]).toMatchObject({
      value: 0,
      threshold: 90,
      timeWindow: '15m',
      deliveries: [{ channel: 'webhook', delivered: true, error: null }],
    });
    await s.call('PATCH', `/v1/alerts/${a.id}`, { isActive: false });
  });

  it('measures as tool analytics does: the same p95 and rates', async () => {
    // A tool of its own, so that analytics' one-day window holds exactly the alert's calls.
    const other = (
      await s.call('POST', '/v1/tools', {
        name: 'crm_p95',
        type: 'api',
        config: { url: 'http://127.0.0.1:1/x' },
      })
    ).body.id;
    await log('success', 50, 18, other);
    await log('success', 900, 2, other); // p95 of 20 = 19th smallest = 900
    const a = (
      await s.call('POST', '/v1/alerts', {
        name: 'CRM slow',
        notifications: { os: false },
        condition: {
          type: 'tool_performance',
          toolId: other,
          metric: 'p95_response_time',
          operator: 'greater_than',
          threshold: 800,
          timeWindow: '15m',
        },
      })
    ).body;
    expect(await evaluate(a.id)).toEqual([{ alertId: a.id, state: 'firing', value: 900 }]);
    const analytics = (await s.call('GET', `/v1/tools/${other}/analytics?days=1`)).body;
    expect(analytics.performance.p95ResponseTime).toBe(900);
    await s.call('DELETE', `/v1/alerts/${a.id}`);
  });

  it('cooldown keeps an alert from firing again too soon', async () => {
    clock.advance(3_600_000);
    const a = (
      await s.call('POST', '/v1/alerts', {
        name: 'Busy',
        cooldown: '30m',
        notifications: { os: false },
        condition: {
          type: 'tool_performance',
          toolId,
          metric: 'call_count',
          operator: 'greater_than',
          threshold: 5,
          timeWindow: '15m',
          minSamples: 1,
        },
      })
    ).body;
    await log('success', 10, 6);
    expect((await evaluate(a.id)).map((c: { state: string }) => c.state)).toEqual(['firing']);
    clock.advance(16 * 60_000); // the calls leave the window
    await log('success', 10, 1);
    expect((await evaluate(a.id)).map((c: { state: string }) => c.state)).toEqual(['resolved']);
    await log('success', 10, 6);
    expect(await evaluate(a.id)).toEqual([]); // 16 minutes since it fired: within the 30m cooldown
    clock.advance(15 * 60_000);
    await log('success', 10, 6);
    expect((await evaluate(a.id)).map((c: { state: string }) => c.state)).toEqual(['firing']);
    expect((await events(a.id)).map((e: { state: string }) => e.state)).toEqual([
      'firing',
      'resolved',
      'firing',
    ]);
    await s.call('DELETE', `/v1/alerts/${a.id}`);
  });

  it('an agent configuration change on the provider fires at once, and resolves when the window passes', async () => {
    await storedRows(
      s.stored,
      "INSERT INTO agents (id, provider, provider_agent_id, name, status, created_at, updated_at) VALUES ('agt_x', 'vapi', 'a', 'Sam', 'active', '2026-06-01T00:00:00Z', '2026-06-01T00:00:00Z')",
    );
    const a = (
      await s.call('POST', '/v1/alerts', {
        name: 'Sam changed',
        notifications: { webhook: { url: hook.url }, os: false },
        condition: { type: 'agent_config_changed', agentId: 'agt_x', timeWindow: '15m' },
      })
    ).body;
    const before = hook.received.length;
    const fired = new Promise<void>((resolve) =>
      s.engine.events.subscribe(
        (e) => e.type === 'alert.firing' && e.data.alertId === a.id && resolve(),
      ),
    );
    await storedRows(
      s.stored,
      "INSERT INTO agent_versions (agent_id, version, synced_at, changed_paths, configuration) VALUES ('agt_x', 2, ?, '[\"configuration.prompt\"]', '{}')",
      [new Date(clock.now()).toISOString()],
    );
    s.engine.events.emit('agent.config_changed', {
      agentId: 'agt_x',
      changedPaths: ['configuration.prompt'],
    });
    await fired;
    expect((await s.call('GET', `/v1/alerts/${a.id}`)).body.state).toBe('firing');
    clock.advance(20 * 60_000);
    expect(await evaluate(a.id)).toEqual([{ alertId: a.id, state: 'resolved', value: 0 }]);
    // One notification when it fired, one when it resolved: never one per evaluation.
    expect(hook.received.length).toBe(before + 2);
    expect(hook.received.slice(before).map((r) => JSON.parse(r.body).event)).toEqual([
      'alert.firing',
      'alert.resolved',
    ]);
  });
});

describe('alerts on simulation results', () => {
  let s: TestServer;
  const clock = testClock(Date.parse('2026-06-10T12:00:00Z'));
  beforeAll(async () => {
    s = await startServer({ clock });
  });
  afterAll(() => s.stop());

  it('agent_score fires on the average score; scenario_failure on the pass rate of scheduled executions only', async () => {
    await storedRows(
      s.stored,
      "INSERT INTO agents (id, provider, provider_agent_id, name, status, created_at, updated_at) VALUES ('agt_a', 'vapi', 'a', 'A', 'active', '2026-06-01T00:00:00Z', '2026-06-01T00:00:00Z')",
    );
    const scn = (await s.ws('POST', '/scenarios', { name: 'S', prompt: 'p' })).body.data.scenario
      .id;
    const now = new Date(clock.now() - 60_000).toISOString();
    for (const exe of ['exe_sched', 'exe_hand'])
      await storedRows(
        s.stored,
        "INSERT INTO executions (id, workspace_id, scenario_id, status, created_at) VALUES (?, ?, ?, 'completed', ?)",
        [exe, s.workspaceId, scn, now],
      );
    const sch = (
      await s.ws('POST', '/schedules', { name: 'n', scenarioId: scn, periodicity: 'daily' })
    ).body.data.schedule.id;
    await storedRows(
      s.stored,
      "INSERT INTO schedule_runs (id, schedule_id, scheduled_for, started_at, execution_id, trig, outcome) VALUES ('run_1', ?, ?, ?, 'exe_sched', 'schedule', 'started')",
      [sch, now, now],
    );
    const sim = (...args: unknown[]) =>
      storedRows(
        s.stored,
        "INSERT INTO simulations (id, workspace_id, execution_id, scenario_id, agent_id, status, score, passed, created_at, ended_at) VALUES (?, ?, ?, ?, 'agt_a', 'completed', ?, ?, ?, ?)",
        args,
      );
    await sim('s1', s.workspaceId, 'exe_sched', scn, 40, 0, now, now);
    await sim('s2', s.workspaceId, 'exe_sched', scn, 60, 0, now, now);
    await sim('s3', s.workspaceId, 'exe_hand', scn, 100, 1, now, now);
    const score = (
      await s.call('POST', '/v1/alerts', {
        name: 'Score low',
        notifications: { os: false },
        condition: {
          type: 'agent_score',
          agentId: 'agt_a',
          operator: 'less_than',
          threshold: 70,
          minSamples: 3,
        },
      })
    ).body;
    const failing = (
      await s.call('POST', '/v1/alerts', {
        name: 'Nightly failing',
        notifications: { os: false },
        condition: {
          type: 'scenario_failure',
          scenarioId: scn,
          operator: 'less_than',
          threshold: 50,
          minSamples: 2,
        },
      })
    ).body;
    const changes = (await s.call('POST', '/v1/alerts/evaluate')).body.changes;
    expect(changes).toEqual(
      expect.arrayContaining([
        { alertId: score.id, state: 'firing', value: 66.67 }, // (40 + 60 + 100) / 3
        { alertId: failing.id, state: 'firing', value: 0 }, // the run by hand (passed) does not count
      ]),
    );
  });
});
