import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NormalizedCall } from '../../src/domain/providers.js';
import type { ToolCallRecord } from '../../src/domain/tools.js';
import { startFakeProviders, GOOD_KEY, type FakeProviders } from '../helpers/fake-providers.js';
import { startServer, testClock, type TestServer } from '../helpers/server.js';
import { storedRows } from '../helpers/store-under-test.js';
import { FAST_RETRY, syncEnds } from './helpers.js';

/** A call as an adapter hands it over; `over` changes any field. */
const call = (n: number, over: Partial<NormalizedCall> = {}): NormalizedCall => ({
  providerCallId: `pc_${n}`,
  startedAt: new Date(Date.parse('2026-06-01T00:00:00Z') + n * 1000).toISOString(),
  endedAt: null,
  durationMs: n,
  endReason: 'hangup',
  cost: n / 100,
  costOriginal: { amount: n / 100, unit: 'USD' },
  recordingUrl: null,
  summary: `call ${n}`,
  successful: n % 2 === 0,
  transcript: [{ role: 'user', text: `hello ${n}`, startMs: 0, endMs: 10 }],
  toolCalls: [],
  providerError: null,
  ...over,
});

/**
 * The call store and the tool-call log compile a statement once per shape (a row count) and bind
 * later batches to it: batches of other sizes, repeats and missing values must land as before.
 */
describe('imported calls: batches bound to statements compiled once', () => {
  let s: TestServer;
  let p: FakeProviders;
  let agentId: string;
  const clock = testClock(Date.parse('2026-06-10T12:00:00Z'));

  beforeEach(async () => {
    p = await startFakeProviders();
    p.state.vapiCalls = [];
    s = await startServer({ clock, providerRetry: FAST_RETRY });
    const syncs = syncEnds(s);
    const res = await s.call('POST', '/v1/agents/connect', {
      provider: 'vapi',
      agent_id: 'asst_1',
      credentials: { api_key: GOOD_KEY, base_url: p.url },
    });
    agentId = res.body.id as string;
    expect((await syncs.of(agentId)).ok).toBe(true);
  });
  afterEach(async () => {
    await s.stop();
    await p.stop();
  });

  const rows = () =>
    storedRows<{ provider_call_id: string; summary: string | null; successful: number | null }>(
      s.stored,
      'SELECT provider_call_id, summary, successful FROM calls WHERE agent_id = ? ORDER BY started_ms',
      [agentId],
    );

  it('inserts batches of several sizes with one shape each, values in their columns', async () => {
    const calls = s.engine.store.calls;
    const first = await calls.upsert(agentId, [call(1), call(2), call(3)], clock.now());
    const second = await calls.upsert(agentId, [call(4), call(5), call(6)], clock.now());
    const third = await calls.upsert(agentId, [call(7)], clock.now());
    expect([...first, ...second, ...third].map((f) => f.call.providerCallId)).toEqual(
      [1, 2, 3, 4, 5, 6, 7].map((n) => `pc_${n}`),
    );
    expect(await rows()).toEqual(
      [1, 2, 3, 4, 5, 6, 7].map((n) => ({
        provider_call_id: `pc_${n}`,
        summary: `call ${n}`,
        successful: n % 2 === 0 ? 1 : 0,
      })),
    );
  });

  it('keeps the dedup rules: a repeat in a batch once, a known call refreshed, only new ones fresh', async () => {
    const calls = s.engine.store.calls;
    await calls.upsert(agentId, [call(1), call(2)], clock.now());
    const fresh = await calls.upsert(
      agentId,
      [call(2, { summary: 'again' }), call(3), call(3, { summary: 'repeat' }), call(4)],
      clock.now(),
    );
    expect(fresh.map((f) => [f.call.providerCallId, f.call.summary])).toEqual([
      ['pc_3', 'call 3'],
      ['pc_4', 'call 4'],
    ]);
    expect((await rows()).map((r) => [r.provider_call_id, r.summary])).toEqual([
      ['pc_1', 'call 1'],
      ['pc_2', 'again'],
      ['pc_3', 'call 3'],
      ['pc_4', 'call 4'],
    ]);
  });

  it('stores a value an adapter left undefined as NULL, in a batch of a shape already compiled', async () => {
    const calls = s.engine.store.calls;
    await calls.upsert(agentId, [call(1), call(2)], clock.now());
    const loose = call(4, { summary: undefined, endReason: undefined });
    await calls.upsert(agentId, [call(3), loose], clock.now());
    expect((await rows()).slice(2)).toEqual([
      { provider_call_id: 'pc_3', summary: 'call 3', successful: 0 },
      { provider_call_id: 'pc_4', summary: null, successful: 1 },
    ]);
  });

  it('the tool-call log writes batches of several sizes with every column in place', async () => {
    const record = (n: number, over: Partial<ToolCallRecord> = {}): ToolCallRecord => ({
      toolId: `ext_t${n}`,
      toolName: `t${n}`,
      agentId,
      source: 'production',
      startedMs: 1000 + n,
      durationMs: n,
      outcome: 'success',
      statusCode: 200,
      attempts: 1,
      errorMessage: null,
      parameters: { n },
      result: null,
      ...over,
    });
    const log = s.engine.store.toolCalls;
    for (const n of [1, 2, 3]) await log.insert(record(n));
    await log.flush();
    await log.insert(record(4));
    await log.insert(record(5, { statusCode: undefined as unknown as null }));
    await log.flush();
    await log.insert(record(6));
    await log.flush();
    const stored = await storedRows<{
      tool_name: string;
      started_ms: number;
      status_code: number | null;
      parameters: string | null;
    }>(
      s.stored,
      'SELECT tool_name, started_ms, status_code, parameters FROM tool_calls WHERE agent_id = ? ORDER BY started_ms',
      [agentId],
    );
    expect(stored).toEqual(
      [1, 2, 3, 4, 5, 6].map((n) => ({
        tool_name: `t${n}`,
        started_ms: 1000 + n,
        status_code: n === 5 ? null : 200,
        parameters: JSON.stringify({ n }),
      })),
    );
  });
});
