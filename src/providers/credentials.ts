import type { SecretBox } from '../secrets.js';
import type { AgentRecord } from '../store/agents.js';

/** What an agent's sealed credentials hold: a provider key, or how to reach an agent of our own. */
export interface AgentCredentials {
  apiKey?: string;
  baseUrl?: string;
  /** Agents reached over HTTP: the shape their endpoint speaks. */
  format?: 'openai' | 'simple';
  /** Agents reached over HTTP in the openai format: the model name sent with each request. */
  model?: string;
}

export const sealCredentials = (secrets: SecretBox, creds: AgentCredentials) =>
  secrets.seal(JSON.stringify(creds));

export function openCredentials(secrets: SecretBox, agent: AgentRecord): AgentCredentials | null {
  if (!agent.credentials) return null;
  return JSON.parse(secrets.open(agent.credentials as { $enc: string })) as AgentCredentials;
}
