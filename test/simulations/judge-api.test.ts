import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModels } from '../helpers/fake-models.js';
import {
  connectHttpAgent,
  createPersona,
  startLocalServer,
  type LocalServer,
} from '../helpers/http-agents.js';
import type { Json } from '../helpers/json.js';
import { startServer, type TestServer } from '../helpers/server.js';

/**
 * The judge over the API, on a simulation really run: a scripted caller whose lines carry
 * reference answers, an agent of our own, the judge on a fake model whose answers the test
 * scripts. The request the judge model received shows each reference beside its turn.
 */

describe('judged simulations over the API', () => {
  let s: TestServer;
  let agentServer: LocalServer;
  let models: Awaited<ReturnType<typeof startFakeModels>>;
  let agent: string;
  let persona: string;

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
    agent = await connectHttpAgent(s, 'shop', agentServer.url);
    persona = await createPersona(s, 'Ann');
  });
  afterAll(async () => {
    await s.stop();
    await Promise.all([agentServer.stop(), models.stop()]);
  });

  const judgeMetric = (config: Json) => ({
    name: 'Handles it',
    category: 'accuracy',
    type: 'llm_judge',
    config,
  });

  it('refuses requirements outside 1-20 and a reference over 5,000 characters, naming the field', async () => {
    const cases: [Json, string][] = [
      [{ criterion: 'x', requirements: [] }, 'metrics[0].config.requirements'],
      [
        { criterion: 'x', requirements: Array.from({ length: 21 }, (_, i) => `r${i}`) },
        'metrics[0].config.requirements',
      ],
      [{ criterion: 'x', requirements: [''] }, 'metrics[0].config.requirements[0]'],
    ];
    for (const [config, path] of cases) {
      const res = await s.ws('POST', '/scorecards', {
        name: 'Bad',
        metrics: [judgeMetric(config)],
      });
      expect(res.status, JSON.stringify(config)).toBe(400);
      expect(res.body.error.details.map((d: Json) => d.path)).toContain(path);
    }
    const long = await s.ws('POST', '/scenarios', {
      name: 'Long',
      prompt: 'p',
      personas: [persona],
      script: [{ say: 'Hi', reference: 'x'.repeat(5_001) }],
    });
    expect(long.status).toBe(400);
    expect(long.body.error.details.map((d: Json) => d.path)).toContain('script[0].reference');
  });

  it('shows each line reference beside its turn; results carry status, evidence, requirements, judge_model, rubric_hash', async () => {
    const scorecard = (
      await s.ws('POST', '/scorecards', {
        name: 'Judged',
        metrics: [
          judgeMetric({ criterion: 'Helps', requirements: ['Gives tracking', 'Says goodbye'] }),
        ],
        passThreshold: 50,
      })
    ).body.data.scorecard.id as string;
    const script = [
      { say: 'Where is my parcel?', reference: 'It shipped; your tracking is TRK1.' },
      { say: 'Thanks, bye.' },
    ];
    const created = await s.ws('POST', '/scenarios', {
      name: 'Parcel',
      prompt: 'Asks where the parcel is.',
      personas: [persona],
      targetAgents: [agent],
      scorecard,
      script,
    });
    expect(created.status).toBe(201);
    expect(created.body.data.scenario.script).toEqual(script);
    models.openai(
      JSON.stringify({
        requirements: [
          { requirement: 1, met: true },
          { requirement: 2, met: false },
        ],
        reasoning: 'Tracking given, no goodbye.',
        evidence: [{ turn: 1, quote: 'tracking trk1' }],
      }),
    );
    const before = models.requests.length;
    const id = (
      await s.ws('POST', `/scenarios/${created.body.data.scenario.id}/execute`, { runs: 1 })
    ).body.data.execution.id as string;
    expect((await s.ws('GET', `/executions/${id}?wait=60`)).body.data.execution.status).toBe(
      'completed',
    );
    expect(models.requests.length - before).toBe(1);
    const question = models.requests.at(-1)!.body.messages.find((m: Json) => m.role === 'user')
      .content as string;
    expect(question).toContain(
      [
        '0. Caller: Where is my parcel?  (reference answer: "It shipped; your tracking is TRK1.")',
        '1. Agent: It shipped. Tracking TRK1.',
        '2. Caller: Thanks, bye.',
        '3. Agent: It shipped. Tracking TRK1.',
      ].join('\n'),
    );
    const [sim] = (await s.ws('GET', `/executions/${id}/simulations`)).body.data.simulations;
    expect(sim).toMatchObject({ score: 50, passed: true });
    expect(sim.results[0]).toMatchObject({
      status: 'passed',
      score: 50,
      evidence: [{ turn: 1, quote: 'tracking trk1' }],
      requirements: [
        { text: 'Gives tracking', met: true },
        { text: 'Says goodbye', met: false },
      ],
      judge_model: 'j1',
      rubric_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });
});
