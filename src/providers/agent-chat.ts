import type { SecretBox } from '../kernel/secret-box.js';
import type { AgentRecord } from '../store/agents.js';
import { ProviderError } from './client.js';
import { openCredentials, type AgentCredentials } from './credentials.js';
import { httpAgentChat } from './http-agent.js';
import type { ProviderName } from './registry.js';
import type { ChatSession, ProviderAdapter } from './types.js';

const HTTP_AGENT_TIMEOUT_MS = 60_000;

/**
 * A text conversation with the deployed agent: its provider's chat API, or its own URL. `reach`:
 * where the agent is now, for the demo agent (its engine-served URL changes with every start).
 */
export async function openAgentChat(
  agent: AgentRecord,
  secrets: SecretBox,
  adapters: Record<ProviderName, ProviderAdapter>,
  reach?: AgentCredentials,
): Promise<ChatSession> {
  const creds = reach ?? openCredentials(secrets, agent);
  if (!creds || agent.status === 'disconnected')
    throw new ProviderError(
      'auth',
      `Agent ${agent.id} is disconnected: connect it again to talk to it`,
    );
  if (agent.provider === 'http' || agent.provider === 'demo')
    return httpAgentChat(creds, HTTP_AGENT_TIMEOUT_MS);
  const adapter = adapters[agent.provider];
  return adapter.openChat(
    { apiKey: creds.apiKey ?? '', baseUrl: creds.baseUrl ?? adapter.defaultBaseUrl },
    agent.providerAgentId,
    { expectsFirstMessage: Boolean(agent.snapshot.configuration.firstMessage) },
  );
}
