import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MetricResult } from '../../src/domain/simulations.js';
import type { EvaluationReason } from '../../src/domain/monitoring.js';
import { startFakeProviders, type FakeProviders } from '../helpers/fake-providers.js';
import { startServer, testClock, type TestServer } from '../helpers/server.js';
import { nextSync } from '../providers/helpers.js';
import {
  connectSam,
  monitoringScorecard,
  monitorWith,
  resultOf,
  storeCall,
  storeEvaluation,
} from './production-helpers.js';

/**
 * GET /v1/agents/{id}/calls filters and the `production` block of GET /v1/agents/{id}/analytics,
 * over calls of two agent versions and their evaluations. Every test only reads.
 */
describe('production reads: call filters and analytics', () => {
  let s: TestServer;
  let p: FakeProviders;
  let agentId: string;
  const calls: Record<string, string> = {};
  const clock = testClock(Date.parse('2026-06-08T00:00:00Z'));

  beforeAll(async () => {
    p = await startFakeProviders();
    s = await startServer({ clock, alertEveryMinute: false });
    agentId = await connectSam(s, p); // version 1, synced 06-08 00:00
    const card = await monitoringScorecard(s);
    const other = await monitoringScorecard(s);
    await monitorWith(s, agentId, card.id);
    const greet = { id: card.greet, category: 'quality' };
    const wer = { id: card.wer, category: 'audio' };
    const plant = async (
      name: string,
      startedAt: string,
      e?: {
        score: number;
        passed: boolean;
        greet?: 'passed' | 'failed';
        scorecardId?: string;
        results?: MetricResult[];
        reason?: EvaluationReason;
      },
    ) => {
      calls[name] = await storeCall(s, agentId, { providerCallId: `pc_${name}`, startedAt });
      if (!e) return;
      await storeEvaluation(s, {
        callId: calls[name],
        agentId,
        scorecardId: e.scorecardId ?? card.id,
        score: e.score,
        passed: e.passed,
        reason: e.reason,
        results:
          e.results ?? (e.greet ? [resultOf(greet, e.greet), resultOf(wer, 'not_applicable')] : []),
      });
    };
    // Before version 1; the greet metric could not be evaluated (an error is not a failure).
    const errored = {
      ...resultOf(greet, 'failed'),
      status: 'error',
      score: null,
      error: 'timeout',
    };
    await plant('c5', '2026-06-01T10:00:00.000Z', {
      score: 10,
      passed: false,
      results: [errored as MetricResult],
    });
    await plant('c1', '2026-06-08T10:00:00.000Z', { score: 90, passed: true, greet: 'passed' });
    await plant('c2', '2026-06-08T11:00:00.000Z', {
      score: 40,
      passed: false,
      greet: 'failed',
      reason: 'short',
    });
    // Version 2: the assistant changed and synced the next day.
    clock.set('2026-06-09T00:00:00Z');
    (p.state.vapiAssistant as { firstMessage: string }).firstMessage = 'Hello, Sam here.';
    const synced = nextSync(s, agentId);
    expect((await s.call('POST', `/v1/agents/${agentId}/sync`)).status).toBe(202);
    expect(await synced).toMatchObject({ ok: true });
    await plant('c3', '2026-06-09T10:00:00.000Z', { score: 80, passed: true, greet: 'passed' });
    await plant('c4', '2026-06-09T11:00:00.000Z');
    // Scored by another scorecard, its result written before results had a status.
    const { status: _none, ...legacyFailed } = resultOf(greet, 'failed');
    await plant('c6', '2026-06-09T12:00:00.000Z', {
      score: 55,
      passed: false,
      scorecardId: other.id,
      results: [legacyFailed],
    });
    clock.set('2026-06-10T12:00:00Z');
  });
  afterAll(async () => {
    await s.stop();
    await p.stop();
  });

  const listed = async (query: string) => {
    const res = await s.call('GET', `/v1/agents/${agentId}/calls?${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const byId = new Map(Object.entries(calls).map(([name, id]) => [id, name]));
    return {
      names: (res.body.calls as { id: string }[]).map((c) => byId.get(c.id)),
      total: res.body.total as number,
    };
  };

  it('stored each call with the version in force at its start', async () => {
    const all = (await s.call('GET', `/v1/agents/${agentId}/calls`)).body.calls as {
      providerCallId: string;
      agentVersion: number | null;
    }[];
    expect(Object.fromEntries(all.map((c) => [c.providerCallId, c.agentVersion]))).toEqual({
      pc_c6: 2,
      pc_c4: 2,
      pc_c3: 2,
      pc_c2: 1,
      pc_c1: 1,
      pc_c5: null,
    });
  });

  it('passed: true and false (no evaluation matches neither), newest first', async () => {
    expect(await listed('passed=true')).toEqual({ names: ['c3', 'c1'], total: 2 });
    expect(await listed('passed=false')).toEqual({ names: ['c6', 'c2', 'c5'], total: 3 });
    expect(await listed('passed=false&limit=1&offset=1')).toEqual({ names: ['c2'], total: 3 });
  });

  it('minScore and maxScore, inclusive, alone and together', async () => {
    expect((await listed('minScore=55')).names).toEqual(['c6', 'c3', 'c1']);
    expect((await listed('maxScore=40')).names).toEqual(['c2', 'c5']);
    expect((await listed('minScore=50&maxScore=85')).names).toEqual(['c6', 'c3']);
  });

  it('metric: the calls whose evaluation failed it; an error or not applicable never matches', async () => {
    const card = (await s.call('GET', `/v1/agents/${agentId}`)).body.monitoring.scorecardId;
    const metrics = (await s.ws('GET', `/scorecards/${card}`)).body.data.scorecard.metrics as {
      id: string;
    }[];
    expect((await listed(`metric=${metrics[0]!.id}`)).names).toEqual(['c6', 'c2']);
    expect(await listed(`metric=${metrics[1]!.id}`)).toEqual({ names: [], total: 0 });
    expect(await listed('metric=no_such_metric')).toEqual({ names: [], total: 0 });
  });

  it("version: the call's agentVersion; filters combine", async () => {
    expect((await listed('version=2')).names).toEqual(['c6', 'c4', 'c3']);
    expect((await listed('version=1')).names).toEqual(['c2', 'c1']);
    expect((await listed('version=2&passed=true')).names).toEqual(['c3']);
    expect((await listed('version=1&passed=false&maxScore=40')).names).toEqual(['c2']);
  });

  it('reason: why the call was evaluated', async () => {
    expect(await listed('reason=short')).toEqual({ names: ['c2'], total: 1 });
    expect((await listed('reason=sampled&passed=false')).names).toEqual(['c6', 'c5']);
    expect(await listed('reason=on_demand')).toEqual({ names: [], total: 0 });
  });

  it('refuses a filter of the wrong shape, naming it', async () => {
    for (const [query, field] of [
      ['passed=maybe', 'passed'],
      ['minScore=high', 'minScore'],
      ['maxScore=101', 'maxScore'],
      ['version=1.5', 'version'],
      ['metric=', 'metric'],
      ['reason=whim', 'reason'],
    ]) {
      const res = await s.call('GET', `/v1/agents/${agentId}/calls?${query}`);
      expect(res.status, query).toBe(400);
      expect(JSON.stringify(res.body), query).toContain(field);
    }
  });

  const production = async (query: string) => {
    const res = await s.call('GET', `/v1/agents/${agentId}/analytics?${query}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.production;
  };

  it('analytics production over the days window: the current scorecard only, UTC days, versions', async () => {
    const card = (await s.call('GET', `/v1/agents/${agentId}`)).body.monitoring.scorecardId;
    // 7 days back from 06-10 12:00: c1, c2, c3 (c5 is older; c6 was scored by another scorecard).
    expect(await production('days=7')).toEqual({
      workspaceId: s.workspaceId,
      scorecardId: card,
      evaluated: 3,
      passed: 2,
      passRate: 66.67,
      avgScore: 70,
      // The audio metric was never applicable: its category is left out.
      categoryBreakdown: [{ category: 'quality', score: 66.67 }],
      byDay: [
        { date: '2026-06-08', evaluated: 2, passRate: 50, avgScore: 65 },
        { date: '2026-06-09', evaluated: 1, passRate: 100, avgScore: 80 },
      ],
      byVersion: [
        { version: 1, evaluated: 2, passRate: 50, avgScore: 65 },
        { version: 2, evaluated: 1, passRate: 100, avgScore: 80 },
      ],
    });
  });

  it('a longer window takes the older call, its version unknown (null, last)', async () => {
    const p30 = await production('days=30');
    expect(p30).toMatchObject({ evaluated: 4, passed: 2, passRate: 50, avgScore: 55 });
    expect(p30.byDay[0]).toEqual({ date: '2026-06-01', evaluated: 1, passRate: 0, avgScore: 10 });
    expect(p30.byVersion.at(-1)).toEqual({
      version: null,
      evaluated: 1,
      passRate: 0,
      avgScore: 10,
    });
    expect(await production('days=1')).toMatchObject({
      evaluated: 0,
      passed: 0,
      passRate: null,
      avgScore: null,
      categoryBreakdown: [],
      byDay: [],
      byVersion: [],
    });
  });

  it('production is null once monitoring is off, and again figures when it is back', async () => {
    const card = (await s.call('GET', `/v1/agents/${agentId}`)).body.monitoring.scorecardId;
    expect((await s.call('PATCH', `/v1/agents/${agentId}`, { monitoring: null })).status).toBe(200);
    try {
      expect(await production('days=7')).toBeNull();
    } finally {
      await monitorWith(s, agentId, card);
    }
    expect((await production('days=7')).evaluated).toBe(3);
  });
});
