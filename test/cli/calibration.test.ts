import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../helpers/cli.js';
import { startServer, type TestServer } from '../helpers/server.js';
import {
  judgedScorecard,
  judgeResult,
  plantSimulations,
  type JudgedScorecard,
} from '../reviews/fixtures.js';

// Each command is a process of its own, started through tsx: seconds each on a busy machine.
describe('callbench calibration <scorecard> --workspace W', { timeout: 90_000 }, () => {
  let s: TestServer;
  let env: Record<string, string>;
  /** 50 labels, judge and people agreeing on all (kappa 1): calibrated. */
  let agreeing: JudgedScorecard;
  /** 50 labels on the textbook table (agreement 0.7, kappa 0.4). */
  let middling: JudgedScorecard;
  /** 12 labels: provisional. */
  let few: JudgedScorecard;
  /** 10 agreeing labels whose rubric is then edited: stale. */
  let edited: JudgedScorecard;

  /** `n` results judged `judge`, each labelled `human` through the API. */
  async function labelled(fx: JudgedScorecard, n: number, judge: 'pass' | 'fail', human: string) {
    const sims = await plantSimulations(
      s,
      fx,
      Array.from({ length: n }, () => [judgeResult(fx.judgeMetric, judge)]),
    );
    for (const simulationId of sims) {
      const res = await s.ws('POST', '/reviews', {
        target: { simulationId },
        metricId: fx.judgeMetric.id,
        verdict: human,
      });
      expect(res.status).toBe(201);
    }
  }

  beforeAll(async () => {
    s = await startServer();
    env = { CALLBENCH_API_KEY: s.key, CALLBENCH_URL: s.url };
    await s.call('PATCH', '/v1/settings', {
      llm: {
        judge: {
          kind: 'openai',
          baseUrl: 'http://127.0.0.1:9/v1',
          apiKey: 'k-0123456789',
          model: 'judge-1',
        },
      },
    });
    agreeing = await judgedScorecard(s, s.workspaceId, 'Agreeing');
    await labelled(agreeing, 25, 'pass', 'pass');
    await labelled(agreeing, 25, 'fail', 'fail');
    middling = await judgedScorecard(s, s.workspaceId, 'Middling');
    await labelled(middling, 20, 'pass', 'pass');
    await labelled(middling, 5, 'pass', 'fail');
    await labelled(middling, 10, 'fail', 'pass');
    await labelled(middling, 15, 'fail', 'fail');
    few = await judgedScorecard(s, s.workspaceId, 'Few');
    await labelled(few, 12, 'pass', 'pass');
    edited = await judgedScorecard(s, s.workspaceId, 'Edited');
    await labelled(edited, 50, 'fail', 'fail');
    await s.ws('PUT', `/scorecards/${edited.scorecard.id}`, {
      metrics: [
        {
          id: edited.judgeMetric.id,
          name: 'Polite',
          type: 'llm_judge',
          config: { criterion: 'The agent is polite and brief' },
        },
      ],
    });
  });
  afterAll(() => s?.stop());

  const run = (...args: string[]) => cli(['calibration', ...args], env);

  it('exits 0 when every judged metric is calibrated with kappa at least the minimum', async () => {
    const ok = await run(agreeing.scorecard.id, '--workspace', s.workspaceId);
    expect(ok.err).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.out).toContain('ok   Polite: calibrated, 50 labels, agreement 100.0%, kappa 1.00');
    const json = await run(agreeing.scorecard.id, '--workspace', s.workspaceId, '--json');
    expect(json.code).toBe(0);
    const answer = JSON.parse(json.out);
    expect(answer).toMatchObject({ min_kappa: 0.6, failing: [] });
    expect(answer.calibration.metrics[0]).toMatchObject({
      status: 'calibrated',
      labels: 50,
      kappa: 1,
    });
  });

  it('exits 1 under the kappa (0.6 by default), 0 once the minimum allows it', async () => {
    const low = await run(middling.scorecard.id, '--workspace', s.workspaceId);
    expect(low.code).toBe(1);
    expect(low.out).toContain('FAIL Polite: calibrated, 50 labels, agreement 70.0%, kappa 0.40');
    expect(low.out).toContain('kappa 0.40 under 0.6');
    // By name, with a lower bar.
    const allowed = await run('Middling', '--workspace', s.workspaceId, '--min-kappa', '0.3');
    expect(allowed.code, allowed.out + allowed.err).toBe(0);
    expect(allowed.out).toContain('Calibration of Middling (kappa at least 0.3)');
    expect(allowed.out).toContain('ok   Polite: calibrated');
  });

  it('exits 1 when a metric is not calibrated: too few labels, or stale', async () => {
    const provisional = await run(few.scorecard.id, '--workspace', s.workspaceId, '--json');
    expect(provisional.code).toBe(1);
    expect(JSON.parse(provisional.out).failing).toEqual([
      { metric_id: few.judgeMetric.id, problem: 'provisional: 12 of 50 labels' },
    ]);
    const stale = await run(edited.scorecard.id, '--workspace', s.workspaceId);
    expect(stale.code).toBe(1);
    expect(stale.out).toContain('stale: the rubric changed since its labels were judged');
  });

  it('exits 2 when it cannot ask: usage, an unknown scorecard or workspace, no engine', async () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [[agreeing.scorecard.id], env, /Usage: callbench calibration/],
      [
        [agreeing.scorecard.id, '--workspace', s.workspaceId, '--min-kappa', 'high'],
        env,
        /--min-kappa takes a number/,
      ],
      [
        [agreeing.scorecard.id, '--workspace', s.workspaceId, '--bogus'],
        env,
        /Unknown option '--bogus'/,
      ],
      [['scd_nope', '--workspace', s.workspaceId], env, /No scorecard "scd_nope"/],
      [[agreeing.scorecard.id, '--workspace', 'ws_nope'], env, /No workspace ws_nope/],
      [
        [agreeing.scorecard.id, '--workspace', s.workspaceId],
        { ...env, CALLBENCH_URL: 'http://127.0.0.1:9' },
        /not reachable/,
      ],
    ];
    for (const [args, e, said] of cases) {
      const res = await cli(['calibration', ...args], e);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.err).toMatch(said);
    }
  });
});
