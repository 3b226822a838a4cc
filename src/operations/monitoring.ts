import { z } from 'zod';
import { isoNow } from '../clock.js';
import {
  AgentMonitoring,
  DEFAULT_SHORT_CALL_MS,
  sampleReason,
  type CallEvaluation,
} from '../domain/monitoring.js';
import { conflict, invalidField, notFound } from '../errors.js';
import type { AgentRecord } from '../store/agents.js';
import { evaluationOf } from '../store/call-evaluations.js';
import type { StoredCall } from '../store/calls.js';
import { Id } from './common.js';
import { defineOperation, type OperationContext } from './types.js';

/**
 * Production monitoring's operations: the settings an agent PATCH takes (checked here), the
 * backfill, scoring one call now, and the evaluation every answered call carries.
 */

/** PATCH /v1/agents/{id} {monitoring}: the fields to change (the rest keep theirs); null: off. */
export const MonitoringPatch = z
  .strictObject({
    workspaceId: Id.describe('The workspace whose scorecard scores the calls'),
    scorecardId: Id.describe('A scorecard of workspaceId'),
    sampleRate: AgentMonitoring.shape.sampleRate,
    enabled: AgentMonitoring.shape.enabled,
    shortCallMs: AgentMonitoring.shape.shortCallMs.describe(
      'Calls shorter than this (ms) are always scored (default 10000)',
    ),
  })
  .partial()
  .nullable()
  .optional()
  .describe(
    'Production monitoring: score imported calls with a scorecard (fields not sent keep their value; null turns it off)',
  );
type MonitoringPatch = z.infer<typeof MonitoringPatch>;

/** What an agent record changes to for the patch: its monitoring and when it was turned on. */
export async function checkedMonitoring(
  ctx: OperationContext,
  agent: AgentRecord,
  patch: MonitoringPatch,
): Promise<Pick<AgentRecord, 'monitoring' | 'monitoringEnabledAt'> | undefined> {
  if (patch === undefined) return undefined;
  if (patch === null) return { monitoring: null, monitoringEnabledAt: null };
  const was = agent.monitoring ?? null;
  const merged = { shortCallMs: DEFAULT_SHORT_CALL_MS, ...(was ?? {}), ...patch };
  for (const field of ['workspaceId', 'scorecardId', 'sampleRate', 'enabled'] as const)
    if (merged[field] === undefined)
      throw invalidField(`monitoring.${field}`, 'is required to turn monitoring on');
  const monitoring = merged as AgentMonitoring;
  if (!(await ctx.store.workspaces.get(monitoring.workspaceId)))
    throw invalidField('monitoring.workspaceId', `unknown workspace: ${monitoring.workspaceId}`);
  if (!(await ctx.store.scorecards.get(monitoring.workspaceId, monitoring.scorecardId)))
    throw invalidField(
      'monitoring.scorecardId',
      `no scorecard ${monitoring.scorecardId} in workspace ${monitoring.workspaceId}`,
    );
  // Turned on now: the calls imported from here on are scored; the past only by a backfill.
  const turnedOn = monitoring.enabled && !was?.enabled;
  return {
    monitoring,
    monitoringEnabledAt: turnedOn ? isoNow(ctx.clock) : (agent.monitoringEnabledAt ?? null),
  };
}

/** The calls with their evaluations (one read for the page). */
export async function withEvaluations<C extends StoredCall>(
  ctx: OperationContext,
  calls: C[],
): Promise<(C & { evaluation: CallEvaluation | null })[]> {
  const found = await ctx.store.callEvaluations.forCalls(calls.map((c) => c.id));
  return calls.map((c) => {
    const e = found.get(c.id);
    return { ...c, evaluation: e ? evaluationOf(e) : null };
  });
}

async function monitoredAgent(ctx: OperationContext, id: string): Promise<AgentRecord> {
  const agent = await ctx.store.agents.get(id);
  if (!agent) throw notFound('agent', id);
  return agent;
}

/** Of the agent's newest `limit` calls since `since`, queues those the sample takes, unscored. */
async function backfill(
  ctx: OperationContext,
  agent: AgentRecord,
  p: { limit: number; since: string | undefined },
): Promise<number> {
  const monitoring = agent.monitoring;
  if (!monitoring?.enabled)
    throw conflict('Monitoring is off for this agent: turn it on with PATCH /v1/agents/{id}');
  const candidates = await ctx.store.callEvaluations.backfillCandidates(agent.id, {
    limit: p.limit,
    sinceMs: p.since ? Date.parse(p.since) : null,
  });
  const jobs = candidates
    .filter((c) => !c.covered && sampleReason(monitoring, c) !== null)
    .map((c) => ({ callId: c.id, agentId: agent.id, reason: 'backfill' as const }));
  // A call whose scoring failed for good is queued afresh (the others have no job at all).
  const queued = await ctx.store.callEvaluations.enqueue(jobs, isoNow(ctx.clock), true);
  if (queued) ctx.callEvaluator.enqueued();
  return queued;
}

export const monitoringOperations = [
  defineOperation({
    name: 'agents.monitoringBackfill',
    summary:
      "Score the agent's past calls: of its newest `limit` calls (started at or after `since`), queue those the current sample takes that have no evaluation (409 when monitoring is off)",
    http: { method: 'POST', path: '/v1/agents/:agent_id/monitoring/backfill', status: 202 },
    params: { agent_id: Id },
    body: {
      limit: z.number().int().min(1).max(500).optional().describe('1 to 500 (default 500)'),
      since: z.iso
        .datetime({ offset: true })
        .optional()
        .describe('ISO 8601: only calls started at or after it'),
    },
    output: z.object({ queued: z.number().int().describe('Calls queued for scoring') }),
    async handler({ agent_id, limit, since }, ctx) {
      const agent = await monitoredAgent(ctx, agent_id);
      return { queued: await backfill(ctx, agent, { limit: limit ?? 500, since }) };
    },
  }),
  defineOperation({
    name: 'calls.evaluate',
    summary:
      "Score one imported call now with its agent's monitoring scorecard (in the background; the call's evaluation shows it, reason on_demand)",
    http: { method: 'POST', path: '/v1/calls/:call_id/evaluate', status: 202 },
    params: { call_id: Id },
    output: z.object({ queued: z.boolean() }),
    async handler({ call_id }, ctx) {
      const call = await ctx.store.calls.get(call_id);
      if (!call) throw notFound('call', call_id);
      const agent = await monitoredAgent(ctx, call.agentId);
      if (!agent.monitoring)
        throw invalidField(
          'monitoring',
          'the call’s agent has no monitoring scorecard: set one first',
        );
      const at = isoNow(ctx.clock);
      await ctx.store.callEvaluations.enqueue(
        [{ callId: call.id, agentId: agent.id, reason: 'on_demand' }],
        at,
        true,
      );
      ctx.callEvaluator.enqueued();
      return { queued: true };
    },
  }),
];
