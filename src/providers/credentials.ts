import { AppError } from '../errors.js';
import type { SecretBox } from '../kernel/secret-box.js';
import type { AgentRecord } from '../store/agents.js';

/** What an agent's sealed credentials hold: a provider key, or how to reach an agent of our own. */
export interface AgentCredentials {
  apiKey?: string;
  baseUrl?: string;
  /** Agents reached over HTTP: the shape their endpoint speaks. */
  format?: 'openai' | 'simple';
  /** Agents reached over HTTP in the openai format: the model name sent with each request. */
  model?: string;
  /** Agents reached over HTTP: where they take audio calls (Twilio Media Streams over WebSocket). */
  websocketUrl?: string;
}

export const sealCredentials = (secrets: SecretBox, creds: AgentCredentials) =>
  secrets.seal(JSON.stringify(creds));

/** Stored credentials that no longer open (damaged at rest): the agent must be connected again. */
export class CredentialsUnreadable extends AppError {
  constructor(agent: AgentRecord) {
    super(
      'credentials_unreadable',
      409,
      `The stored credentials of agent ${agent.name} could not be opened (they were damaged at rest): connect the agent again with its API key`,
    );
  }
}

export function openCredentials(secrets: SecretBox, agent: AgentRecord): AgentCredentials | null {
  if (!agent.credentials) return null;
  try {
    return JSON.parse(secrets.open(agent.credentials)) as AgentCredentials;
  } catch {
    throw new CredentialsUnreadable(agent);
  }
}
