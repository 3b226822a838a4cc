import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeHttpAgent } from '../helpers/fake-chat.js';
import { GOOD_KEY, startFakeProviders, type FakeProviders } from '../helpers/fake-providers.js';
import { startServer, type TestServer } from '../helpers/server.js';

type Turn = { role: string; text: string; tool?: { name: string; arguments: unknown } };

/**
 * The deployed agent under test, reached over its provider's own text chat API or at a URL of the
 * tester's: scripted callers need no model at all, so none is configured here.
 */
describe('simulation channels: provider chat APIs and agents at a URL', () => {
  let s: TestServer;
  let providers: FakeProviders;
  let agent: Awaited<ReturnType<typeof startFakeHttpAgent>>;
  const agents: Record<string, string> = {};
  let persona: string;

  const connect = async (body: object) => {
    const res = await s.call('POST', '/v1/agents/connect', body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };
  const scenarioFor = async (
    targetAgents: string[],
    script = [
      { say: 'Where is order {{order_id}}?', expect: { contains: 'shipped' } },
      { say: 'Thanks, bye.' },
    ],
  ) =>
    (
      await s.ws('POST', '/scenarios', {
        name: `S ${Math.random()}`,
        prompt: 'Order {{order_id}} is late.',
        personas: [persona],
        targetAgents,
        script,
        promptVariables: [{ name: 'order_id', type: 'string', defaultValue: 'A1' }],
      })
    ).body.data.scenario.id as string;
  const execute = async (scenario: string, body: object = {}) => {
    const res = await s.ws('POST', `/scenarios/${scenario}/execute`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const done = (await s.ws('GET', `/executions/${res.body.data.execution.id}?wait=30`)).body.data
      .execution;
    const sims = (await s.ws('GET', `/executions/${done.id}/simulations`)).body.data.simulations;
    return {
      done,
      sims: sims as {
        agent_id: string;
        channel: string;
        status: string;
        end_reason: string;
        passed: boolean;
        error?: string;
        turns: Turn[];
      }[],
    };
  };

  beforeAll(async () => {
    [providers, agent] = await Promise.all([startFakeProviders(), startFakeHttpAgent()]);
    s = await startServer({
      providerRetry: { attempts: 2, baseDelayMs: 5, maxRetryAfterMs: 50, timeoutMs: 5_000 },
    });
    const creds = { api_key: GOOD_KEY, base_url: providers.url };
    agents.vapi = (await connect({ provider: 'vapi', agent_id: 'asst_1', credentials: creds })).id;
    agents.retell = (
      await connect({ provider: 'retell', agent_id: 'ret_1', credentials: creds })
    ).id;
    agents.eleven = (
      await connect({ provider: 'elevenlabs', agent_id: 'el_1', credentials: creds })
    ).id;
    agents.bland = (await connect({ provider: 'bland', agent_id: 'bl_2', credentials: creds })).id;
    agents.blandNoPathway = (
      await connect({ provider: 'bland', agent_id: 'bl_1', credentials: creds })
    ).id;
    const openai = await connect({
      provider: 'http',
      agent_id: 'in-house-openai',
      format: 'openai',
      credentials: { base_url: `${agent.url}/v1`, api_key: 'agent-key', model: 'my-model' },
    });
    expect(openai).toMatchObject({
      provider: 'http',
      name: 'in-house-openai',
      channel: 'http',
      status: 'active',
    });
    expect(JSON.stringify(openai)).not.toContain('agent-key');
    agents.openai = openai.id;
    agents.simple = (
      await connect({
        provider: 'http',
        agent_id: 'in-house-simple',
        credentials: { base_url: `${agent.url}/simple` },
      })
    ).id;
    persona = (await s.ws('POST', '/personas', { name: 'Quinn', prompt: 'Wants an order.' })).body
      .data.persona.id;
    await s.engine.invoke('agents.list', {}); // connects import in the background; let them settle
  });
  afterAll(async () => {
    await s.stop();
    await Promise.all([providers.stop(), agent.stop()]);
  });

  it("each provider's own chat API carries a whole scripted conversation, with the variables filled", async () => {
    // The fake providers are shared by this file's tests: read only what this test sends.
    providers.chat.requests.length = 0;
    providers.chat.pongs = 0;
    const ids = [agents.vapi!, agents.retell!, agents.eleven!, agents.bland!];
    for (const id of ids)
      expect((await s.call('GET', `/v1/agents/${id}`)).body.channel).toBe('provider');
    const logged = async () => {
      const figures = ids.map((id) =>
        s.engine.store.toolCalls.figuresOfName('order_status', id, null),
      );
      return (await Promise.all(figures)).map((f) => f.n);
    };
    const loggedBefore = await logged();
    const { done, sims } = await execute(await scenarioFor(ids), { variables: { order_id: 'Z9' } });
    expect(done).toMatchObject({
      status: 'completed',
      counts: { completed: 4, failed: 0 },
      pass_rate: 100,
    });
    // The tools the agents report calling on their provider's chat are in the call log, as the
    // replica's are (Bland's pathway chat reports none).
    expect((await logged()).map((n, i) => n - loggedBefore[i]!)).toEqual([1, 1, 1, 0]);
    const byAgent = Object.fromEntries(sims.map((sim) => [sim.agent_id, sim]));
    for (const sim of sims) {
      expect(sim).toMatchObject({ channel: 'provider', status: 'completed', passed: true });
      expect(sim.turns.filter((t) => t.role === 'caller').map((t) => t.text)).toEqual([
        'Where is order Z9?',
        'Thanks, bye.',
      ]);
      expect(sim.turns.filter((t) => t.role === 'agent').map((t) => t.text)).toContain(
        'Your order Z9 has shipped.',
      );
    }
    // Vapi: the conversation is chained by previousChatId, and endCall ends it.
    const vapi = providers.chat.requests.filter((r) => r.api === 'vapi').map((r) => r.body);
    // The fake names each chat after the requests it has had, the first Vapi one included.
    const firstChat = `chat_${providers.chat.requests.findIndex((r) => r.api === 'vapi') + 1}`;
    expect(vapi).toEqual([
      { assistantId: 'asst_1', input: 'Where is order Z9?' },
      { assistantId: 'asst_1', input: 'Thanks, bye.', previousChatId: firstChat },
    ]);
    expect(byAgent[agents.vapi!]!.end_reason).toBe('agent_ended');
    expect(
      byAgent[agents.vapi!]!.turns.filter((t) => t.role === 'tool').map((t) => t.tool),
    ).toEqual([
      expect.objectContaining({ name: 'order_status', arguments: { orderId: 'Z9' } }),
      expect.objectContaining({ name: 'endCall' }),
    ]);
    // Retell: stateless, so the whole history goes each time, the agent's own messages included.
    const retell = providers.chat.requests
      .filter((r) => r.api === 'retell')
      .map((r) => r.body.messages);
    expect(retell[0]).toEqual([{ role: 'user', content: 'Where is order Z9?' }]);
    expect(retell[1]).toHaveLength(5);
    expect(retell[1]!.at(-1)).toEqual({ role: 'user', content: 'Thanks, bye.' });
    expect(byAgent[agents.retell!]).toMatchObject({ end_reason: 'agent_ended' });
    expect(byAgent[agents.retell!]!.turns.find((t) => t.role === 'tool')!.tool).toMatchObject({
      name: 'order_status',
      arguments: { orderId: 'Z9' },
      result: { status: 'shipped' },
      success: true,
    });
    // ElevenLabs: a text-only socket, the agent speaks first, pings are answered.
    expect(byAgent[agents.eleven!]!.turns[0]).toMatchObject({
      role: 'agent',
      text: 'Hi, Eve here',
    });
    expect(byAgent[agents.eleven!]!.turns.find((t) => t.role === 'tool')!.tool).toMatchObject({
      name: 'order_status',
    });
    expect(providers.chat.pongs).toBe(1);
    expect(
      providers.chat.requests.filter((r) => r.api === 'eleven').map((r) => r.body.text),
    ).toEqual(['Where is order Z9?', 'Thanks, bye.']);
    // Bland: a pathway chat, created for the agent's pathway.
    expect(providers.chat.requests.filter((r) => r.api === 'bland').map((r) => r.body)).toEqual([
      { pathway_id: 'pw_1' },
      { message: 'Where is order Z9?' },
      { message: 'Thanks, bye.' },
    ]);
    expect(byAgent[agents.bland!]).toMatchObject({ end_reason: 'agent_ended' });
  });

  it('a chat turn is never sent twice: a 500 fails the simulation, a 429 is waited out and retried', async () => {
    const scenario = await scenarioFor([agents.vapi!], [{ say: 'Where is order Q1?' }]);
    const hits = () => providers.hits.get('/chat') ?? 0;
    const before = hits();
    providers.state.failOnce.add('/chat');
    const failed = await execute(scenario);
    expect(failed.sims[0]).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('not repeated'),
    });
    expect(hits() - before).toBe(1);
    providers.state.throttleOnce.add('/chat');
    const retried = await execute(scenario);
    expect(retried.sims[0]).toMatchObject({ status: 'completed' });
    expect(hits() - before).toBe(3); // the 429, then its retry
  });

  it('agents at a URL: OpenAI-compatible with its key and model, or plain JSON', async () => {
    const { done, sims } = await execute(await scenarioFor([agents.openai!, agents.simple!]));
    expect(done).toMatchObject({ status: 'completed', counts: { completed: 2 } });
    for (const sim of sims)
      expect(sim).toMatchObject({
        channel: 'http',
        status: 'completed',
        passed: true,
        end_reason: 'agent_ended',
      });
    const openai = agent.log.requests.filter((r) => r.api === 'openai').map((r) => r.body);
    expect(openai[1]).toEqual({
      model: 'my-model',
      messages: [
        { role: 'user', content: 'Where is order A1?' },
        { role: 'assistant', content: 'Your order A1 has shipped.' },
        { role: 'user', content: 'Thanks, bye.' },
      ],
    });
    // The end marker is the agent's way to hang up; it is not part of what it said.
    expect(sims.find((x) => x.agent_id === agents.openai)!.turns.at(-1)).toMatchObject({
      role: 'agent',
      text: 'Goodbye!',
    });
    expect(
      sims.find((x) => x.agent_id === agents.simple)!.turns.find((t) => t.role === 'tool')!.tool,
    ).toMatchObject({ name: 'order_status', arguments: { orderId: 'A1' } });
  });

  it('an agent answering the wrong shape fails its simulation with the reason', async () => {
    const broken = (
      await connect({
        provider: 'http',
        agent_id: 'broken',
        credentials: { base_url: `${agent.url}/broken` },
      })
    ).id;
    const { done, sims } = await execute(await scenarioFor([broken]));
    expect(done.counts.failed).toBe(1);
    expect(sims[0]).toMatchObject({
      status: 'failed',
      end_reason: 'error',
      error: expect.stringContaining('answered no "reply" string'),
    });
  });

  it('refuses channels an agent does not have, at once and in words', async () => {
    const blandOnly = await scenarioFor([agents.blandNoPathway!]);
    const noText = await s.ws('POST', `/scenarios/${blandOnly}/execute`, { channel: 'provider' });
    expect(noText.status).toBe(400);
    expect(noText.body.error.details[0]).toMatchObject({
      path: 'channel',
      message: expect.stringContaining('bland offers no text chat'),
    });
    // Its default is the replica channel, which needs a model, and none is configured here.
    expect((await s.call('GET', `/v1/agents/${agents.blandNoPathway}`)).body.channel).toBe(
      'replica',
    );
    const replica = await s.ws('POST', `/scenarios/${blandOnly}/execute`, {});
    expect(replica.body.error.details[0]).toMatchObject({
      path: `agents.${agents.blandNoPathway}.channel`,
      message: expect.stringContaining('needs a language model for the replica role'),
    });
    expect(
      (await s.call('PATCH', `/v1/agents/${agents.blandNoPathway}`, { channel: 'provider' }))
        .status,
    ).toBe(400);
    expect(
      (await s.call('PATCH', `/v1/agents/${agents.openai}`, { channel: 'replica' })).body.error
        .details[0].message,
    ).toContain('only the http channel');
    expect((await s.call('PATCH', `/v1/agents/${agents.vapi}`, { channel: 'http' })).status).toBe(
      400,
    );
    // The Vapi agent is shared by the tests of this file: its channel is put back at once.
    const switched = await s.call('PATCH', `/v1/agents/${agents.vapi}`, { channel: 'replica' });
    await s.call('PATCH', `/v1/agents/${agents.vapi}`, { channel: 'provider' });
    expect(switched.body.channel).toBe('replica');
    expect((await s.call('POST', `/v1/agents/${agents.openai}/sync`)).status).toBe(409);
    const noUrl = await s.call('POST', '/v1/agents/connect', {
      provider: 'http',
      agent_id: 'x',
      credentials: {},
    });
    expect(noUrl.body.error.details).toEqual([
      { path: 'credentials.base_url', message: expect.stringContaining('is required') },
    ]);
    expect(
      (
        await s.call('POST', '/v1/agents/connect', {
          provider: 'vapi',
          agent_id: 'asst_1',
          format: 'openai',
          credentials: { api_key: GOOD_KEY, base_url: providers.url },
        })
      ).status,
    ).toBe(400);
    // Reconnecting an http agent renews how it is reached: 200, the same agent.
    const again = await s.call('POST', '/v1/agents/connect', {
      provider: 'http',
      agent_id: 'in-house-simple',
      credentials: { base_url: `${agent.url}/simple` },
    });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(agents.simple);
  });

  it('the pool size is a setting: never more simulations at once than it allows', async () => {
    expect(
      (await s.call('PATCH', '/v1/settings', { simulations: { concurrency: 0 } })).body.error
        .details[0].path,
    ).toBe('simulations.concurrency');
    const set = await s.call('PATCH', '/v1/settings', {
      simulations: { concurrency: 3, maxTurns: 15 },
    });
    expect(set.body.simulations).toEqual({ concurrency: 3, maxTurns: 15, maxDurationMs: 300_000 });
    agent.load.delayMs = 60;
    agent.load.maxInFlight = 0;
    const { done } = await execute(await scenarioFor([agents.simple!]), { runs: 10 });
    agent.load.delayMs = 0;
    expect(done.counts.completed).toBe(10);
    expect(agent.load.maxInFlight).toBe(3);
    expect((await s.call('GET', '/v1/settings')).body.simulations.concurrency).toBe(3);
    expect(
      (await s.call('PATCH', '/v1/settings', { sync: { intervalMinutes: 5 } })).body.sync,
    ).toEqual({ intervalMinutes: 5 });
    expect((await s.call('PATCH', '/v1/settings', { sync: { intervalMinutes: 90 } })).status).toBe(
      400,
    );
  });

  it('a wait on an execution ends at its cancel, even when none of its simulations was running', async () => {
    await s.call('PATCH', '/v1/settings', { simulations: { concurrency: 1 } });
    agent.load.delayMs = 200;
    const busy = (
      await s.ws('POST', `/scenarios/${await scenarioFor([agents.simple!])}/execute`, { runs: 2 })
    ).body.data.execution.id;
    const queued = (
      await s.ws('POST', `/scenarios/${await scenarioFor([agents.simple!])}/execute`, {})
    ).body.data.execution.id;
    const began = Date.now();
    const waiting = s.ws('GET', `/executions/${queued}?wait=20`);
    await new Promise((r) => setTimeout(r, 100));
    await s.ws('POST', `/executions/${queued}/cancel`);
    const answered = (await waiting).body.data.execution;
    expect(answered).toMatchObject({ status: 'cancelled', counts: { cancelled: 1 } });
    // At the cancel, not at the end of its 20 s wait: half of it tells one from the other, however
    // busy the machine.
    expect(Date.now() - began).toBeLessThan(10_000);
    agent.load.delayMs = 0;
    expect((await s.ws('GET', `/executions/${busy}?wait=30`)).body.data.execution.status).toBe(
      'completed',
    );
  });
});
