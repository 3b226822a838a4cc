import { afterEach, describe, expect, it } from 'vitest';
import { startLocalServer, type LocalServer } from '../helpers/http-agents.js';
import type { Json } from '../helpers/json.js';
import { startServer, tempDir, type TestServer } from '../helpers/server.js';
import { dropStore } from '../helpers/store-under-test.js';

/**
 * The runner reads a simulation's scenario, scorecard and agent as it starts, not as it was
 * queued: what it records as tested (scenario_hash, scorecard_hash, agent_config) must be what
 * ran, and its execution's hashes its simulations'. The simulations are queued on an engine that
 * runs none, everything is edited, and another engine on the same data dir runs them.
 */

/** An agent at its own URL (OpenAI format): it greets, whatever is said. */
const greeter = () =>
  startLocalServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ choices: [{ message: { content: 'Hello, how can I help?' } }] }));
  });

describe('identity as run', () => {
  let s: TestServer | null = null;
  let agentServer: LocalServer | null = null;
  let dataDir: string;

  afterEach(async () => {
    await s?.stop();
    await agentServer?.stop();
    s = agentServer = null;
    await dropStore(dataDir);
  });

  const base = () => `/api/v1/workspaces/${s!.workspaceId}`;

  /** A scripted scenario against an http agent, scored on one `contains` metric. */
  async function setup(url: string) {
    const connect = (model: string) =>
      s!.call('POST', '/v1/agents/connect', {
        provider: 'http',
        agent_id: 'in-house',
        format: 'openai',
        credentials: { base_url: `${url}/v1`, model },
      });
    const agent = (await connect('model-a')).body.id as string;
    const persona = (await s!.ws('POST', '/personas', { name: 'Quinn', prompt: 'Calm.' })).body.data
      .persona.id as string;
    const scorecard = (
      await s!.ws('POST', '/scorecards', {
        name: 'Greets',
        metrics: [
          { name: 'Hi', category: 'accuracy', type: 'contains', config: { text: 'Hello' } },
        ],
      })
    ).body.data.scorecard.id as string;
    const made = await s!.ws('POST', '/scenarios', {
      name: 'Order',
      prompt: 'Asks about an order.',
      personas: [persona],
      targetAgents: [agent],
      scorecard,
      script: [{ say: 'Where is order A1?' }],
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    return { agent, scorecard, scenario: made.body.data.scenario.id as string, connect };
  }

  /** Queues an execution (nothing runs it yet); answers its id. */
  async function queue(scenario: string): Promise<string> {
    const res = await s!.call('POST', `${base()}/scenarios/${scenario}/execute`, { runs: 2 });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return res.body.data.execution.id as string;
  }

  /** The execution and its simulations as stored (the fields this test is about). */
  async function read(id: string) {
    const execution = (await s!.engine.store.simulations.execution(s!.workspaceId, id))!;
    const sims = await s!.engine.store.simulations.simulationsOf(id);
    return { execution, sims };
  }

  it('an edit between queue and run: the hashes are of what ran, the execution shows them', async () => {
    dataDir = tempDir();
    agentServer = await greeter();
    s = await startServer({ dataDir, runSimulations: false });
    const ids = await setup(agentServer.url);
    const queuedId = await queue(ids.scenario);
    const queued = await read(queuedId);
    expect(queued.sims.map((x) => x.status)).toEqual(['queued', 'queued']);
    const before = queued.sims[0]!;

    // While it waits: the script, the scorecard and the agent all change.
    const edited = await s.ws('PUT', `/scenarios/${ids.scenario}`, {
      script: [{ say: 'Where is order B2?' }],
    });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    const rescored = await s.ws('PUT', `/scorecards/${ids.scorecard}`, {
      metrics: [
        { name: 'Bye', category: 'accuracy', type: 'contains', config: { text: 'Goodbye' } },
      ],
    });
    expect(rescored.status, JSON.stringify(rescored.body)).toBe(200);
    expect((await ids.connect('model-b')).status).toBe(200);
    // What an execution queued now records: the edited test, for comparison.
    const reference = (await read(await queue(ids.scenario))).sims[0]!;
    expect(reference.scenario_hash).not.toBe(before.scenario_hash);
    expect(reference.scorecard_hash).not.toBe(before.scorecard_hash);
    expect(reference.agent_config!.hash).not.toBe(before.agent_config!.hash);

    // Another engine on the same data dir runs what waits.
    await s.stop();
    s = await startServer({ dataDir });
    const done = await s.call('GET', `${base()}/executions/${queuedId}?wait=60`);
    expect(done.status).toBe(200);
    const ran = await read(queuedId);
    for (const sim of ran.sims) {
      expect(sim.status).toBe('completed');
      // What ran: the edited script line, scored on the edited scorecard...
      expect(sim.turns[0]).toMatchObject({ role: 'caller', text: 'Where is order B2?' });
      expect(sim.results.map((r) => r.name)).toContain('Bye');
      expect(sim.passed).toBe(false);
      // ...and what it records as tested.
      expect(sim).toMatchObject({
        run: expect.any(Number),
        scenario_hash: reference.scenario_hash,
        scorecard_hash: reference.scorecard_hash,
        agent_config: reference.agent_config,
      });
    }
    expect(ran.execution).toMatchObject({
      scenario_hash: reference.scenario_hash,
      scorecard_hash: reference.scorecard_hash,
      agent_config_hashes: [reference.agent_config!.hash],
    });
  }, 120_000);

  it('simulations of one execution that tested different things: no single hash, every agent hash', async () => {
    dataDir = tempDir();
    agentServer = await greeter();
    s = await startServer({ dataDir, runSimulations: false });
    const ids = await setup(agentServer.url);
    const id = await queue(ids.scenario);
    const [first, second] = (await read(id)).sims;
    const queuedHash = first!.agent_config!.hash;
    // The first started after the scenario and the agent were edited; the second waits.
    const other = { ...first!.agent_config!, hash: 'a'.repeat(64), overrides: ['configuration.x'] };
    await s.engine.store.simulations.reidentify(first!.id, id, {
      scenario_hash: 'b'.repeat(64),
      scorecard_hash: first!.scorecard_hash,
      agent_config: other,
    });
    const mixed = await read(id);
    expect(mixed.sims[1]!.scenario_hash).toBe(second!.scenario_hash);
    expect(mixed.execution).toMatchObject({
      scenario_hash: null,
      scorecard_hash: first!.scorecard_hash,
      agent_config_hashes: ['a'.repeat(64), queuedHash],
    });
    // The second runs the same: one scenario again, one agent configuration.
    await s.engine.store.simulations.reidentify(second!.id, id, {
      scenario_hash: 'b'.repeat(64),
      scorecard_hash: second!.scorecard_hash,
      agent_config: other,
    });
    expect((await read(id)).execution).toMatchObject({
      scenario_hash: 'b'.repeat(64),
      agent_config_hashes: ['a'.repeat(64)],
    });
  }, 60_000);

  it('nothing edited: what was recorded as queued stands', async () => {
    dataDir = tempDir();
    agentServer = await greeter();
    s = await startServer({ dataDir });
    const ids = await setup(agentServer.url);
    const id = await queue(ids.scenario);
    const queued = await read(id);
    await s.call('GET', `${base()}/executions/${id}?wait=60`);
    const ran = await read(id);
    const pick = (x: Json) => ({
      scenario_hash: x.scenario_hash,
      scorecard_hash: x.scorecard_hash,
      agent_config: x.agent_config,
    });
    expect(ran.sims.map((x) => x.status)).toEqual(['completed', 'completed']);
    expect(ran.sims.map(pick)).toEqual(queued.sims.map(pick));
    expect(pick(ran.execution)).toEqual({ ...pick(queued.execution), agent_config: undefined });
    expect(ran.execution.agent_config_hashes).toEqual(queued.execution.agent_config_hashes);
  }, 120_000);
});
