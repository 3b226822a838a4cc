import { z } from 'zod';
import { Timestamp } from './common.js';

/** Response schemas of the agent endpoints, for the OpenAPI document. Null: the provider does not give it. */
const N = <T extends z.ZodType>(t: T) => t.nullable();

const AgentTool = z.object({
  name: z.string(),
  description: N(z.string()),
  type: N(z.string()),
  endpoint: N(z.string()),
  method: N(z.string()),
  auth: z.string().describe('bearer_token, api_key, ... or none'),
});

export const Configuration = z.object({
  model: z.object({
    provider: N(z.string()),
    name: N(z.string()),
    temperature: N(z.number()),
    maxTokens: N(z.number().int()),
  }),
  voice: z.object({
    provider: N(z.string()),
    voiceId: N(z.string()),
    stability: N(z.number()),
    similarityBoost: N(z.number()),
  }),
  prompt: N(z.string()),
  firstMessage: N(z.string()),
  tools: z.array(AgentTool),
});

export const AgentSchema = z.object({
  id: z.string(),
  name: z.string(),
  provider: z.string(),
  providerAgentId: z.string(),
  status: z.enum(['active', 'disconnected']),
  description: N(z.string()),
  configuration: Configuration.describe(
    'Effective: the synced snapshot with local overrides on top',
  ),
  phoneNumbers: z.array(
    z.object({ number: z.string(), provider: N(z.string()), name: N(z.string()) }),
  ),
  knowledgeBases: z.array(z.object({ id: z.string(), name: N(z.string()) })),
  routingRules: z.array(z.object({ name: z.string(), destinations: z.array(z.string()) })),
  channel: z.enum(['provider', 'replica', 'http']),
  tags: z.array(z.string()),
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
    status: z.enum(['running', 'idle', 'failed', 'needs_credentials']),
    lastSyncedAt: N(Timestamp),
    importedCalls: z.number().int(),
    error: N(z.string()),
  }),
  overrides: z
    .array(z.string())
    .describe("Overridden paths from the agent's root, such as configuration.model.temperature"),
  created_at: Timestamp,
  updated_at: Timestamp,
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
    }),
  ),
});

export const AgentErrorSchema = z.object({
  id: z.number().int(),
  at: Timestamp,
  kind: z.enum(['call_error', 'tool_error', 'sync_error']),
  message: z.string(),
  callId: N(z.string()),
});

export const AgentVersionSchema = z.object({
  version: z.number().int(),
  syncedAt: Timestamp,
  changedPaths: z.array(z.string()),
  configuration: Configuration,
});
