import { z } from 'zod';
import {
  Agent,
  AgentConfiguration,
  AgentSnapshot,
  AgentTool,
  AgentVersion,
} from '../domain/agents.js';
import { Timestamp } from './common.js';
import { RegressionSuite } from '../domain/regression.js';
import { AgentMonitoring, CallEvaluation } from '../domain/monitoring.js';

/** Response schemas of the agent endpoints, for the OpenAPI document. Null: the provider does not give it. */
const N = <T extends z.ZodType>(t: T) => t.nullable();

/**
 * The Agent object of the specification, from the stored record. `agentView` is the one place that
 * turns the one into the other, as they differ on purpose: the credentials are sealed at rest and
 * never answered; the snapshot is answered as the effective configuration and its lists, the
 * overrides as their paths, the sync fields as `sync`; the figures of its calls are added.
 */
export const AgentSchema = Agent.pick({
  id: true,
  name: true,
  provider: true,
  providerAgentId: true,
  status: true,
  description: true,
}).extend({
  configuration: AgentConfiguration.describe(
    'Effective: the synced snapshot with local overrides on top',
  ),
  phoneNumbers: AgentSnapshot.shape.phoneNumbers,
  knowledgeBases: AgentSnapshot.shape.knowledgeBases,
  routingRules: AgentSnapshot.shape.routingRules,
  // Answered resolved: a stored null (the default) is answered as the channel it defaults to.
  channel: Agent.shape.channel.unwrap(),
  audio: z
    .object({
      available: z.boolean(),
      reason: z.string().nullable().describe('Why it takes no audio calls; null when it does'),
    })
    .describe(
      'Whether it takes audio calls: a provider with an audio transport and, for http agents, a WebSocket URL (speech settings aside)',
    ),
  tags: Agent.shape.tags,
  workspaces: z
    .array(z.string())
    .describe(
      'Ids of the workspaces it is shared with: their workspace tokens may run it (API keys run every agent)',
    ),
  stats: z.object({
    totalCalls: z.number().int(),
    avgScore: N(z.number()),
    successRate: N(z.number()).describe('Percent of calls the provider judged successful'),
  }),
  usage: z.object({
    totalCalls: z.number().int(),
    totalMinutes: z.number(),
    totalCostUsd: N(z.number()),
  }),
  qualityMetrics: z.object({ successRate: N(z.number()), avgDurationMs: N(z.number().int()) }),
  sync: z.object({
    status: Agent.shape.syncStatus,
    lastSyncedAt: Agent.shape.lastSyncedAt,
    importedCalls: z.number().int(),
    error: Agent.shape.syncError,
  }),
  overrides: z
    .array(z.string())
    .describe("Overridden paths from the agent's root, such as configuration.model.temperature"),
  regressionSuite: RegressionSuite.nullable().describe(
    "The drift suite run at each new version of the agent, compared with the previous version's run; null: none",
  ),
  monitoring: AgentMonitoring.nullable().describe(
    'Production monitoring: which scorecard scores its imported calls, and how many; null when never set or turned off',
  ),
  parentId: z
    .string()
    .nullable()
    .describe(
      "A variant's parent agent (its synced configuration and overrides are the parent's, its own on top); null for every other agent",
    ),
  created_at: Agent.shape.created_at,
  updated_at: Agent.shape.updated_at,
});

export const AgentToolEntry = AgentTool.extend({
  successRate: N(z.number()).describe('Percent'),
  avgResponseTime: N(z.number()).describe('ms'),
});

export const CallSchema = z.object({
  id: z.string(),
  agentId: z.string(),
  providerCallId: z.string(),
  startedAt: N(Timestamp),
  endedAt: N(Timestamp),
  durationMs: N(z.number().int()),
  endReason: N(z.string()),
  cost: N(z.number()).describe('USD'),
  costOriginal: N(z.object({ amount: z.number(), unit: z.string() })),
  recordingUrl: N(z.string()),
  summary: N(z.string()),
  successful: N(z.boolean()),
  transcript: z.array(
    z.object({
      role: z.enum(['user', 'agent']),
      text: z.string(),
      startMs: N(z.number()),
      endMs: N(z.number()),
    }),
  ),
  toolCalls: z.array(
    z.object({
      name: z.string(),
      arguments: z.unknown(),
      result: z.unknown(),
      success: N(z.boolean()),
      latencyMs: N(z.number()),
      atMs: N(z.number()).describe(
        "ms from the call's start to the request (as the provider times it); null when unknown",
      ),
    }),
  ),
  agentVersion: N(z.number().int()).describe(
    'The agent version (GET /v1/agents/{id}/versions) synced most recently at or before the call started; null for a call before the first synced version',
  ),
  evaluation: CallEvaluation.nullable().describe(
    "Its score on the agent's monitoring scorecard (reason: sampled, failed, short, backfill or on_demand); null until scored",
  ),
});

export const AgentErrorSchema = z.object({
  id: z.number().int(),
  at: Timestamp,
  kind: z.enum(['call_error', 'tool_error', 'sync_error']),
  message: z.string(),
  callId: N(z.string()),
});

export const AgentVersionSchema = AgentVersion;
