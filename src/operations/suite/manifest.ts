import { z } from 'zod';
import { deriveKeys } from '../../domain/suite-keys.js';
import { AgentConnectBody } from '../agents.js';
import { placeholder, secretName, SuiteKey, type FileObject } from './file-common.js';

/**
 * callbench.yaml: the suite's name, the agents its scenarios and alerts name (by key, resolved by
 * provider and provider agent id), and the names of the secret placeholders its files use.
 */

export const MANIFEST_SCHEMA_REF = '.callbench/schemas/suite.json';

const credentials = AgentConnectBody.credentials.shape;

/** An agent of the suite, in agents.connect's terms: an http agent with its URL and format. */
export const ManifestAgent = z.strictObject({
  key: SuiteKey,
  provider: AgentConnectBody.provider,
  providerAgentId: AgentConnectBody.agent_id,
  url: credentials.base_url.describe('http agents: the URL of the agent'),
  format: AgentConnectBody.format,
  apiKey: credentials.api_key.describe('http agents: a ${secret:NAME} placeholder'),
});
export type ManifestAgent = z.infer<typeof ManifestAgent>;

export const SecretNameSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a name such as TOOL_ORD_LOOKUP_AUTH_TOKEN');

export const ManifestSchema = z.strictObject({
  $schema: z.string().max(1_000).optional().describe('Where the JSON Schema of this file is'),
  name: z.string().trim().min(1).max(200).describe("The suite's name (its workspace's)"),
  agents: z.array(ManifestAgent).max(1_000).default([]),
  secrets: z
    .array(SecretNameSchema)
    .max(10_000)
    .default([])
    .describe('The secret placeholder names the files use; their values are never in files'),
});
export type Manifest = z.output<typeof ManifestSchema>;

/** What the export knows of an agent it writes. */
export interface ExportedAgent {
  id: string;
  name: string;
  provider: string;
  providerAgentId: string;
  created_at: string;
  /** http agents: where it is reached and how; `hasApiKey` when a key is stored. */
  http?: { url?: string; format?: string; hasApiKey: boolean };
}

/** Keys of agents are not stored: each is its name's slug among the suite's agents. */
export const agentKeys = (agents: readonly ExportedAgent[]): Map<string, string> =>
  deriveKeys(
    agents.map((a) => ({ id: a.id, name: a.name, key: null, created_at: a.created_at })),
    'agent',
  );

/** One agent as written in callbench.yaml (an http agent's key as a placeholder). */
export function manifestAgent(agent: ExportedAgent, key: string): ManifestAgent {
  const entry: ManifestAgent = {
    key,
    provider: agent.provider,
    providerAgentId: agent.providerAgentId,
  };
  if (agent.http) {
    if (agent.http.url !== undefined) entry.url = agent.http.url;
    entry.format = agent.http.format === 'openai' ? 'openai' : 'simple';
    if (agent.http.hasApiKey) entry.apiKey = placeholder(secretName('agent', key, 'apiKey'));
  }
  return entry;
}

/** callbench.yaml's object: `$schema`, name, agents by key, the secret names sorted. */
export function manifestFile(input: {
  name: string;
  agents: ManifestAgent[];
  secrets: Iterable<string>;
}): FileObject {
  return {
    $schema: MANIFEST_SCHEMA_REF,
    name: input.name,
    agents: [...input.agents].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
    secrets: [...new Set(input.secrets)].sort(),
  };
}
