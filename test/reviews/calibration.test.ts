import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';
import {
  CRITERION,
  judgedScorecard,
  judgeResult,
  plantAgent,
  plantCall,
  plantSimulation,
  plantSimulations,
  type JudgedScorecard,
} from './fixtures.js';

type Outcome = 'pass' | 'fail';

describe('judge calibration: GET .../scorecards/{id}/calibration', () => {
  let s: TestServer;
  let agentId: string;

  const useJudgeModel = (model: string) =>
    s.call('PATCH', '/v1/settings', {
      llm: {
        judge: { kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k-0123456789', model },
      },
    });
  const calibration = async (fx: JudgedScorecard) => {
    const res = await s.ws('GET', `/scorecards/${fx.scorecard.id}/calibration`);
    expect(res.status).toBe(200);
    expect(res.body.data.calibration.scorecard_id).toBe(fx.scorecard.id);
    return res.body.data.calibration.metrics;
  };
  const label = (fx: JudgedScorecard, target: object, verdict: string) =>
    s.ws('POST', '/reviews', { target, metricId: fx.judgeMetric.id, verdict });

  /** Results judged `judge`, labelled `human`: half on simulations, half on evaluated calls. */
  async function labelled(fx: JudgedScorecard, n: number, judge: Outcome, human: Outcome) {
    const results = [judgeResult(fx.judgeMetric, judge)];
    const sims = await plantSimulations(
      s,
      fx,
      Array.from({ length: Math.ceil(n / 2) }, () => results),
    );
    const targets: object[] = sims.map((simulationId) => ({ simulationId }));
    for (let i = sims.length; i < n; i++) {
      const evaluation = { workspaceId: s.workspaceId, scorecardId: fx.scorecard.id, results };
      targets.push({ callId: await plantCall(s, agentId, evaluation) });
    }
    for (const target of targets) expect((await label(fx, target, human)).status).toBe(201);
    return targets;
  }

  beforeAll(async () => {
    s = await startServer();
    agentId = await plantAgent(s);
    await useJudgeModel('judge-1');
  });
  afterAll(() => s?.stop());

  it('counts each labelled result once by its latest label: status, agreement, kappa, confusion', async () => {
    const fx = await judgedScorecard(s);
    const [only] = await calibration(fx);
    expect(only).toMatchObject({
      metric_id: fx.judgeMetric.id,
      name: 'Polite',
      status: 'insufficient_data',
      labels: 0,
      agreement: null,
      kappa: null,
      disagreements: [],
      judge_model: null,
      rubric_hash: null,
      judge_model_in_force: 'judge-1',
    });

    // The textbook table: 20 both pass, 5 judge pass / human fail, 10 judge fail / human pass, 15 both fail.
    await labelled(fx, 4, 'pass', 'pass');
    await labelled(fx, 1, 'pass', 'fail');
    await labelled(fx, 2, 'fail', 'pass');
    await labelled(fx, 2, 'fail', 'fail');
    expect((await calibration(fx))[0]).toMatchObject({
      status: 'insufficient_data',
      labels: 9,
      agreement: null,
      kappa: null,
    });
    await labelled(fx, 1, 'fail', 'fail');
    const ten = (await calibration(fx))[0];
    expect(ten).toMatchObject({ status: 'provisional', labels: 10, agreement: 0.7 });
    expect(ten.kappa).toBeCloseTo(0.4, 10);

    await labelled(fx, 16, 'pass', 'pass');
    const wrongFirst = await labelled(fx, 4, 'pass', 'pass');
    await labelled(fx, 8, 'fail', 'pass');
    await labelled(fx, 12, 'fail', 'fail');
    // A second reviewer's later label is the one that counts: 4 of the "both pass" become disagreements.
    const bob = (await s.call('POST', '/v1/keys', { label: 'Bob' })).body.key;
    for (const target of wrongFirst)
      await s.ws(
        'POST',
        '/reviews',
        { target, metricId: fx.judgeMetric.id, verdict: 'fail', note: 'not polite' },
        { authorization: `Bearer ${bob.key}` },
      );
    // Left out: not_applicable labels, errored and not applicable results, the other metric.
    const na = await plantSimulation(s, fx, [judgeResult(fx.judgeMetric, 'pass')]);
    await label(fx, { simulationId: na }, 'not_applicable');
    for (const outcome of ['error', 'not_applicable'] as const) {
      const sim = await plantSimulation(s, fx, [judgeResult(fx.judgeMetric, outcome)]);
      expect((await label(fx, { simulationId: sim }, 'pass')).status).toBe(201);
    }
    const plain = await plantSimulation(s, fx, [judgeResult(fx.judgeMetric, 'pass')]);
    await s.ws('POST', '/reviews', {
      target: { simulationId: plain },
      metricId: fx.plainMetric.id,
      verdict: 'fail',
    });

    const fifty = (await calibration(fx))[0];
    expect(fifty).toMatchObject({
      status: 'calibrated',
      labels: 50,
      agreement: 0.7,
      confusion: {
        both_pass: 20,
        judge_pass_human_fail: 5,
        judge_fail_human_pass: 10,
        both_fail: 15,
      },
      judge_model: 'judge-1',
      judge_model_in_force: 'judge-1',
    });
    expect(fifty.kappa).toBeCloseTo(0.4, 10);
    expect(fifty.rubric_hash).toBe(fifty.rubric_hash_in_force);
    expect(fifty.disagreements).toHaveLength(15);
    // Latest first: Bob's four labels came last.
    expect(fifty.disagreements.slice(0, 4)).toEqual(
      [...wrongFirst].reverse().map((target) => ({
        target,
        judge: 'pass',
        human: 'fail',
        reviewer: { id: bob.id, name: 'Bob' },
        note: 'not polite',
      })),
    );
  });

  it('stale when the judge model in force differs from the labelled results, figures still shown', async () => {
    const fx = await judgedScorecard(s);
    await labelled(fx, 6, 'pass', 'pass');
    await labelled(fx, 6, 'fail', 'fail');
    expect((await calibration(fx))[0]).toMatchObject({
      status: 'provisional',
      labels: 12,
      agreement: 1,
    });
    await useJudgeModel('judge-2');
    try {
      expect((await calibration(fx))[0]).toMatchObject({
        status: 'stale',
        labels: 12,
        agreement: 1,
        kappa: 1,
        judge_model: 'judge-1',
        judge_model_in_force: 'judge-2',
      });
    } finally {
      await useJudgeModel('judge-1');
    }
    expect((await calibration(fx))[0].status).toBe('provisional');
  });

  it('stale when the rubric in force differs: the criterion was edited after the labels', async () => {
    const fx = await judgedScorecard(s);
    await labelled(fx, 10, 'pass', 'pass');
    const before = (await calibration(fx))[0];
    expect(before.status).toBe('provisional');
    const edited = await s.ws('PUT', `/scorecards/${fx.scorecard.id}`, {
      metrics: [
        {
          id: fx.judgeMetric.id,
          name: 'Polite',
          type: 'llm_judge',
          config: { criterion: CRITERION, requirements: ['Greets the caller'] },
        },
      ],
    });
    expect(edited.status).toBe(200);
    const after = (await calibration(fx))[0];
    expect(after).toMatchObject({ status: 'stale', labels: 10, rubric_hash: before.rubric_hash });
    expect(after.rubric_hash_in_force).not.toBe(before.rubric_hash);
  });

  it('counts a call only on the scorecard its evaluation was made with', async () => {
    const fx = await judgedScorecard(s);
    const call = await plantCall(s, agentId, {
      workspaceId: s.workspaceId,
      scorecardId: fx.scorecard.id,
      results: [judgeResult(fx.judgeMetric, 'pass')],
    });
    await label(fx, { callId: call }, 'pass');
    expect((await calibration(fx))[0].labels).toBe(1);
    // Re-evaluated on another scorecard: its old label no longer has a result of this one to match.
    const other = await judgedScorecard(s);
    const { storedRows } = await import('../helpers/store-under-test.js');
    await storedRows(s.stored, 'UPDATE call_evaluations SET scorecard_id = ? WHERE call_id = ?', [
      other.scorecard.id,
      call,
    ]);
    expect((await calibration(fx))[0].labels).toBe(0);
  });

  it("follows the judge's verdict when the labelled result changes after the label", async () => {
    const { storedRows } = await import('../helpers/store-under-test.js');
    const fx = await judgedScorecard(s);
    const call = await plantCall(s, agentId, {
      workspaceId: s.workspaceId,
      scorecardId: fx.scorecard.id,
      results: [judgeResult(fx.judgeMetric, 'pass')],
    });
    await label(fx, { callId: call }, 'pass');
    // A simulation labelled while it still ran: its verdict comes once it has ended.
    const running = await plantSimulation(s, fx, []);
    await storedRows(
      s.stored,
      "UPDATE simulations SET status = 'running', ended_at = NULL WHERE id = ?",
      [running],
    );
    await label(fx, { simulationId: running }, 'fail');
    expect((await calibration(fx))[0]).toMatchObject({
      labels: 1,
      confusion: { both_pass: 1, judge_pass_human_fail: 0, judge_fail_human_pass: 0, both_fail: 0 },
    });
    // The call scored again (by another judge model): the label now stands against the new verdict.
    await storedRows(
      s.stored,
      'UPDATE call_evaluations SET results = ?, evaluated_at = ? WHERE call_id = ?',
      [
        JSON.stringify([judgeResult(fx.judgeMetric, 'fail', { model: 'judge-0' })]),
        '2026-06-02T00:00:00Z',
        call,
      ],
    );
    await storedRows(
      s.stored,
      "UPDATE simulations SET status = 'completed', ended_at = '2026-06-02T00:00:00Z', results = ? WHERE id = ?",
      [JSON.stringify([judgeResult(fx.judgeMetric, 'fail')]), running],
    );
    const after = (await calibration(fx))[0];
    expect(after).toMatchObject({
      labels: 2,
      confusion: { both_pass: 0, judge_pass_human_fail: 0, judge_fail_human_pass: 1, both_fail: 1 },
      status: 'stale',
    });
    expect(after.disagreements).toEqual([
      {
        target: { callId: call },
        judge: 'fail',
        human: 'pass',
        reviewer: expect.anything(),
        note: null,
      },
    ]);
    // Scored again into an error: the result no longer has a verdict to hold the label against.
    await storedRows(
      s.stored,
      'UPDATE call_evaluations SET results = ?, evaluated_at = ? WHERE call_id = ?',
      [JSON.stringify([judgeResult(fx.judgeMetric, 'error')]), '2026-06-03T00:00:00Z', call],
    );
    expect((await calibration(fx))[0]).toMatchObject({ labels: 1, status: 'insufficient_data' });
  });

  it('lists at most 100 disagreements, the latest first', async () => {
    const fx = await judgedScorecard(s);
    const sims = await plantSimulations(
      s,
      fx,
      Array.from({ length: 105 }, () => [judgeResult(fx.judgeMetric, 'pass')]),
    );
    for (const simulationId of sims) await label(fx, { simulationId }, 'fail');
    const [metric] = await calibration(fx);
    expect(metric).toMatchObject({ labels: 105, confusion: { judge_pass_human_fail: 105 } });
    expect(metric.disagreements).toHaveLength(100);
    expect(metric.disagreements[0].target).toEqual({ simulationId: sims[104] });
    expect(metric.disagreements[99].target).toEqual({ simulationId: sims[5] });
  });

  it('answers only llm_judge metrics; 404 for a scorecard not of this workspace', async () => {
    const plain = (
      await s.ws('POST', '/scorecards', {
        name: 'Plain',
        metrics: [{ name: 'Says hi', type: 'contains', config: { text: 'hi' } }],
      })
    ).body.data.scorecard;
    const res = await s.ws('GET', `/scorecards/${plain.id}/calibration`);
    expect(res.body.data.calibration).toEqual({ scorecard_id: plain.id, metrics: [] });
    const missing = await s.ws('GET', '/scorecards/scd_nope/calibration');
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toContain("scorecard 'scd_nope'");
  });
});
