import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectHttpAgent,
  createPersona,
  startLocalServer,
  type LocalServer,
} from '../helpers/http-agents.js';
import { startServer, type TestServer } from '../helpers/server.js';

describe('simulations that end in error count against the pass rate', () => {
  let s: TestServer;
  let agent: LocalServer;
  let broken: LocalServer;
  beforeAll(async () => {
    [s, agent, broken] = await Promise.all([
      startServer(),
      // An agent of our own that always gives the tracking number.
      startLocalServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ reply: 'Your tracking number is TRK1.' }));
      }),
      // Up but broken: every turn is a 503, so its simulation ends in error.
      startLocalServer((_req, res) => res.writeHead(503).end('down')),
    ]);
  });
  afterAll(async () => {
    await s.stop();
    await Promise.all([agent.stop(), broken.stop()]);
  });

  it('one failing agent of two: 50% passed, and the errored one counted on its own', async () => {
    const good = await connectHttpAgent(s, 'helpful', agent.url);
    const gone = await connectHttpAgent(s, 'broken', broken.url);
    const persona = await createPersona(s, 'Ann', 'Wants tracking.');
    const scenario = (
      await s.ws('POST', '/scenarios', {
        name: 'Tracking',
        prompt: 'Ask for tracking.',
        personas: [persona],
        targetAgents: [good, gone],
        script: [{ say: 'Where is my parcel?', expect: { contains: 'TRK1' } }],
      })
    ).body.data.scenario.id as string;
    const exe = (await s.ws('POST', `/scenarios/${scenario}/execute`, {})).body.data.execution
      .id as string;
    const done = (await s.ws('GET', `/executions/${exe}?wait=20`)).body.data.execution;
    expect(done).toMatchObject({ counts: { completed: 1, failed: 1 }, pass_rate: 50 });

    const stats = (await s.ws('GET', `/scenarios/${scenario}`)).body.data.scenario.stats;
    expect(stats).toMatchObject({
      total_simulations: 2,
      success_rate: 50,
      errored_simulations: 1,
    });
    // The list carries each scenario's statistics too (the Scenarios screen shows them).
    const listed = (await s.ws('GET', '/scenarios?name=Tracking')).body.data.scenarios;
    expect(listed[0].stats).toEqual(stats);
    const workspace = (await s.ws('GET', '/scenarios/stats')).body.data.stats;
    expect(workspace.errored_simulations).toBeGreaterThanOrEqual(1);
    // Each agent's analytics: the broken one's simulation is errored, and not passed.
    const analytics = async (id: string) =>
      (await s.call('GET', `/v1/agents/${id}/analytics`)).body;
    expect(await analytics(gone)).toMatchObject({
      simulations: { total: 1, passed: 0, errored: 1, judged: 1 },
      passRate: 0,
      recommendations: [expect.stringContaining('1 of 1 simulations ended in error')],
    });
    expect(await analytics(good)).toMatchObject({
      simulations: { total: 1, passed: 1, errored: 0 },
      passRate: 100,
    });
  });
});
