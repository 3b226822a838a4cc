import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startLocalServer, type LocalServer } from '../helpers/http-agents.js';
import {
  callServed,
  killServeProcesses,
  serveProcess,
  type ServeProcess,
} from '../helpers/serve-process.js';

/**
 * How `serve` stops on SIGTERM. How fast an idle one stops is measured in `npm run bench cli`, not
 * here: a wall-clock limit would fail on a busy machine. Here: that it stops, and what it says.
 */
const servers: LocalServer[] = [];
afterEach(async () => {
  killServeProcesses();
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

/** An agent at its own URL that never answers while the test runs; `asked` once a turn reaches it. */
async function silentAgent() {
  const held: ServerResponse[] = [];
  let reached: () => void = () => {};
  const asked = new Promise<void>((r) => (reached = r));
  const server = await startLocalServer((_req, res) => {
    held.push(res);
    reached();
  });
  servers.push({
    url: server.url,
    stop: () => {
      for (const res of held) res.destroy();
      return server.stop();
    },
  });
  return { url: server.url, asked };
}

type Data<K extends string> = { data: Record<K, { id: string }> };

/** Executes a scripted scenario (no model needed) against an agent at `agentUrl`. */
async function executeAgainst(s: ServeProcess, agentUrl: string): Promise<void> {
  const ws = (
    await callServed<{ data: { workspaces: { id: string }[] } }>(s, 'GET', '/api/v1/workspaces')
  ).data.workspaces[0]!.id;
  const base = `/api/v1/workspaces/${ws}`;
  const agent = await callServed<{ id: string }>(s, 'POST', '/v1/agents/connect', {
    provider: 'http',
    agent_id: 'slow',
    credentials: { base_url: agentUrl },
  });
  const persona = (
    await callServed<Data<'persona'>>(s, 'POST', `${base}/personas`, {
      name: 'Ann',
      prompt: 'Calm.',
    })
  ).data.persona.id;
  const scenario = (
    await callServed<Data<'scenario'>>(s, 'POST', `${base}/scenarios`, {
      name: 'Slow answer',
      prompt: 'Ask for tracking.',
      personas: [persona],
      targetAgents: [agent.id],
      script: [{ say: 'Where is my parcel?' }],
    })
  ).data.scenario.id;
  await callServed(s, 'POST', `${base}/scenarios/${scenario}/execute`, {});
}

describe('serve stopping on SIGTERM', () => {
  it('idle: stops, says so, and exits 0', async () => {
    const s = await serveProcess();
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    expect(s.lines.slice(-2)).toEqual(['Stopping (SIGTERM)', 'Stopped']);
  }, 60_000);

  it('with a simulation in flight: one line says what the stop waits for, then it stops', async () => {
    const s = await serveProcess();
    const agent = await silentAgent();
    await executeAgainst(s, agent.url);
    await agent.asked; // the caller's first line is with the agent, which does not answer
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    expect(s.lines.filter((l) => l.startsWith('Stopping'))).toEqual([
      'Stopping (SIGTERM): waiting for 1 simulation in flight (Ctrl+C again to stop now)',
    ]);
    expect(s.lines.at(-1)).toBe('Stopped');
  }, 60_000);
});
