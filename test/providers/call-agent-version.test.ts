import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  GOOD_KEY,
  startFakeProviders,
  T0,
  vapiCall,
  type FakeProviders,
} from '../helpers/fake-providers.js';
import { startServer, testClock, type TestServer } from '../helpers/server.js';
import { storedRows } from '../helpers/store-under-test.js';
import { FAST_RETRY, nextSync, syncEnds } from './helpers.js';

const MINUTE = 60_000;

/**
 * Each imported call records the agent version in force when it started: the version synced most
 * recently at or before its start, whichever sync imported it; null before the first version.
 */
describe('imported calls: agentVersion across syncs', () => {
  let s: TestServer;
  let p: FakeProviders;
  // The assistant is connected 10 minutes after its first calls started.
  const clock = testClock(T0 + 10 * MINUTE);

  beforeEach(async () => {
    clock.set(new Date(T0 + 10 * MINUTE).toISOString());
    p = await startFakeProviders();
    p.state.vapiCalls = [0, 1, 4].map((i) => vapiCall(i));
    s = await startServer({ clock, providerRetry: FAST_RETRY });
  });
  afterEach(async () => {
    await s.stop();
    await p.stop();
  });

  const connected = async (): Promise<string> => {
    const syncs = syncEnds(s);
    const res = await s.call('POST', '/v1/agents/connect', {
      provider: 'vapi',
      agent_id: 'asst_1',
      credentials: { api_key: GOOD_KEY, base_url: p.url },
    });
    expect(res.status).toBe(201);
    expect((await syncs.of(res.body.id)).ok).toBe(true);
    return res.body.id as string;
  };
  const syncAt = async (agentId: string, minute: number) => {
    clock.set(new Date(T0 + minute * MINUTE).toISOString());
    const done = nextSync(s, agentId);
    expect((await s.call('POST', `/v1/agents/${agentId}/sync`)).status).toBe(202);
    expect((await done).ok).toBe(true);
  };
  /** Provider call id → agentVersion, as the list and the call itself answer. */
  const versions = async (agentId: string) => {
    const { calls } = (await s.call('GET', `/v1/agents/${agentId}/calls?limit=100`)).body;
    const byId: Record<string, number | null> = {};
    for (const c of calls as {
      id: string;
      providerCallId: string;
      agentVersion: number | null;
    }[]) {
      const one = (await s.call('GET', `/v1/calls/${c.id}`)).body;
      expect(one.agentVersion).toBe(c.agentVersion);
      byId[c.providerCallId] = c.agentVersion;
    }
    return byId;
  };

  it('null before the first version; a call gets the version in force at its start, not the one of the sync that imported it', async () => {
    const agentId = await connected();
    expect(await versions(agentId)).toEqual({ vc_0: null, vc_1: null, vc_4: null });

    // Calls at minutes 12 and 15 (under version 1), 25 (after the change synced at minute 20).
    p.state.vapiCalls.push(vapiCall(12), vapiCall(15), vapiCall(25));
    p.state.vapiAssistant = { ...p.state.vapiAssistant, firstMessage: 'Hello again.' };
    await syncAt(agentId, 20);
    // Another change at minute 33; calls at 30 (version 2) and 35 (version 3) arrive in its sync.
    p.state.vapiCalls.push(vapiCall(30), vapiCall(35));
    p.state.vapiAssistant = { ...p.state.vapiAssistant, firstMessage: 'Hello once more.' };
    await syncAt(agentId, 33);

    const synced = (await s.call('GET', `/v1/agents/${agentId}/versions`)).body.versions as {
      version: number;
      syncedAt: string;
    }[];
    expect(synced.map((v) => [v.version, v.syncedAt]).sort()).toEqual([
      [1, new Date(T0 + 10 * MINUTE).toISOString()],
      [2, new Date(T0 + 20 * MINUTE).toISOString()],
      [3, new Date(T0 + 33 * MINUTE).toISOString()],
    ]);
    expect(await versions(agentId)).toEqual({
      vc_0: null,
      vc_1: null,
      vc_4: null,
      vc_12: 1,
      vc_15: 1,
      vc_25: 2,
      vc_30: 2,
      vc_35: 3,
    });
    const stored = await storedRows<{ provider_call_id: string; agent_version: number | null }>(
      s.stored,
      'SELECT provider_call_id, agent_version FROM calls WHERE agent_id = ? ORDER BY started_ms',
      [agentId],
    );
    expect(stored.map((r) => r.agent_version)).toEqual([null, null, null, 1, 1, 2, 2, 3]);
  });

  it('a sync without a configuration change keeps the version: later calls stay on it', async () => {
    const agentId = await connected();
    p.state.vapiCalls.push(vapiCall(11));
    await syncAt(agentId, 12);
    p.state.vapiCalls.push(vapiCall(40));
    await syncAt(agentId, 41);
    expect(await versions(agentId)).toMatchObject({ vc_4: null, vc_11: 1, vc_40: 1 });
    expect((await s.call('GET', `/v1/agents/${agentId}/versions`)).body.versions).toHaveLength(1);
  });
});
