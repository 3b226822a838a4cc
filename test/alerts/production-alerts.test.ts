import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../src/events.js';
import { startFakeProviders, vapiCall, type FakeProviders } from '../helpers/fake-providers.js';
import { nextSync } from '../providers/helpers.js';
import { startServer, testClock, type TestServer } from '../helpers/server.js';
import {
  connectSam,
  monitoringScorecard,
  monitorWith,
  resultOf,
  storeCall,
  storeEvaluation,
} from '../api/production-helpers.js';

type Card = Awaited<ReturnType<typeof monitoringScorecard>>;

/** production_pass_rate and production_trend: measured on stored evaluations, notified in words. */
describe('production alerts', () => {
  let s: TestServer;
  let p: FakeProviders;
  let agentId: string;
  let card: Card;
  let planted = 0;
  let notes: { title: string; body: string }[];
  const NOW = Date.parse('2026-06-10T12:00:00Z');

  beforeEach(async () => {
    planted = 0;
    notes = [];
    p = await startFakeProviders();
    // Evaluations come when the test asks: a round at the wall clock's minute would race them.
    s = await startServer({ clock: testClock(NOW), alertEveryMinute: false });
    agentId = await connectSam(s, p);
    card = await monitoringScorecard(s);
    await monitorWith(s, agentId, card.id);
    s.engine.events.subscribe((e: EngineEvent) => {
      if (e.type === 'notification') notes.push({ title: e.data.title, body: e.data.body });
    });
  });
  afterEach(async () => {
    await s.stop();
    await p.stop();
  });

  /**
   * Calls evaluated in this order, one a minute, the first `ago` before now; each outcome the
   * call's verdict and its greet result (n/a: the greet metric did not apply, the call passed).
   */
  const plant = async (
    outcomes: ('pass' | 'fail' | 'n/a')[],
    options: { ago?: number; scorecardId?: string } = {},
  ) => {
    const first = NOW - (options.ago ?? 3_600_000);
    for (const outcome of outcomes) {
      const n = planted++;
      const startedAt = new Date(first + n * 60_000).toISOString();
      const callId = await storeCall(s, agentId, { providerCallId: `pc_${n}`, startedAt });
      const greet = { id: card.greet, category: 'quality' };
      await storeEvaluation(s, {
        callId,
        agentId,
        scorecardId: options.scorecardId ?? card.id,
        score: outcome === 'fail' ? 0 : 100,
        passed: outcome !== 'fail',
        results: [
          resultOf(
            greet,
            outcome === 'n/a' ? 'not_applicable' : outcome === 'pass' ? 'passed' : 'failed',
          ),
        ],
      });
    }
  };
  const create = async (condition: Record<string, unknown>) =>
    s.call('POST', '/v1/alerts', { name: 'Production', condition });
  const evaluate = async () =>
    (await s.call('POST', '/v1/alerts/evaluate')).body.changes as {
      alertId: string;
      state: string;
      value: number | null;
    }[];
  const pass = (n: number) => Array<'pass'>(n).fill('pass');
  const fail = (n: number) => Array<'fail'>(n).fill('fail');

  it('trend: 10 passes then 5 failures fire at 20 points, naming the agent, the figure and the window', async () => {
    const a = await create({
      type: 'production_trend',
      agentId,
      threshold: 20,
      timeWindow: '1d',
    });
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    expect(a.body.condition).toMatchObject({ operator: 'greater_than', alpha: 0.3 });
    await plant([...pass(10), ...fail(5)]);
    // By hand (see test/alerts/production-figures.test.ts): 66.67 - 16.65 = 50.02 points.
    expect(await evaluate()).toEqual([{ alertId: a.body.id, state: 'firing', value: 50.02 }]);
    expect(notes).toHaveLength(1);
    expect(notes[0]!.body).toContain('agent Support Sam');
    expect(notes[0]!.body).toContain('was 50.02, above the threshold of 20');
    expect(notes[0]!.body).toContain('over the last 1d');
    expect(notes[0]!.body).toContain('production pass rate');
  });

  it('trend: the same failures before the passes never fire', async () => {
    const a = await create({ type: 'production_trend', agentId, threshold: 20 });
    expect(a.status).toBe(201);
    await plant([...fail(5), ...pass(10)]);
    expect(await evaluate()).toEqual([]);
    expect((await s.call('GET', `/v1/alerts/${a.body.id}`)).body.state).toBe('ok');
    expect(notes).toEqual([]);
  });

  it('trend: alpha weighs the last outcomes; too few samples change nothing', async () => {
    const a = await create({
      type: 'production_trend',
      agentId,
      threshold: 20,
      alpha: 1,
      minSamples: 4,
    });
    await plant([...pass(2), 'fail']);
    expect(await evaluate()).toEqual([]); // 3 samples
    await plant(['fail']); // rate 50, EWMA 0 with alpha 1: 50 points
    expect(await evaluate()).toEqual([{ alertId: a.body.id, state: 'firing', value: 50 }]);
  });

  it('pass rate: fires below the threshold, resolves above it; the window and the scorecard bound it', async () => {
    const a = await create({
      type: 'production_pass_rate',
      agentId,
      operator: 'less_than',
      threshold: 80,
      timeWindow: '2h',
    });
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    // Outside the window (3 hours ago), or scored by another scorecard: not counted.
    await plant(fail(5), { ago: 3 * 3_600_000 });
    const other = await monitoringScorecard(s);
    await plant(fail(5), { scorecardId: other.id });
    await plant([...pass(3), ...fail(2)]);
    expect(await evaluate()).toEqual([{ alertId: a.body.id, state: 'firing', value: 60 }]);
    expect(notes[0]!.body).toContain(
      'the production pass rate of agent Support Sam (percent of evaluated calls passed) was 60, below the threshold of 80 over the last 2h',
    );
    await plant(pass(5)); // 8 of 10
    expect(await evaluate()).toEqual([{ alertId: a.body.id, state: 'resolved', value: 80 }]);
    expect(notes[1]!.body).toContain('no longer below the threshold of 80 over the last 2h');
  });

  it('pass rate of one metric: its failures count, not applicable results are left out', async () => {
    const a = await create({
      type: 'production_pass_rate',
      agentId,
      metricId: card.greet,
      operator: 'less_than',
      threshold: 50,
    });
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    // On greet: 2 passes, 3 failures (5 not applicable, left out): 40%; overall 7 of 10 passed.
    await plant([...pass(2), ...fail(2), 'n/a', 'n/a', 'n/a', 'n/a', 'n/a']);
    expect(await evaluate()).toEqual([]); // 4 samples of greet
    await plant(['fail']);
    expect(await evaluate()).toEqual([{ alertId: a.body.id, state: 'firing', value: 40 }]);
    expect(notes[0]!.body).toContain(`on metric ${card.greet} of agent Support Sam`);
  });

  it('refuses alpha 0, a trend without agentId, a metricId outside the monitoring scorecard; stores nothing', async () => {
    const other = await monitoringScorecard(s);
    const refusals: [Record<string, unknown>, string][] = [
      [{ type: 'production_trend', agentId, threshold: 20, alpha: 0 }, 'condition.alpha'],
      [{ type: 'production_trend', agentId, threshold: 20, alpha: 1.5 }, 'condition.alpha'],
      [{ type: 'production_trend', threshold: 20 }, 'condition.agentId'],
      [{ type: 'production_trend', agentId: 'agt_nope', threshold: 20 }, 'condition.agentId'],
      [{ type: 'production_trend', agentId }, 'condition.threshold'],
      [
        { type: 'production_trend', agentId, threshold: 20, operator: 'less_than' },
        'condition.operator',
      ],
      [
        {
          type: 'production_pass_rate',
          agentId,
          metricId: other.greet,
          threshold: 50,
          operator: 'less_than',
        },
        'condition.metricId',
      ],
      [
        { type: 'production_pass_rate', agentId, threshold: 101, operator: 'less_than' },
        'condition.threshold',
      ],
      [{ type: 'production_pass_rate', agentId, threshold: 50 }, 'condition.operator'],
    ];
    for (const [condition, path] of refusals) {
      const res = await create(condition);
      expect(res.status, JSON.stringify(condition)).toBe(400);
      const paths = (res.body.error.details as { path: string }[]).map((d) => d.path);
      expect(paths, JSON.stringify(res.body)).toContain(path);
    }
    expect((await s.call('GET', '/v1/alerts')).body.alerts).toEqual([]);
    // A change is checked alike, and changes nothing when refused.
    const made = await create({ type: 'production_trend', agentId, threshold: 20 });
    const changed = await s.call('PATCH', `/v1/alerts/${made.body.id}`, {
      condition: { alpha: 0 },
    });
    expect(changed.status).toBe(400);
    expect(changed.body.error.details[0].path).toBe('condition.alpha');
    expect((await s.call('GET', `/v1/alerts/${made.body.id}`)).body.condition).toMatchObject({
      alpha: 0.3,
      timeWindow: '1d',
    });
    await s.call('DELETE', `/v1/alerts/${made.body.id}`);
    // An agent without monitoring has no scorecard to name a metric of.
    await s.call('PATCH', `/v1/agents/${agentId}`, { monitoring: null });
    const res = await create({
      type: 'production_pass_rate',
      agentId,
      metricId: card.greet,
      operator: 'less_than',
      threshold: 50,
    });
    expect(res.status).toBe(400);
    expect(res.body.error.details[0].path).toBe('condition.metricId');
  });

  it('an agent not monitored is not measured: nothing fires', async () => {
    const a = await create({
      type: 'production_pass_rate',
      agentId,
      operator: 'less_than',
      threshold: 80,
    });
    await plant(fail(6));
    await s.call('PATCH', `/v1/agents/${agentId}`, { monitoring: null });
    expect(await evaluate()).toEqual([]);
    await monitorWith(s, agentId, card.id);
    expect(await evaluate()).toEqual([{ alertId: a.body.id, state: 'firing', value: 0 }]);
  });

  it('calls scored in the background fire the alert with no request: the evaluation is an event', async () => {
    // A monitoring scorecard every call fails (the fake's calls never say "hello").
    await s.call('PATCH', `/v1/agents/${agentId}`, {
      monitoring: {
        workspaceId: s.workspaceId,
        scorecardId: card.id,
        sampleRate: 100,
        enabled: true,
      },
    });
    const a = await create({
      type: 'production_pass_rate',
      agentId,
      operator: 'less_than',
      threshold: 80,
      timeWindow: '30d',
    });
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    const fired = new Promise((resolve) =>
      s.engine.events.subscribe((e) => {
        if (e.type === 'alert.firing' && e.data.alertId === a.body.id) resolve(e.data);
      }),
    );
    p.state.vapiCalls = [1, 2, 3, 4, 5].map((i) => vapiCall(i));
    const synced = nextSync(s, agentId);
    expect((await s.call('POST', `/v1/agents/${agentId}/sync`)).status).toBe(202);
    expect(await synced).toMatchObject({ ok: true });
    expect(await fired).toMatchObject({ alertId: a.body.id, value: 0 });
  });
});
