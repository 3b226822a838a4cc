import { afterEach, describe, expect, it } from 'vitest';
import { canonicalHash, canonicalJson } from '../../src/kernel/canonical-hash.js';
import { httpAgentRecord, rawRecord } from '../../src/providers/raw-record.js';
import { GOOD_KEY, startFakeProviders, type FakeProviders } from '../helpers/fake-providers.js';
import { startLocalServer, type LocalServer } from '../helpers/http-agents.js';
import type { Json } from '../helpers/json.js';
import { startServer, tempDir, type TestServer } from '../helpers/server.js';
import { dropStore, storedRows } from '../helpers/store-under-test.js';
import { FAST_RETRY, nextSync, syncEnds } from '../providers/helpers.js';

/**
 * `agent_config.provider_hash`: the SHA-256 of the provider's raw agent record as a sync keeps it
 * (no volatile fields, no secrets), so that the voice pipeline counts; an http agent's, of how it
 * is reached (never a key or token). A change only the raw record shows is a new version.
 */

const HEX64 = /^[0-9a-f]{64}$/;

/** A Vapi assistant's voice pipeline: each field a test changes alone. */
const PIPELINE = {
  transcriber: { provider: 'deepgram', model: 'nova-2', language: 'en' },
  startSpeakingPlan: { waitSeconds: 0.4 },
  stopSpeakingPlan: { numWords: 0, voiceSeconds: 0.2 },
  silenceTimeoutSeconds: 30,
  backgroundSound: 'off',
  server: { url: 'https://hooks.example/vapi', secret: 'whsec-do-not-keep' },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

/** Each voice-pipeline change, and the raw path its version names. */
const CHANGES: [string, (a: Json) => void][] = [
  ['raw.transcriber.model', (a) => (a.transcriber.model = 'nova-3')],
  ['raw.startSpeakingPlan.waitSeconds', (a) => (a.startSpeakingPlan.waitSeconds = 1.2)],
  ['raw.stopSpeakingPlan.numWords', (a) => (a.stopSpeakingPlan.numWords = 2)],
  ['raw.silenceTimeoutSeconds', (a) => (a.silenceTimeoutSeconds = 12)],
  ['raw.voice.speed', (a) => (a.voice.speed = 1.3)],
  ['raw.backgroundSound', (a) => (a.backgroundSound = 'office')],
];

describe('provider_hash', () => {
  let s: TestServer | null = null;
  let p: FakeProviders | null = null;
  let agentServer: LocalServer | null = null;
  let dataDir: string | null = null;

  afterEach(async () => {
    await s?.stop();
    await p?.stop();
    await agentServer?.stop();
    s = p = agentServer = null;
    // The pure test makes no store.
    if (dataDir) await dropStore(dataDir);
    dataDir = null;
  });

  const start = () => startServer({ dataDir: dataDir!, providerRetry: FAST_RETRY });

  /** Connects the fake provider's agent and waits for its first sync; answers its id. */
  async function connect(provider: string, agentId: string): Promise<string> {
    const syncs = syncEnds(s!);
    const res = await s!.call('POST', '/v1/agents/connect', {
      provider,
      agent_id: agentId,
      credentials: { api_key: GOOD_KEY, base_url: p!.url },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const id = res.body.id as string;
    expect((await syncs.of(id)).ok).toBe(true);
    return id;
  }

  /** Syncs once; answers the config_changed events it fired and the versions, newest first. */
  async function sync(id: string) {
    const events: unknown[] = [];
    const off = s!.engine.events.subscribe(
      (e) => e.type === 'agent.config_changed' && events.push(e.data),
    );
    const done = nextSync(s!, id);
    await s!.call('POST', `/v1/agents/${id}/sync`);
    expect((await done).ok).toBe(true);
    off();
    const versions = (await s!.call('GET', `/v1/agents/${id}/versions`)).body.versions as Json[];
    return { events, versions };
  }

  /** The raw record the agent keeps now: a simulation's provider_hash is its SHA-256. */
  async function storedRaw(id: string): Promise<Record<string, unknown> | undefined> {
    return (await s!.engine.store.agents.get(id))!.snapshot.raw;
  }
  const hashNow = async (id: string) => canonicalHash(await storedRaw(id));

  it('is stable across key order and volatile fields; secrets are never kept', () => {
    const a = { name: 'Sam', ...PIPELINE, voice: { voiceId: 'v', speed: 1 }, id: 'asst_1' };
    const reordered = Object.fromEntries(Object.entries(a).reverse());
    expect(canonicalHash(rawRecord('vapi', reordered))).toBe(canonicalHash(rawRecord('vapi', a)));
    const refetched = { ...a, updatedAt: '2026-05-05T05:05:05.000Z', id: 'asst_1', orgId: 'o2' };
    expect(canonicalHash(rawRecord('vapi', refetched))).toBe(canonicalHash(rawRecord('vapi', a)));
    expect(canonicalJson(rawRecord('vapi', a))).not.toContain('whsec');
    const changed = { ...a, transcriber: { ...a.transcriber, model: 'nova-3' } };
    expect(canonicalHash(rawRecord('vapi', changed))).not.toBe(canonicalHash(rawRecord('vapi', a)));
    // Retell: counters and modification times, its LLM's too, do not count.
    const retell = { agent_id: 'r', voice_speed: 1, version: 3, last_modification_timestamp: 1 };
    const llm = { llm_id: 'l', model: 'gpt-4o', version: 2, last_modification_timestamp: 5 };
    const before = rawRecord('retell', { ...retell, response_engine: { llm } });
    const after = rawRecord('retell', {
      ...retell,
      version: 4,
      last_modification_timestamp: 9,
      response_engine: { llm: { ...llm, version: 3, last_modification_timestamp: 8 } },
    });
    expect(canonicalHash(after)).toBe(canonicalHash(before));
  });

  it('Vapi: each voice-pipeline field is a new version naming its raw path, and a new hash', async () => {
    dataDir = tempDir();
    p = await startFakeProviders();
    Object.assign(p.state.vapiAssistant, structuredClone(PIPELINE));
    p.state.vapiAssistant.voice.speed = 1;
    s = await start();
    const id = await connect('vapi', 'asst_1');
    const raw = (await storedRaw(id))!;
    expect(raw).toMatchObject({ transcriber: { model: 'nova-2' }, backgroundSound: 'off' });
    expect(raw).not.toHaveProperty('updatedAt');
    expect(raw).not.toHaveProperty('id');
    // The webhook secret is kept nowhere: not in the agent, not in its versions.
    const rows = await storedRows<{ c: string }>(
      s.stored,
      'SELECT configuration AS c FROM agent_versions UNION ALL SELECT snapshot AS c FROM agents',
    );
    for (const r of rows) expect(r.c).not.toContain('whsec');
    const seen = new Set([await hashNow(id)]);
    let versions = 1;

    for (const [path, change] of CHANGES) {
      change(p.state.vapiAssistant);
      const synced = await sync(id);
      versions++;
      expect(synced.versions).toHaveLength(versions);
      expect(synced.versions[0]).toMatchObject({ version: versions, changedPaths: [path] });
      expect(synced.events).toEqual([{ agentId: id, changedPaths: [path] }]);
      const hash = await hashNow(id);
      expect(seen.has(hash), path).toBe(false);
      seen.add(hash);
    }

    // A refetch with new timestamps is the same agent: no version, the same hash.
    const last = await hashNow(id);
    p.state.vapiAssistant.updatedAt = '2026-07-07T07:07:07.000Z';
    p.state.vapiAssistant.createdAt = '2026-07-01T00:00:00.000Z';
    const quiet = await sync(id);
    expect(quiet.versions).toHaveLength(versions);
    expect(quiet.events).toEqual([]);
    expect(await hashNow(id)).toBe(last);

    // A normalised change names only the normalised paths, as before raw records were kept.
    p.state.vapiAssistant.model.temperature = 0.9;
    const normalised = await sync(id);
    expect(normalised.versions[0]!.changedPaths).toEqual(['configuration.model.temperature']);

    // After a restart on the same data dir: the same record, no new version, the same hash.
    const beforeRestart = await hashNow(id);
    await s.stop();
    s = await start();
    const again = await sync(id);
    expect(again.versions).toHaveLength(versions + 1);
    expect(await hashNow(id)).toBe(beforeRestart);
  }, 120_000);

  it('Retell, ElevenLabs, Bland: a change only the raw record shows is a version naming it', async () => {
    dataDir = tempDir();
    p = await startFakeProviders();
    s = await start();
    const cases: [string, string, () => void, string][] = [
      [
        'retell',
        'ret_1',
        () => (p!.state.retellAgent.interruption_sensitivity = 0.4),
        'raw.interruption_sensitivity',
      ],
      ['retell', 'ret_1', () => (p!.state.retellAgent.voice_speed = 1.2), 'raw.voice_speed'],
      [
        'elevenlabs',
        'el_1',
        () => (p!.state.elevenAgent.conversation_config.tts.speed = 1.1),
        'raw.conversation_config.tts.speed',
      ],
      [
        'bland',
        'bl_1',
        () => (p!.state.blandAgent.agent.background_track = 'office'),
        'raw.background_track',
      ],
    ];
    const ids = new Map<string, string>();
    for (const [provider, agentId, change, path] of cases) {
      const id = ids.get(agentId) ?? (await connect(provider, agentId));
      ids.set(agentId, id);
      const before = await hashNow(id);
      const count = (await sync(id)).versions.length;
      change();
      const synced = await sync(id);
      expect(synced.versions, provider).toHaveLength(count + 1);
      expect(synced.versions[0]!.changedPaths, provider).toEqual([path]);
      expect(synced.events).toEqual([{ agentId: id, changedPaths: [path] }]);
      expect(await hashNow(id)).not.toBe(before);
    }
    // The Retell LLM's record is part of the agent's: a change there is a raw path too.
    const retell = ids.get('ret_1')!;
    p.state.retellLlm.model_high_priority = true;
    const llm = await sync(retell);
    expect(llm.versions[0]!.changedPaths).toEqual(['raw.response_engine.llm.model_high_priority']);
    // Tool headers carry keys: never kept.
    expect(canonicalJson(await storedRaw(retell))).not.toContain('Bearer x');
  }, 120_000);

  it('a version synced before raw records were kept gets the record, with no new version', async () => {
    dataDir = tempDir();
    p = await startFakeProviders();
    s = await start();
    const id = await connect('vapi', 'asst_1');
    // What a sync of an earlier build left: versions and the agent without the raw record.
    const { raw: _raw, ...old } = (await s.engine.store.agents.get(id))!.snapshot;
    await storedRows(s.stored, 'UPDATE agent_versions SET configuration = ? WHERE agent_id = ?', [
      JSON.stringify(old),
      id,
    ]);
    await s.engine.store.agents.update(id, { snapshot: old });
    const quiet = await sync(id);
    expect(quiet.versions).toHaveLength(1);
    expect(quiet.events).toEqual([]);
    const kept = await storedRows<{ c: string }>(
      s.stored,
      'SELECT configuration AS c FROM agent_versions WHERE agent_id = ?',
      [id],
    );
    expect(JSON.parse(kept[0]!.c).raw).toMatchObject({ name: 'Support Sam' });
    // From then on a raw-only change is a version.
    p.state.vapiAssistant.backgroundSound = 'office';
    const changed = await sync(id);
    expect(changed.versions[0]).toMatchObject({
      version: 2,
      changedPaths: ['raw.backgroundSound'],
    });
  }, 60_000);

  it('simulations record it, inside agent_config.hash; an http agent hashes how it is reached, no secret', async () => {
    dataDir = tempDir();
    p = await startFakeProviders();
    agentServer = await startLocalServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { content: 'Hello, how can I help?' } }] }));
    });
    s = await start();
    const vapi = await connect('vapi', 'asst_1');
    const connectHttp = (credentials: Json) =>
      s!.call('POST', '/v1/agents/connect', {
        provider: 'http',
        agent_id: 'in-house',
        format: 'openai',
        credentials,
      });
    const credentials = {
      base_url: `${agentServer.url}/v1?token=query-secret-1`,
      api_key: 'sk-agent-secret-1',
      model: 'house-model',
      websocket_url: 'ws://127.0.0.1:9/media?token=ws-secret-1',
    };
    const http = (await connectHttp(credentials)).body.id as string;
    const persona = (await s.ws('POST', '/personas', { name: 'Quinn', prompt: 'Calm.' })).body.data
      .persona.id as string;
    const scorecard = (
      await s.ws('POST', '/scorecards', {
        name: 'Greets',
        metrics: [
          { name: 'Hello', category: 'accuracy', type: 'contains', config: { text: 'Hi' } },
        ],
      })
    ).body.data.scorecard.id as string;
    const scenario = (
      await s.ws('POST', '/scenarios', {
        name: 'Hello',
        prompt: 'Say hello.',
        personas: [persona],
        targetAgents: [vapi, http],
        scorecard,
        script: [{ say: 'Hello there' }],
      })
    ).body.data.scenario.id as string;
    const execute = async () => {
      const base = `/api/v1/workspaces/${s!.workspaceId}`;
      const res = await s!.call('POST', `${base}/scenarios/${scenario}/execute`, {});
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      const exe = res.body.data.execution.id as string;
      await s!.call('GET', `${base}/executions/${exe}?wait=60`);
      // As stored (the answer's other fields are others' to test).
      const sims = await s!.engine.store.simulations.simulationsOf(exe);
      expect(sims.map((x) => x.status)).toEqual(['completed', 'completed']);
      return new Map(sims.map((x) => [x.agent_id!, x.agent_config as Json]));
    };

    const first = await execute();
    const onVapi = first.get(vapi)!;
    expect(onVapi.provider_hash).toBe(await hashNow(vapi));
    const onHttp = first.get(http)!;
    expect(onHttp.provider_hash).toMatch(HEX64);
    // What is hashed: provider, format, host and path, model, WebSocket host and path.
    const reached = httpAgentRecord({
      baseUrl: credentials.base_url,
      apiKey: credentials.api_key,
      format: 'openai',
      model: 'house-model',
      websocketUrl: credentials.websocket_url,
    });
    expect(onHttp.provider_hash).toBe(canonicalHash(reached));
    expect(reached).toEqual({
      provider: 'http',
      format: 'openai',
      url: `${new URL(agentServer.url).host}/v1`,
      model: 'house-model',
      websocketUrl: '127.0.0.1:9/media',
    });
    expect(canonicalJson(reached)).not.toMatch(/secret/);

    // New keys and tokens: the same agent reached. Another model: another agent.
    await connectHttp({
      ...credentials,
      api_key: 'sk-agent-secret-2',
      base_url: `${agentServer.url}/v1?token=query-secret-2`,
    });
    p.state.vapiAssistant.backgroundSound = 'office';
    await sync(vapi);
    const second = await execute();
    expect(second.get(http)!.provider_hash).toBe(onHttp.provider_hash);
    expect(second.get(http)!.hash).toBe(onHttp.hash);
    // The raw-only change at Vapi: another provider hash, another version, another agent hash.
    expect(second.get(vapi)).toMatchObject({ version_id: 2 });
    expect(second.get(vapi)!.provider_hash).not.toBe(onVapi.provider_hash);
    expect(second.get(vapi)!.hash).not.toBe(onVapi.hash);

    await connectHttp({ ...credentials, model: 'house-model-2' });
    const third = await execute();
    expect(third.get(http)!.provider_hash).not.toBe(onHttp.provider_hash);
    expect(third.get(http)!.hash).not.toBe(onHttp.hash);
  }, 120_000);
});
