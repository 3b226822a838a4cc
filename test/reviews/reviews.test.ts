import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import { storedRows } from '../helpers/store-under-test.js';
import {
  judgedScorecard,
  judgeResult,
  plantAgent,
  plantCall,
  plantSimulation,
  type JudgedScorecard,
} from './fixtures.js';

describe('human reviews: POST and GET /api/v1/workspaces/{id}/reviews', () => {
  let s: TestServer;
  let fx: JudgedScorecard;
  let agentId: string;
  /** Another workspace, with its own scorecard. */
  let other: { id: string; fx: JudgedScorecard };
  let alice: string;
  let bob: { key: string; id: string };

  const as = (key: string) => ({ authorization: `Bearer ${key}` });
  const newKey = async (label: string) =>
    (await s.call('POST', '/v1/keys', { label })).body.key as { key: string; id: string };
  const reviewCount = async () =>
    Number((await storedRows<{ n: number }>(s.stored, 'SELECT COUNT(*) AS n FROM reviews'))[0]!.n);

  beforeAll(async () => {
    s = await startServer();
    fx = await judgedScorecard(s);
    agentId = await plantAgent(s);
    const ws = (await s.call('POST', '/api/v1/workspaces', { name: 'Other' })).body.data.workspace;
    other = { id: ws.id, fx: await judgedScorecard(s, ws.id) };
    alice = (await newKey('Alice')).key;
    bob = await newKey('Bob');
  });
  afterAll(() => s?.stop());

  it('labels a simulation (201), names the reviewer by the API key, and lists it', async () => {
    const sim = await plantSimulation(s, fx, [judgeResult(fx.judgeMetric, 'pass')]);
    const made = await s.ws(
      'POST',
      '/reviews',
      { target: { simulationId: sim }, metricId: fx.judgeMetric.id, verdict: 'fail', note: 'rude' },
      as(bob.key),
    );
    expect(made.status).toBe(201);
    const review = made.body.data.review;
    expect(review).toMatchObject({
      target: { simulationId: sim },
      metricId: fx.judgeMetric.id,
      verdict: 'fail',
      note: 'rude',
      reviewer: { id: bob.id, name: 'Bob' },
    });
    expect(review.id).toMatch(/^rev_/);
    expect(review.created_at).toBe(review.updated_at);
    const listed = await s.ws('GET', `/reviews?simulationId=${sim}`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.reviews).toEqual([review]);
    expect(listed.body.data.pagination).toMatchObject({ total: 1, page: 1, has_more: false });
  });

  it("a reviewer's second label of the same result replaces the first (200); another's stays", async () => {
    const sim = await plantSimulation(s, fx, [judgeResult(fx.judgeMetric, 'pass')]);
    const label = (verdict: string, key: string, note?: string) =>
      s.ws(
        'POST',
        '/reviews',
        { target: { simulationId: sim }, metricId: fx.judgeMetric.id, verdict, note },
        as(key),
      );
    const first = await label('pass', alice, 'fine');
    expect(first.status).toBe(201);
    const byBob = await label('fail', bob.key);
    expect(byBob.status).toBe(201);
    const again = await label('not_applicable', alice);
    expect(again.status).toBe(200);
    expect(again.body.data.review).toMatchObject({
      id: first.body.data.review.id,
      created_at: first.body.data.review.created_at,
      verdict: 'not_applicable',
      note: null,
      reviewer: { name: 'Alice' },
    });
    const { reviews } = (await s.ws('GET', `/reviews?simulationId=${sim}`)).body.data;
    expect(reviews.map((r: { verdict: string }) => r.verdict).sort()).toEqual([
      'fail',
      'not_applicable',
    ]);
    // The other metric of the same result is a label of its own.
    const plain = await s.ws(
      'POST',
      '/reviews',
      { target: { simulationId: sim }, metricId: fx.plainMetric.id, verdict: 'pass' },
      as(alice),
    );
    expect(plain.status).toBe(201);
    const filtered = await s.ws(
      'GET',
      `/reviews?simulationId=${sim}&metricId=${fx.plainMetric.id}`,
    );
    expect(filtered.body.data.reviews).toHaveLength(1);
  });

  it('the reviewer is a workspace token by its id and name, or the app user', async () => {
    const sim = await plantSimulation(s, fx, [judgeResult(fx.judgeMetric, 'fail')]);
    const token = (await s.ws('POST', '/tokens', { name: 'QA bench' })).body.data.token;
    const byToken = await s.ws(
      'POST',
      '/reviews',
      { target: { simulationId: sim }, metricId: fx.judgeMetric.id, verdict: 'fail' },
      as(token.token),
    );
    expect(byToken.status).toBe(201);
    expect(byToken.body.data.review.reviewer).toEqual({ id: token.id, name: 'QA bench' });
    const local = await s.engine.invoke('reviews.create', {
      workspace_id: s.workspaceId,
      target: { simulationId: sim },
      metricId: fx.judgeMetric.id,
      verdict: 'pass',
    });
    expect(local.status).toBe(201);
    const reviewer = (local.data as { review: { reviewer: { id: string; name: string } } }).review
      .reviewer;
    expect(reviewer.id).toMatch(/^usr_/);
    expect(reviewer.id).toBe(`usr_${reviewer.name}`);
  });

  it('labels a call in the workspace its evaluation was made in', async () => {
    const call = await plantCall(s, agentId, {
      workspaceId: s.workspaceId,
      scorecardId: fx.scorecard.id,
      results: [judgeResult(fx.judgeMetric, 'pass')],
    });
    const made = await s.ws('POST', '/reviews', {
      target: { callId: call },
      metricId: fx.judgeMetric.id,
      verdict: 'pass',
    });
    expect(made.status).toBe(201);
    expect(made.body.data.review).toMatchObject({ target: { callId: call }, verdict: 'pass' });
    const listed = await s.ws('GET', `/reviews?callId=${call}&scorecardId=${fx.scorecard.id}`);
    expect(listed.body.data.reviews).toEqual([made.body.data.review]);
    expect(
      (await s.ws('GET', `/reviews?callId=${call}&scorecardId=${other.fx.scorecard.id}`)).body.data
        .reviews,
    ).toEqual([]);
  });

  it('labels sent at once: one per reviewer, and exactly one of them the latest', async () => {
    const sim = await plantSimulation(s, fx, [judgeResult(fx.judgeMetric, 'pass')]);
    const keys = [alice, bob.key, (await newKey('Carol')).key];
    const answers = await Promise.all(
      [...keys, ...keys].map((key, i) =>
        s.ws(
          'POST',
          '/reviews',
          {
            target: { simulationId: sim },
            metricId: fx.judgeMetric.id,
            verdict: i % 2 ? 'pass' : 'fail',
          },
          as(key),
        ),
      ),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 201, 201, 201]);
    const rows = await storedRows<{ n: number; latest: number }>(
      s.stored,
      'SELECT COUNT(*) AS n, SUM(is_latest) AS latest FROM reviews WHERE target_id = ?',
      [sim],
    );
    expect(rows.map((r) => ({ n: Number(r.n), latest: Number(r.latest) }))).toEqual([
      { n: 3, latest: 1 },
    ]);
  });

  it('refuses bad labels naming the field, and stores nothing', async () => {
    const sim = await plantSimulation(s, fx, [judgeResult(fx.judgeMetric, 'pass')]);
    const elsewhere = await plantCall(s, agentId, {
      workspaceId: other.id,
      scorecardId: other.fx.scorecard.id,
      results: [judgeResult(other.fx.judgeMetric, 'pass')],
    });
    const unevaluated = await plantCall(s, agentId);
    const otherSim = await plantSimulation(
      s,
      other.fx,
      [judgeResult(other.fx.judgeMetric, 'pass')],
      other.id,
    );
    const before = await reviewCount();
    const good = { target: { simulationId: sim }, metricId: fx.judgeMetric.id, verdict: 'pass' };
    const refusals: [unknown, number, string][] = [
      [{ ...good, verdict: 'maybe' }, 400, 'verdict'],
      [{ ...good, metricId: other.fx.judgeMetric.id }, 400, 'metricId'],
      [{ metricId: fx.judgeMetric.id, verdict: 'pass' }, 400, 'target'],
      [{ ...good, target: {} }, 400, 'target'],
      [{ ...good, target: { simulationId: sim, callId: elsewhere } }, 400, 'target'],
      [{ ...good, target: { callId: elsewhere } }, 400, 'target.callId'],
      [{ ...good, target: { callId: unevaluated } }, 400, 'target.callId'],
      [{ ...good, reviewer: { id: 'x', name: 'y' } }, 400, 'reviewer'],
    ];
    for (const [body, status, path] of refusals) {
      const res = await s.ws('POST', '/reviews', body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
    }
    const unknownCall = await s.ws('POST', '/reviews', {
      ...good,
      target: { callId: 'call_nope' },
    });
    expect(unknownCall.status).toBe(404);
    expect(unknownCall.body.error.message).toContain("call 'call_nope'");
    // A simulation of another workspace is not one of this workspace's.
    const foreignSim = await s.ws('POST', '/reviews', {
      ...good,
      target: { simulationId: otherSim },
    });
    expect(foreignSim.status).toBe(404);
    expect(foreignSim.body.error.message).toContain(`simulation '${otherSim}'`);
    expect(await reviewCount()).toBe(before);
  });

  it('lists at most 100 a page, the latest changed first, and refuses a larger limit', async () => {
    const sims = [];
    for (let i = 0; i < 3; i++)
      sims.push(
        await plantSimulation(s, other.fx, [judgeResult(other.fx.judgeMetric, 'pass')], other.id),
      );
    for (const sim of sims)
      await s.call('POST', `/api/v1/workspaces/${other.id}/reviews`, {
        target: { simulationId: sim },
        metricId: other.fx.judgeMetric.id,
        verdict: 'pass',
      });
    const page = await s.call(
      'GET',
      `/api/v1/workspaces/${other.id}/reviews?scorecardId=${other.fx.scorecard.id}&limit=2`,
    );
    expect(page.body.data.pagination).toMatchObject({ total: 3, limit: 2, has_more: true });
    const all = (
      await s.call(
        'GET',
        `/api/v1/workspaces/${other.id}/reviews?scorecardId=${other.fx.scorecard.id}`,
      )
    ).body.data.reviews as { updated_at: string }[];
    expect(all.map((r) => r.updated_at)).toEqual(
      all
        .map((r) => r.updated_at)
        .sort()
        .reverse(),
    );
    const tooMany = await s.ws('GET', '/reviews?limit=101');
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.details[0].path).toBe('limit');
    const unknownFilter = await s.ws('GET', '/reviews?reviewer=x');
    expect(unknownFilter.status).toBe(400);
    expect(unknownFilter.body.error.details[0].path).toBe('reviewer');
  });
});
