import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModels } from '../helpers/fake-models.js';
import {
  connectHttpAgent,
  createPersona,
  startLocalServer,
  type LocalServer,
} from '../helpers/http-agents.js';
import { startServer, type TestServer } from '../helpers/server.js';

/**
 * A label on a simulation really run and judged (the judge on a fake model the test scripts): the
 * calibration reads the judge's result as the scorer wrote it, model and rubric included.
 */
describe('reviewing a simulation the judge scored', () => {
  let s: TestServer;
  let agentServer: LocalServer;
  let models: Awaited<ReturnType<typeof startFakeModels>>;

  beforeAll(async () => {
    [s, agentServer, models] = await Promise.all([
      startServer(),
      startLocalServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ reply: 'It shipped. Tracking TRK1.' }));
      }),
      startFakeModels(),
    ]);
    await s.call('PATCH', '/v1/settings', {
      llm: { judge: { kind: 'openai', baseUrl: models.url, apiKey: 'k-0123456789', model: 'j1' } },
    });
  });
  afterAll(async () => {
    await s.stop();
    await Promise.all([agentServer.stop(), models.stop()]);
  });

  it('counts the label against the verdict, judge model and rubric the run recorded', async () => {
    const agent = await connectHttpAgent(s, 'shop', agentServer.url);
    const persona = await createPersona(s, 'Ann');
    const scorecard = (
      await s.ws('POST', '/scorecards', {
        name: 'Judged',
        metrics: [
          { name: 'Helps', type: 'llm_judge', config: { criterion: 'Gives the tracking' } },
        ],
      })
    ).body.data.scorecard;
    const scenario = (
      await s.ws('POST', '/scenarios', {
        name: 'Parcel',
        prompt: 'Asks where the parcel is.',
        personas: [persona],
        targetAgents: [agent],
        scorecard: scorecard.id,
        script: [{ say: 'Where is my parcel?' }],
      })
    ).body.data.scenario;
    models.openai(
      JSON.stringify({
        score: 90,
        reasoning: 'It gave the tracking number.',
        evidence: [{ turn: 1, quote: 'Tracking TRK1' }],
      }),
    );
    const execution = (await s.ws('POST', `/scenarios/${scenario.id}/execute`, { runs: 1 })).body
      .data.execution.id as string;
    expect((await s.ws('GET', `/executions/${execution}?wait=60`)).body.data.execution.status).toBe(
      'completed',
    );
    const [sim] = (await s.ws('GET', `/executions/${execution}/simulations`)).body.data.simulations;
    const metricId = scorecard.metrics[0].id as string;
    expect(sim.results[0]).toMatchObject({ metric_id: metricId, passed: true, judge_model: 'j1' });

    const labelled = await s.ws('POST', '/reviews', {
      target: { simulationId: sim.id },
      metricId,
      verdict: 'fail',
      note: 'It never said when it would arrive',
    });
    expect(labelled.status).toBe(201);
    const { metrics } = (await s.ws('GET', `/scorecards/${scorecard.id}/calibration`)).body.data
      .calibration;
    expect(metrics).toEqual([
      {
        metric_id: metricId,
        name: 'Helps',
        status: 'insufficient_data',
        labels: 1,
        agreement: null,
        kappa: null,
        confusion: {
          both_pass: 0,
          judge_pass_human_fail: 1,
          judge_fail_human_pass: 0,
          both_fail: 0,
        },
        disagreements: [
          {
            target: { simulationId: sim.id },
            judge: 'pass',
            human: 'fail',
            reviewer: labelled.body.data.review.reviewer,
            note: 'It never said when it would arrive',
          },
        ],
        judge_model: 'j1',
        rubric_hash: sim.results[0].rubric_hash,
        judge_model_in_force: 'j1',
        rubric_hash_in_force: sim.results[0].rubric_hash,
      },
    ]);
  });
});
