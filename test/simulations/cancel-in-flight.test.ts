import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHttpAgent, createPersona, startLocalServer } from '../helpers/http-agents.js';
import { startServer, type TestServer } from '../helpers/server.js';

/** An agent of our own that takes 10 s to answer, and tells when a request was abandoned. */
async function slowAgent() {
  const state = { requests: 0, aborted: 0 };
  const server = await startLocalServer((_req, res) => {
    state.requests++;
    const timer = setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ reply: 'Let me check that for you.' }));
    }, 10_000);
    res.on('close', () => {
      if (!res.writableEnded) state.aborted++;
      clearTimeout(timer);
    });
  });
  return { ...server, state };
}

const waitFor = async (check: () => boolean | Promise<boolean>, ms: number) => {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('cancelling an execution', () => {
  let s: TestServer;
  let agent: Awaited<ReturnType<typeof slowAgent>>;
  beforeAll(async () => {
    [s, agent] = await Promise.all([startServer(), slowAgent()]);
  });
  afterAll(async () => {
    await s.stop();
    await agent.stop();
  });

  it('aborts the turns in flight: every simulation cancelled within 2 s, no request after', async () => {
    const agentId = await connectHttpAgent(s, 'slow-one', agent.url);
    const persona = await createPersona(s, 'Pat', 'Patient.');
    const scenario = (
      await s.ws('POST', '/scenarios', {
        name: 'Slow answers',
        prompt: 'Ask twice.',
        personas: [persona],
        targetAgents: [agentId],
        script: [{ say: 'Hello?' }, { say: 'Still there?' }, { say: 'Hello again?' }],
      })
    ).body.data.scenario.id as string;
    const exe = (await s.ws('POST', `/scenarios/${scenario}/execute`, { runs: 2 })).body.data
      .execution.id as string;
    // Both simulations are waiting on the agent.
    await waitFor(() => agent.state.requests === 2, 10_000);

    const cancelledAt = Date.now();
    expect((await s.ws('POST', `/executions/${exe}/cancel`)).status).toBe(200);
    await waitFor(async () => {
      const execution = (await s.ws('GET', `/executions/${exe}`)).body.data.execution;
      return execution.counts.cancelled === 2;
    }, 2_000);
    expect(Date.now() - cancelledAt).toBeLessThan(2_000);
    // The requests in flight were abandoned, and none followed.
    await waitFor(() => agent.state.aborted === 2, 2_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(agent.state.requests).toBe(2);
    const sims = (await s.ws('GET', `/simulations?execution_id=${exe}`)).body.data.simulations;
    for (const sim of sims) expect(sim.status).toBe('cancelled');
  }, 20_000);
});
