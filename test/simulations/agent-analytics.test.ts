import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { recommend } from '../../src/simulations/agent-analytics.js';
import { startServer, testClock, type TestServer } from '../helpers/server.js';
import { storedRows } from '../helpers/store-under-test.js';

const DAY = 86_400_000;

describe('agent analytics: GET /v1/agents/{id}/analytics', () => {
  let s: TestServer;
  const clock = testClock(Date.parse('2026-06-30T12:00:00Z'));
  // Every test reads the same stored week from the same instant, whatever an earlier one moved.
  beforeEach(() => clock.set('2026-06-30T12:00:00Z'));
  beforeAll(async () => {
    s = await startServer({ clock });
    await storedRows(
      s.stored,
      "INSERT INTO agents (id, provider, provider_agent_id, name, status, created_at, updated_at) VALUES ('agt_a', 'vapi', 'a', 'A', 'active', '2026-06-01T00:00:00Z', '2026-06-01T00:00:00Z')",
    );
    const scn = (await s.ws('POST', '/scenarios', { name: 'S', prompt: 'p' })).body.data.scenario
      .id;
    await storedRows(
      s.stored,
      "INSERT INTO executions (id, workspace_id, scenario_id, status, created_at) VALUES ('exe_a', ?, ?, 'completed', '2026-06-01T00:00:00Z')",
      [s.workspaceId, scn],
    );
    const sim = (...args: unknown[]) =>
      storedRows(
        s.stored,
        "INSERT INTO simulations (id, workspace_id, execution_id, scenario_id, agent_id, status, score, passed, created_at, ended_at, results) VALUES (?, ?, 'exe_a', ?, 'agt_a', 'completed', ?, ?, ?, ?, ?)",
        args,
      );
    const r = (category: string, score: number, name = category, reasoning = 'ok') => ({
      metric_id: name,
      name,
      category,
      type: 'x',
      score,
      passed: score >= 50,
      reasoning,
    });
    const at = (daysAgo: number) => new Date(clock.now() - daysAgo * DAY).toISOString();
    // This week: tone 100, 100, 40 (avg 80: good, stable against 78); accuracy 90, 60, 30 (avg 60); earlier week: accuracy 90, tone 78.
    await sim(
      's1',
      s.workspaceId,
      scn,
      90,
      1,
      at(1),
      at(1),
      JSON.stringify([r('tone', 100), r('accuracy', 90)]),
    );
    await sim(
      's2',
      s.workspaceId,
      scn,
      70,
      1,
      at(2),
      at(2),
      JSON.stringify([r('tone', 100), r('accuracy', 60)]),
    );
    await sim(
      's3',
      s.workspaceId,
      scn,
      35,
      0,
      at(3),
      at(3),
      JSON.stringify([
        r('tone', 40, 'Polite', 'interrupted the caller'),
        r('accuracy', 30, 'Correct', 'wrong delivery date'),
      ]),
    );
    await sim(
      's4',
      s.workspaceId,
      scn,
      84,
      1,
      at(10),
      at(10),
      JSON.stringify([r('tone', 78), r('accuracy', 90)]),
    );
    await sim('s5', s.workspaceId, scn, 10, 0, at(40), at(40), JSON.stringify([r('tone', 0)]));
  });
  afterAll(() => s.stop());

  it("answers the specification's record with figures computed by hand", async () => {
    const res = await s.call('GET', '/v1/agents/agt_a/analytics?breakdown=category&days=7');
    expect(res.status).toBe(200);
    // The trend (7 days in 6-hour buckets) is read in test/api/tool-results.test.ts.
    const { trend, ...record } = res.body;
    expect(trend).toHaveLength(28);
    expect(record).toEqual({
      agent: 'agt_a',
      timeRange: '7d',
      overallScore: 65, // (90 + 70 + 35) / 3
      simulations: { total: 3, passed: 2, errored: 0, judged: 3 },
      passRate: 66.67,
      categoryBreakdown: [
        {
          category: 'accuracy',
          score: 60,
          trend: 'declining',
          status: 'needs_improvement',
          commonIssues: ['Correct: wrong delivery date (1x)'],
        },
        {
          category: 'tone',
          score: 80,
          trend: 'stable',
          status: 'good',
          commonIssues: ['Polite: interrupted the caller (1x)'],
        },
      ],
      recommendations: [
        'Improve accuracy: 60 is below 80; most common issue: Correct: wrong delivery date (1x).',
        'accuracy fell from 90 to 60 against the previous window: look at configuration changes in that time.',
      ],
      // No audio simulation in the window.
      audio: null,
      // Never monitored: no production figures.
      production: null,
    });
  });

  it('without earlier data the trend is stable; no simulations says so; an unknown agent is a 404', async () => {
    const month = (await s.call('GET', '/v1/agents/agt_a/analytics?days=60')).body;
    expect(month.categoryBreakdown.every((c: { trend: string }) => c.trend === 'stable')).toBe(
      true,
    );
    clock.advance(100 * DAY);
    expect((await s.call('GET', '/v1/agents/agt_a/analytics?days=7')).body).toMatchObject({
      overallScore: null,
      categoryBreakdown: [],
      recommendations: [expect.stringContaining('No scored simulations')],
    });
    expect((await s.call('GET', '/v1/agents/agt_nope/analytics')).status).toBe(404);
  });
});

describe('agent analytics recommendations', () => {
  const c = (
    category: string,
    score: number,
    previous: number | null,
    trend: 'stable' | 'declining' | 'improving' = 'stable',
  ) => ({
    category,
    score,
    previous,
    trend,
    status: score >= 80 ? ('good' as const) : ('needs_improvement' as const),
    commonIssues: [],
  });
  it('a healthy agent gets none; weak categories come worst first; declines are named', () => {
    expect(recommend([c('tone', 90, 88)], 5)).toEqual([]);
    expect(recommend([c('tone', 70, null), c('accuracy', 50, null)], 5)).toEqual([
      'Improve accuracy: 50 is below 80.',
      'Improve tone: 70 is below 80.',
    ]);
    expect(recommend([c('tone', 85, 95, 'declining')], 5)).toEqual([
      'tone fell from 95 to 85 against the previous window: look at configuration changes in that time.',
    ]);
  });
});
