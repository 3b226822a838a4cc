import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectHttpAgent,
  createPersona,
  startLocalServer,
  type LocalServer,
} from '../helpers/http-agents.js';
import { startServer, tempDir, type TestServer } from '../helpers/server.js';
import { dropStore } from '../helpers/store-under-test.js';

const ROUNDS = 60;

/** A one-line scripted scenario against the agent at `url`; answers its id. */
async function helloScenario(s: TestServer, url: string): Promise<string> {
  const agent = await connectHttpAgent(s, 'hello', url);
  const persona = await createPersona(s, 'Ann');
  const res = await s.ws('POST', '/scenarios', {
    name: 'Says hello',
    prompt: 'Ask anything.',
    personas: [persona],
    targetAgents: [agent],
    script: [{ say: 'Hello?' }],
  });
  return res.body.data.scenario.id as string;
}

describe('GET /executions/{id}?wait=S', () => {
  let s: TestServer;
  let broken: LocalServer;
  beforeAll(async () => {
    [s, broken] = await Promise.all([
      startServer(),
      // Every turn is a 503 (a chat turn is not sent twice, so its simulation ends then), after
      // 0-8 ms: the simulations end at moments spread over the answer's first look at them.
      startLocalServer((_req, res) => {
        setTimeout(() => res.writeHead(503).end('down'), Math.random() * 8);
      }),
    ]);
  });
  afterAll(async () => {
    await s.stop();
    await broken.stop();
  });

  // A simulation that ended while the answer was reading the execution's status (one round trip
  // to PostgreSQL) went unheard: the answer then waited out the whole S seconds.
  it('answers as soon as the execution ends, however soon that is', async () => {
    const scenario = await helloScenario(s, broken.url);
    const slowest = { ms: 0, status: '' };
    for (let round = 0; round < ROUNDS; round++) {
      const started = await s.ws('POST', `/scenarios/${scenario}/execute`, {});
      const id = started.body.data.execution.id as string;
      const asked = performance.now();
      const answer = (await s.ws('GET', `/executions/${id}?wait=3`)).body.data.execution;
      const ms = performance.now() - asked;
      if (ms > slowest.ms) Object.assign(slowest, { ms, status: answer.status as string });
      expect(answer.status).toBe('failed');
    }
    console.log(`slowest answer of ${ROUNDS}: ${slowest.ms.toFixed(0)} ms (${slowest.status})`);
    expect(slowest.ms).toBeLessThan(2000);
  });

  // Quitting the app (or a server's restart) with a script waiting on an execution held the
  // engine's stop for the rest of the wait: the HTTP server lets requests in flight finish.
  it('a stop answers an open wait at once; the simulation it interrupted runs again', async () => {
    const pending = new Set<ServerResponse>();
    let answering = false;
    const agent = await startLocalServer((_req, res) => {
      if (!answering) return void pending.add(res);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"reply":"Hello!"}');
    });
    const dataDir = tempDir();
    const own = await startServer({ dataDir });
    let again: TestServer | null = null;
    try {
      const scenario = await helloScenario(own, agent.url);
      const id = (await own.ws('POST', `/scenarios/${scenario}/execute`, {})).body.data.execution
        .id as string;
      while (!pending.size) await new Promise((r) => setTimeout(r, 20));
      const waiting = own.ws('GET', `/executions/${id}?wait=30`);
      await new Promise((r) => setTimeout(r, 200));
      const began = performance.now();
      await own.stop();
      const answer = await waiting;
      expect(performance.now() - began).toBeLessThan(3_000);
      expect(answer.status).toBe(200);
      expect(answer.body.data.execution.status).toBe('running');
      // Left running, not failed: the next start runs it again, and now the agent answers.
      answering = true;
      again = await startServer({ dataDir });
      const done = (await again.ws('GET', `/executions/${id}?wait=20`)).body.data.execution;
      expect(done).toMatchObject({ status: 'completed', counts: { completed: 1 } });
    } finally {
      for (const res of pending) res.destroy();
      await again?.stop();
      await dropStore(dataDir);
      await agent.stop();
    }
  });
});
