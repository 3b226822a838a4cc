import { z } from 'zod';
import { isSealed, type Sealed } from '../kernel/secret-box.js';
import { DemoKnobs } from './demo.js';
import { AgentMonitoring } from './monitoring.js';
import { RegressionSuite } from './regression.js';
import { Timestamp } from './records.js';

/**
 * The agent (a voice agent connected from its provider, or reached at its own URL), defined once:
 * the provider adapters map into its snapshot, the store reads and writes it through a column map
 * typed by this record, the operations build their schemas from it, and the renderer takes the
 * provider list from the catalogue. A figure the provider does not give is null.
 */

/**
 * Where agents come from: the providers synced through their adapters, agents of our own, and the
 * demo agent the engine serves itself.
 */
export const AGENT_PROVIDERS = ['vapi', 'retell', 'elevenlabs', 'bland', 'http', 'demo'] as const;
export const AGENT_STATUSES = ['active', 'disconnected'] as const;
/** How simulations reach the agent: its provider's chat, our replica of it, or its own URL. */
export const AGENT_CHANNELS = ['provider', 'replica', 'http'] as const;
export const SYNC_STATUSES = ['running', 'idle', 'failed', 'needs_credentials'] as const;

export const AgentTool = z.object({
  name: z.string(),
  description: z.string().nullable(),
  type: z.string().nullable(),
  endpoint: z.string().nullable(),
  method: z.string().nullable(),
  /** The kind of auth the tool uses towards its endpoint (bearer_token, api_key, ...), or none. */
  auth: z.string().describe('bearer_token, api_key, ... or none'),
});
export type AgentTool = z.infer<typeof AgentTool>;

export const AgentConfiguration = z.object({
  model: z.object({
    provider: z.string().nullable(),
    name: z.string().nullable(),
    temperature: z.number().nullable(),
    maxTokens: z.number().int().nullable(),
  }),
  voice: z.object({
    provider: z.string().nullable(),
    voiceId: z.string().nullable(),
    stability: z.number().nullable(),
    similarityBoost: z.number().nullable(),
  }),
  prompt: z.string().nullable(),
  firstMessage: z.string().nullable(),
  tools: z.array(AgentTool),
  /** The demo agent only: its knobs, as local overrides (absent on every other agent). */
  demo: DemoKnobs.optional(),
});
export type AgentConfiguration = z.infer<typeof AgentConfiguration>;

/** What a sync reads of an agent; versions are kept of all of it. */
export const AgentSnapshot = z.object({
  name: z.string(),
  description: z.string().nullable(),
  configuration: AgentConfiguration,
  phoneNumbers: z.array(
    z.object({ number: z.string(), provider: z.string().nullable(), name: z.string().nullable() }),
  ),
  knowledgeBases: z.array(z.object({ id: z.string(), name: z.string().nullable() })),
  routingRules: z.array(z.object({ name: z.string(), destinations: z.array(z.string()) })),
  tags: z.array(z.string()),
  /** Whether the provider offers a text conversation API for this agent (the default channel). */
  textChat: z.boolean(),
  /**
   * The provider's own agent record, without volatile fields and secrets (providers/raw-record.ts):
   * its voice pipeline is there only. Absent on snapshots synced before it was kept, and on
   * agents of our own. Never answered as such; hashed as `agent_config.provider_hash`.
   */
  raw: z.record(z.string(), z.unknown()).optional(),
});
export type AgentSnapshot = z.infer<typeof AgentSnapshot>;

/** The sealing box's envelope (`{"$enc": ...}`), as the credentials are kept at rest. */
const SealedValue = z.custom<Sealed>(isSealed);

/**
 * The agent as stored (its fields in answer order where the answer has them). The answer differs
 * in one place, the operations' `AgentSchema` (built by `agentView`): the credentials are sealed
 * here and never answered; the snapshot is answered as the effective configuration (the overrides
 * on top) and its lists; the overrides as their leaf paths; the sync fields as `sync`.
 */
export const Agent = z.object({
  id: z.string(),
  name: z.string(),
  provider: z.enum(AGENT_PROVIDERS),
  /** The agent's id at its provider (an http agent's: the name it was connected with). */
  providerAgentId: z.string(),
  status: z.enum(AGENT_STATUSES),
  description: z.string().nullable(),
  /** The configuration as last synced (an http agent's: what it was connected with). */
  snapshot: AgentSnapshot,
  /** null: the default, the provider's chat when it has one, else the replica. */
  channel: z.enum(AGENT_CHANNELS).nullable(),
  tags: z.array(z.string()),
  /** Local changes deep-merged over the snapshot (`{configuration: {...}}`), kept across syncs. */
  overrides: z.record(z.string(), z.unknown()),
  syncStatus: z.enum(SYNC_STATUSES),
  lastSyncedAt: Timestamp.nullable(),
  syncError: z.string().nullable(),
  /** Sealed JSON of the provider key or the agent's URL; null once disconnected. */
  credentials: SealedValue.nullable(),
  /** Where the next import of calls starts (the newest imported call's start, epoch ms). */
  callsCursorMs: z.number().nullable(),
  /**
   * A variant's parent (migration 15); null or absent for every other agent. A variant runs its
   * parent's synced configuration with the parent's overrides and then its own on top.
   */
  parentId: z.string().nullable().optional(),
  /** The drift suite (migration 16) run at each new version; null or absent: none. */
  regressionSuite: RegressionSuite.nullable().optional(),
  /** Production monitoring (migration 20); null or absent: never set. */
  monitoring: AgentMonitoring.nullable().optional(),
  /** When monitoring was last turned on: calls imported since are scored (migration 20). */
  monitoringEnabledAt: Timestamp.nullable().optional(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Agent = z.infer<typeof Agent>;

/** What the store may change of an agent: everything but its identity and its creation. */
export type AgentPatch = Partial<
  Omit<Agent, 'id' | 'provider' | 'providerAgentId' | 'parentId' | 'created_at'>
>;

/** One distinct synced configuration of an agent, numbered from 1. */
export const AgentVersion = z.object({
  version: z.number().int(),
  syncedAt: Timestamp,
  changedPaths: z.array(z.string()),
  configuration: AgentConfiguration,
});
export type AgentVersion = z.infer<typeof AgentVersion>;
