import { expect } from 'vitest';
import type { NormalizedCall } from '../../src/domain/providers.js';
import type { MetricResult } from '../../src/domain/simulations.js';
import type { EvaluationReason } from '../../src/domain/monitoring.js';
import { GOOD_KEY, type FakeProviders } from '../helpers/fake-providers.js';
import type { TestServer } from '../helpers/server.js';
import { syncEnds } from '../providers/helpers.js';

/**
 * Production monitoring's tests: an agent connected to the provider fake, a monitoring scorecard,
 * and calls with evaluations stored as the background scorer stores them (its own tests score
 * calls for real; these read what was stored).
 */

/** Connects the fake's Vapi assistant ("Support Sam") and waits for its first sync. */
export async function connectSam(s: TestServer, p: FakeProviders): Promise<string> {
  const ends = syncEnds(s);
  const res = await s.call('POST', '/v1/agents/connect', {
    provider: 'vapi',
    agent_id: 'asst_1',
    credentials: { api_key: GOOD_KEY, base_url: p.url },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const id = res.body.id as string;
  expect(await ends.of(id)).toMatchObject({ ok: true });
  return id;
}

/** A scorecard with a `greet` metric (category quality) and an audio one (never applicable to calls). */
export async function monitoringScorecard(
  s: TestServer,
): Promise<{ id: string; greet: string; wer: string }> {
  const res = await s.ws('POST', '/scorecards', {
    name: 'Production',
    metrics: [
      { name: 'Greets', category: 'quality', type: 'contains', config: { text: 'hello' } },
      { name: 'Heard right', category: 'audio', type: 'max_asr_wer', config: { max: 0.2 } },
    ],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const card = res.body.data.scorecard as { id: string; metrics: { id: string }[] };
  return { id: card.id, greet: card.metrics[0]!.id, wer: card.metrics[1]!.id };
}

/** Monitoring on this scorecard, not sampling anything (the tests store the evaluations). */
export async function monitorWith(s: TestServer, agentId: string, scorecardId: string) {
  const res = await s.call('PATCH', `/v1/agents/${agentId}`, {
    monitoring: { workspaceId: s.workspaceId, scorecardId, sampleRate: 0, enabled: false },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** Stores an imported call started at `startedAt`; answers its id. */
export async function storeCall(
  s: TestServer,
  agentId: string,
  over: Partial<NormalizedCall> & { providerCallId: string; startedAt: string },
): Promise<string> {
  const call: NormalizedCall = {
    endedAt: null,
    durationMs: 60_000,
    endReason: 'customer-ended-call',
    cost: null,
    costOriginal: null,
    recordingUrl: null,
    summary: null,
    successful: true,
    transcript: [{ role: 'user', text: 'hello', startMs: 0, endMs: 500 }],
    toolCalls: [],
    providerError: null,
    ...over,
  };
  const [fresh] = await s.engine.store.calls.upsert(agentId, [call], Date.parse(call.startedAt!));
  return fresh!.id;
}

/** A metric result as the scorer writes it (`status` beside the older `not_applicable` flag). */
export function resultOf(
  metric: { id: string; category: string },
  outcome: 'passed' | 'failed' | 'not_applicable',
): MetricResult {
  const base = {
    metric_id: metric.id,
    name: metric.id,
    category: metric.category,
    type: 'contains',
    reasoning: outcome,
    status: outcome,
  };
  if (outcome === 'not_applicable')
    return { ...base, score: null, passed: null, not_applicable: true };
  return {
    ...base,
    score: outcome === 'passed' ? 100 : 0,
    passed: outcome === 'passed',
  };
}

/** Stores the call's evaluation as the scorer does. */
export async function storeEvaluation(
  s: TestServer,
  e: {
    callId: string;
    agentId: string;
    scorecardId: string;
    score: number | null;
    passed: boolean | null;
    results: MetricResult[];
    reason?: EvaluationReason;
  },
): Promise<void> {
  const call = (await s.engine.store.calls.get(e.callId))!;
  await s.engine.store.callEvaluations.upsert({
    ...e,
    workspaceId: s.workspaceId,
    evaluatedAt: call.startedAt!,
    reason: e.reason ?? 'sampled',
    callStartedAt: call.startedAt,
    agentVersion: call.agentVersion,
  });
}
