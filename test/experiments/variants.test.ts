import { afterEach, describe, expect, it } from 'vitest';
import { GOOD_KEY, startFakeProviders, type FakeProviders } from '../helpers/fake-providers.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { nextSync, syncEnds } from '../providers/helpers.js';
import { startFakeReplica } from './fake-replica.js';

/**
 * Variants: an agent's configuration tried as an agent of its own, on the replica, following its
 * parent's syncs and overrides. The parent is a Vapi agent on a fake provider (which records any
 * write); the replica is a fake model that tells the variant's prompt from the parent's.
 */

const MARKER = 'Always confirm shipping.';

describe('agent variants', () => {
  let s: TestServer | null = null;
  let providers: FakeProviders | null = null;
  let replica: Awaited<ReturnType<typeof startFakeReplica>> | null = null;

  afterEach(async () => {
    await s?.stop();
    await providers?.stop();
    await replica?.stop();
    s = providers = replica = null;
  });

  async function setup() {
    [providers, replica] = await Promise.all([startFakeProviders(), startFakeReplica(MARKER)]);
    s = await startServer({
      llmDefault: { kind: 'openai', baseUrl: replica.url, apiKey: 'k', model: 'fake' },
    });
    const syncs = syncEnds(s);
    const res = await s.call('POST', '/v1/agents/connect', {
      provider: 'vapi',
      agent_id: 'asst_1',
      credentials: { api_key: GOOD_KEY, base_url: providers.url },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await syncs.of(res.body.id as string)).ok).toBe(true);
    return res.body.id as string;
  }

  const variantOf = async (parent: string, body: object) => {
    const res = await s!.call('POST', `/v1/agents/${parent}/variants`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body;
  };

  it('is an agent of its own on the replica: the parent plus its configuration, listed under it', async () => {
    const parent = await setup();
    const before = (await s!.call('GET', `/v1/agents/${parent}`)).body;
    expect(before.parentId).toBeNull();
    const v = await variantOf(parent, {
      name: 'Sam, warmer',
      configuration: { model: { temperature: 0.9 } },
    });
    expect(v).toMatchObject({
      parentId: parent,
      name: 'Sam, warmer',
      provider: 'vapi',
      channel: 'replica',
      overrides: ['configuration.model.temperature'],
      sync: { status: 'idle' },
    });
    expect(v.id).not.toBe(parent);
    expect(v.providerAgentId).not.toBe(before.providerAgentId);
    expect(v.configuration).toEqual({
      ...before.configuration,
      model: { ...before.configuration.model, temperature: 0.9 },
    });
    // A second variant: ids and provider agent ids never clash.
    const w = await variantOf(parent, {
      name: 'Sam, terse',
      configuration: { firstMessage: 'Hi.' },
    });
    expect(w.providerAgentId).not.toBe(v.providerAgentId);

    const listed = (await s!.call('GET', `/v1/agents/${parent}/variants`)).body.variants;
    expect(listed.map((x: { id: string }) => x.id)).toEqual([v.id, w.id]);
    const all = (await s!.call('GET', '/v1/agents')).body.agents as {
      id: string;
      parentId: string | null;
    }[];
    expect(all.map((a) => [a.id, a.parentId])).toEqual([
      [parent, null],
      [v.id, parent],
      [w.id, parent],
    ]);
    expect((await s!.call('GET', `/v1/agents/${v.id}/variants`)).body.variants).toEqual([]);
  });

  it("follows the parent's overrides and syncs, and keeps its own on top", async () => {
    const parent = await setup();
    const v = await variantOf(parent, {
      name: 'Warm',
      configuration: { model: { temperature: 0.9 } },
    });
    // The parent's own override shows through; the variant's wins where both set a value.
    await s!.call('PATCH', `/v1/agents/${parent}`, {
      configuration: { firstMessage: 'Hello there.', model: { temperature: 0.1 } },
    });
    let now = (await s!.call('GET', `/v1/agents/${v.id}`)).body;
    expect(now.configuration.firstMessage).toBe('Hello there.');
    expect(now.configuration.model.temperature).toBe(0.9);
    expect(now.overrides).toEqual(['configuration.model.temperature']);

    // A sync of the parent that finds a new prompt: the variant has it too.
    const state = providers!.state.vapiAssistant as { model: { messages: { content: string }[] } };
    state.model.messages[0]!.content = 'You are Sam, version two.';
    const synced = nextSync(s!, parent);
    expect((await s!.call('POST', `/v1/agents/${parent}/sync`)).status).toBe(202);
    expect((await synced).ok).toBe(true);
    now = (await s!.call('GET', `/v1/agents/${v.id}`)).body;
    expect(now.configuration.prompt).toBe('You are Sam, version two.');
    expect(now.configuration.model.temperature).toBe(0.9);
  });

  it('refuses what only a connected agent does (409) and what is not a configuration (400)', async () => {
    const parent = await setup();
    const writes = providers!.writes.length;
    const v = await variantOf(parent, { name: 'V', configuration: { prompt: 'P' } });
    const sync = await s!.call('POST', `/v1/agents/${v.id}/sync`);
    expect(sync.status).toBe(409);
    expect(sync.body.error.message).toContain('variant');
    expect((await s!.call('POST', `/v1/agents/${v.id}/test-connection`)).status).toBe(409);
    expect(
      (await s!.call('POST', `/v1/agents/${v.id}/variants`, { name: 'W', configuration: {} }))
        .status,
    ).toBe(409);
    const channel = await s!.call('PATCH', `/v1/agents/${v.id}`, { channel: 'provider' });
    expect(channel.status).toBe(400);
    expect(JSON.stringify(channel.body)).toContain('channel');
    const unknown = await s!.call('POST', `/v1/agents/${parent}/variants`, {
      name: 'X',
      configuration: { model: { topK: 1 } },
    });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('topK');
    expect(
      (await s!.call('POST', `/v1/agents/${parent}/variants`, { configuration: {} })).status,
    ).toBe(400);
    expect(
      (await s!.call('POST', '/v1/agents/agt_nope/variants', { name: 'X', configuration: {} }))
        .status,
    ).toBe(404);
    expect((await s!.call('GET', `/v1/agents/${parent}/variants`)).body.variants).toHaveLength(1);
    expect(providers!.writes.slice(writes)).toEqual([]);
  });

  it('is a scenario target run on the replica with its configuration; the parent is deleted with its variants once none is in use', async () => {
    const parent = await setup();
    const v = await variantOf(parent, {
      name: 'Ships',
      configuration: { prompt: `Sam. ${MARKER}` },
    });
    const persona = (await s!.ws('POST', '/personas', { name: 'Q', prompt: 'Calm.' })).body.data
      .persona.id;
    const made = await s!.ws('POST', '/scenarios', {
      name: 'Order',
      prompt: 'Asks about an order.',
      personas: [persona],
      targetAgents: [v.id],
      script: [{ say: 'Where is order A1?' }],
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const scenario = made.body.data.scenario.id as string;
    const run = await s!.ws('POST', `/scenarios/${scenario}/execute`, {});
    expect(run.status, JSON.stringify(run.body)).toBe(202);
    const done = await s!.ws('GET', `/executions/${run.body.data.execution.id}?wait=60`);
    expect(done.body.data.execution.status).toBe('completed');
    const sims = (await s!.ws('GET', `/executions/${run.body.data.execution.id}/simulations`)).body
      .data.simulations;
    expect(sims[0]).toMatchObject({ agent_id: v.id, channel: 'replica', status: 'completed' });
    // A variant has no history of its own: what ran is its parent's version, plus its overrides.
    const versions = (await s!.call('GET', `/v1/agents/${parent}/versions`)).body.versions;
    expect(sims[0].agent_config).toMatchObject({
      version_id: versions[0].version,
      overrides: ['configuration.prompt'],
    });
    expect(replica!.calls.map((c) => c.marked)).toEqual([true]);

    const refused = await s!.call('DELETE', `/v1/agents/${parent}?purge=true`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain("Variant 'Ships'");
    expect(refused.body.error.message).toContain('Order');
    expect((await s!.call('GET', `/v1/agents/${v.id}`)).status).toBe(200);

    expect((await s!.ws('DELETE', `/scenarios/${scenario}`)).status).toBe(200);
    expect((await s!.call('DELETE', `/v1/agents/${parent}?purge=true`)).status).toBe(200);
    expect((await s!.call('GET', `/v1/agents/${v.id}`)).status).toBe(404);
    expect((await s!.call('GET', '/v1/agents')).body.agents).toEqual([]);
  });
});
