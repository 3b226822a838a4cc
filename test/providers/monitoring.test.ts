import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sampledAt, sampleReason, type SampledCall } from '../../src/domain/monitoring.js';
import {
  startFakeProviders,
  vapiCall,
  GOOD_KEY,
  T0,
  type FakeProviders,
} from '../helpers/fake-providers.js';
import { startServer, testClock, type TestServer } from '../helpers/server.js';
import { FAST_RETRY, nextSync, syncEnds } from './helpers.js';

/** A call as the sample rule reads it: long enough, no error, outcome unknown. */
const plain = (id: string, over: Partial<SampledCall> = {}): SampledCall => ({
  providerCallId: id,
  successful: null,
  durationMs: 60_000,
  startedAt: null,
  endedAt: null,
  providerError: false,
  ...over,
});

describe('the monitoring sample', () => {
  // A fixed pseudo-random walk: the same ids every run.
  const ids = Array.from({ length: 5_000 }, (_, i) => `call-${(i * 7919) % 100_003}-${i}`);
  const rates = [0, 0.5, 1, 5, 10, 25, 30, 50, 75, 99, 100];

  it('is monotone: a call taken at a rate is taken at every higher rate', () => {
    const at = { shortCallMs: 10_000 };
    for (const id of ids) {
      const taken = rates.map((r) => sampleReason({ ...at, sampleRate: r }, plain(id)) !== null);
      const first = taken.indexOf(true);
      if (first >= 0) expect(taken.slice(first).every(Boolean), id).toBe(true);
      expect(taken[0]).toBe(false);
      expect(taken.at(-1)).toBe(true);
    }
  });

  it('is deterministic, in [0, 100), and takes about the rate', () => {
    for (const id of ids) {
      const x = sampledAt(id);
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(100);
      expect(sampledAt(id)).toBe(x);
    }
    const at30 = ids.filter((id) => sampledAt(id) < 30).length / ids.length;
    expect(at30).toBeGreaterThan(0.27);
    expect(at30).toBeLessThan(0.33);
  });

  it('always keeps failed and short calls, whatever the rate', () => {
    const none = { sampleRate: 0, shortCallMs: 10_000 };
    for (const id of ids.slice(0, 500)) {
      expect(sampleReason(none, plain(id, { providerError: true }))).toBe('failed');
      expect(sampleReason(none, plain(id, { successful: false }))).toBe('failed');
      expect(sampleReason(none, plain(id, { durationMs: 9_999 }))).toBe('short');
      expect(
        sampleReason(
          none,
          plain(id, {
            durationMs: null,
            startedAt: '2026-06-01T10:00:00Z',
            endedAt: '2026-06-01T10:00:05Z',
          }),
        ),
      ).toBe('short');
      expect(sampleReason(none, plain(id))).toBeNull();
    }
  });
});

describe('monitoring an agent: settings, sampling at import, backfill, evaluate', () => {
  let s: TestServer;
  let p: FakeProviders;
  const clock = testClock(Date.parse('2026-06-10T12:00:00Z'));

  /** Connects the assistant and waits for its first import; answers the agent's id. */
  const connected = async (): Promise<string> => {
    const syncs = syncEnds(s);
    const res = await s.call('POST', '/v1/agents/connect', {
      provider: 'vapi',
      agent_id: 'asst_1',
      credentials: { api_key: GOOD_KEY, base_url: p.url },
    });
    const id = res.body.id as string;
    expect((await syncs.of(id)).ok).toBe(true);
    return id;
  };

  const scorecardIn = async (workspaceId: string): Promise<string> => {
    const res = await s.call('POST', `/api/v1/workspaces/${workspaceId}/scorecards`, {
      name: 'Production',
      metrics: [
        { name: 'Brief', category: 'efficiency', type: 'max_turns', config: { max: 50 } },
        {
          name: 'Says shipped',
          category: 'accuracy',
          type: 'contains',
          config: { text: 'shipped' },
        },
      ],
    });
    expect(res.status).toBe(201);
    return res.body.data.scorecard.id as string;
  };

  const monitor = (agentId: string, monitoring: unknown) =>
    s.call('PATCH', `/v1/agents/${agentId}`, { monitoring });

  /** Imports these calls (added at the provider) with a sync, to its end. */
  const importMore = async (agentId: string, calls: ReturnType<typeof vapiCall>[]) => {
    p.state.vapiCalls.push(...calls);
    const synced = nextSync(s, agentId);
    expect((await s.call('POST', `/v1/agents/${agentId}/sync`)).status).toBe(202);
    expect((await synced).ok).toBe(true);
  };

  const callsOf = async (agentId: string) =>
    (await s.call('GET', `/v1/agents/${agentId}/calls?limit=100`)).body.calls as {
      id: string;
      providerCallId: string;
      evaluation: { reason: string; score: number | null; passed: boolean | null } | null;
    }[];

  /** Until no evaluation job is left (scored, or failed for good). */
  const scored = () =>
    vi.waitFor(async () => expect(await s.engine.store.callEvaluations.pending()).toBe(0), {
      timeout: 10_000,
    });

  beforeEach(async () => {
    p = await startFakeProviders();
    p.state.vapiCalls = Array.from({ length: 20 }, (_, i) => vapiCall(i));
    s = await startServer({ clock, providerRetry: FAST_RETRY });
  });
  afterEach(async () => {
    await s.stop();
    await p.stop();
  });

  it('refuses bad settings naming the path, and changes nothing', async () => {
    const agentId = await connected();
    const scorecardId = await scorecardIn(s.workspaceId);
    const other = await s.call('POST', '/api/v1/workspaces', { name: 'Other' });
    const otherWs = other.body.data.workspace.id as string;
    const good = { workspaceId: s.workspaceId, scorecardId, sampleRate: 30, enabled: true };
    const refusals: [unknown, string][] = [
      [{ ...good, sampleRate: 101 }, 'monitoring.sampleRate'],
      [{ ...good, sampleRate: -1 }, 'monitoring.sampleRate'],
      [{ ...good, workspaceId: otherWs }, 'monitoring.scorecardId'],
      [{ ...good, workspaceId: 'ws_unknown' }, 'monitoring.workspaceId'],
      [{ ...good, colour: 'red' }, 'monitoring.colour'],
      [{ scorecardId, sampleRate: 30, enabled: true }, 'monitoring.workspaceId'],
    ];
    for (const [monitoring, path] of refusals) {
      const res = await monitor(agentId, monitoring);
      expect(res.status, JSON.stringify(monitoring)).toBe(400);
      expect(JSON.stringify(res.body)).toContain(path);
    }
    const agent = await s.call('GET', `/v1/agents/${agentId}`);
    expect(agent.body.monitoring).toBeNull();

    const set = await monitor(agentId, good);
    expect(set.status).toBe(200);
    expect(set.body.monitoring).toEqual({ ...good, shortCallMs: 10_000 });
    // Fields not sent keep their value; a refused change leaves the settings as they were.
    const changed = await monitor(agentId, { sampleRate: 50 });
    expect(changed.body.monitoring).toEqual({ ...good, sampleRate: 50, shortCallMs: 10_000 });
    expect((await monitor(agentId, { sampleRate: 500 })).status).toBe(400);
    expect((await s.call('GET', `/v1/agents/${agentId}`)).body.monitoring.sampleRate).toBe(50);
    const off = await monitor(agentId, null);
    expect(off.body.monitoring).toBeNull();
  });

  it('scores calls imported after it was enabled, never the past; evaluations show on GET and list', async () => {
    const agentId = await connected();
    const scorecardId = await scorecardIn(s.workspaceId);
    expect(
      (
        await monitor(agentId, {
          workspaceId: s.workspaceId,
          scorecardId,
          sampleRate: 100,
          enabled: true,
        })
      ).status,
    ).toBe(200);
    await scored();
    // The 20 calls imported before: none scored.
    expect((await callsOf(agentId)).every((c) => c.evaluation === null)).toBe(true);

    await importMore(agentId, [vapiCall(100), vapiCall(101), vapiCall(102)]);
    await scored();
    const calls = await callsOf(agentId);
    const fresh = calls.filter((c) => ['vc_100', 'vc_101', 'vc_102'].includes(c.providerCallId));
    expect(fresh).toHaveLength(3);
    for (const c of fresh) {
      expect(c.evaluation).toMatchObject({
        workspaceId: s.workspaceId,
        scorecardId,
        score: expect.any(Number),
        passed: expect.any(Boolean),
        evaluatedAt: expect.any(String),
      });
      const one = await s.call('GET', `/v1/calls/${c.id}`);
      expect(one.body.evaluation).toEqual(c.evaluation);
    }
    // vc_100: a pipeline error and (i % 4 === 0) unsuccessful: failed; the others sampled.
    const reasons = Object.fromEntries(fresh.map((c) => [c.providerCallId, c.evaluation!.reason]));
    expect(reasons).toEqual({ vc_100: 'failed', vc_101: 'sampled', vc_102: 'sampled' });
    expect(calls.filter((c) => c.evaluation).length).toBe(3);
    // A rate change never removes an evaluation.
    expect((await monitor(agentId, { sampleRate: 0 })).status).toBe(200);
    expect((await callsOf(agentId)).filter((c) => c.evaluation).length).toBe(3);
  });

  it('at rate 0 keeps only failed and short calls', async () => {
    const agentId = await connected();
    const scorecardId = await scorecardIn(s.workspaceId);
    await monitor(agentId, {
      workspaceId: s.workspaceId,
      scorecardId,
      sampleRate: 0,
      enabled: true,
    });
    const short = vapiCall(201);
    short.endedAt = new Date(T0 + 201 * 60_000 + 4_000).toISOString();
    await importMore(agentId, [vapiCall(200), short, vapiCall(202), vapiCall(203)]);
    await scored();
    const reasons = Object.fromEntries(
      (await callsOf(agentId))
        .filter((c) => c.evaluation)
        .map((c) => [c.providerCallId, c.evaluation!.reason]),
    );
    // vc_200: pipeline error; vc_201: 4 s long; vc_202, vc_203: neither (and rate 0).
    expect(reasons).toEqual({ vc_200: 'failed', vc_201: 'short' });
  });

  it('backfill: 409 when off, limit capped, queues only unscored calls the sample takes', async () => {
    const agentId = await connected();
    const scorecardId = await scorecardIn(s.workspaceId);
    const backfill = (body: unknown) =>
      s.call('POST', `/v1/agents/${agentId}/monitoring/backfill`, body);
    expect((await backfill({})).status).toBe(409);
    await monitor(agentId, {
      workspaceId: s.workspaceId,
      scorecardId,
      sampleRate: 100,
      enabled: true,
    });
    const capped = await backfill({ limit: 501 });
    expect(capped.status).toBe(400);
    expect(JSON.stringify(capped.body)).toContain('limit');
    expect((await backfill({ limit: 0 })).status).toBe(400);
    expect(await s.engine.store.callEvaluations.pending()).toBe(0);

    const first = await backfill({ limit: 5 });
    expect(first.status).toBe(202);
    expect(first.body).toEqual({ queued: 5 });
    await scored();
    const evaluated = (await callsOf(agentId)).filter((c) => c.evaluation);
    // The newest five: vc_19 .. vc_15, each a backfill.
    expect(evaluated.map((c) => c.providerCallId).sort()).toEqual(
      ['vc_15', 'vc_16', 'vc_17', 'vc_18', 'vc_19'].sort(),
    );
    expect(evaluated.every((c) => c.evaluation!.reason === 'backfill')).toBe(true);
    // Those five are scored: the next ten newest bring five more.
    expect((await backfill({ limit: 10 })).body).toEqual({ queued: 5 });
    // Only calls started at or after `since`.
    const since = new Date(T0 + 3 * 60_000).toISOString();
    await scored();
    expect((await backfill({ since })).body).toEqual({ queued: 7 }); // vc_3 .. vc_9
    await scored();
    await monitor(agentId, { enabled: false });
    expect((await backfill({})).status).toBe(409);
  });

  it('evaluate: 404 for an unknown call, 400 naming monitoring without it, 202 and scored', async () => {
    const agentId = await connected();
    const [call] = await callsOf(agentId);
    expect((await s.call('POST', '/v1/calls/call_nope/evaluate')).status).toBe(404);
    const none = await s.call('POST', `/v1/calls/${call!.id}/evaluate`);
    expect(none.status).toBe(400);
    expect(JSON.stringify(none.body)).toContain('monitoring');
    expect(await s.engine.store.callEvaluations.pending()).toBe(0);

    const scorecardId = await scorecardIn(s.workspaceId);
    // Monitoring turned off still names the scorecard to score one call with.
    await monitor(agentId, {
      workspaceId: s.workspaceId,
      scorecardId,
      sampleRate: 0,
      enabled: false,
    });
    const asked = await s.call('POST', `/v1/calls/${call!.id}/evaluate`);
    expect(asked.status).toBe(202);
    await scored();
    const one = await s.call('GET', `/v1/calls/${call!.id}`);
    expect(one.body.evaluation).toMatchObject({ reason: 'on_demand', scorecardId });
    expect(one.body.evaluation.results.map((r: { metric_id: string }) => r.metric_id)).toHaveLength(
      2,
    );
  });
});
