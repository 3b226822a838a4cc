import type { AgentSnapshot } from '../../src/providers/types.js';
import type { Agent } from '../../src/domain/agents.js';

/**
 * The synced record of "Support Sam", the Vapi agent tests insert straight into the store: an
 * order-support prompt and its `order_status` function tool. `textChat` false: an agent the
 * provider cannot reach by text (the replica channel then).
 */
export const supportSamSnapshot = (options: { textChat?: boolean } = {}): AgentSnapshot => ({
  name: 'Support Sam',
  description: null,
  phoneNumbers: [],
  knowledgeBases: [],
  routingRules: [],
  tags: [],
  textChat: options.textChat ?? true,
  configuration: {
    model: { provider: 'openai', name: 'gpt-4o', temperature: 0.3, maxTokens: 200 },
    voice: { provider: null, voiceId: null, stability: null, similarityBoost: null },
    prompt: 'You are Sam, a support agent for an online shop.',
    firstMessage: 'Hello, this is Sam. How can I help?',
    tools: [
      {
        name: 'order_status',
        description: 'Order lookup',
        type: 'function',
        endpoint: null,
        method: null,
        auth: 'none',
      },
    ],
  },
});

/** A prompt-only snapshot (no model, voice or tools): the least a synced agent holds. */
export const promptOnlySnapshot = (name: string, prompt: string): AgentSnapshot => ({
  name,
  description: null,
  phoneNumbers: [],
  knowledgeBases: [],
  routingRules: [],
  tags: [],
  textChat: true,
  configuration: {
    model: { provider: null, name: null, temperature: null, maxTokens: null },
    voice: { provider: null, voiceId: null, stability: null, similarityBoost: null },
    prompt,
    firstMessage: null,
    tools: [],
  },
});

/**
 * A connected Vapi agent on the replica channel as the store keeps it, for tests that insert one
 * straight into the store (`store.agents.insert`): its id, provider id, name, synced snapshot and
 * when it was made.
 */
export function replicaAgent(o: {
  id: string;
  providerAgentId: string;
  snapshot: AgentSnapshot;
  at: string;
}): Agent {
  return {
    id: o.id,
    provider: 'vapi',
    providerAgentId: o.providerAgentId,
    name: o.snapshot.name,
    status: 'active',
    description: null,
    snapshot: o.snapshot,
    overrides: {},
    channel: 'replica',
    credentials: null,
    tags: [],
    syncStatus: 'idle',
    lastSyncedAt: null,
    syncError: null,
    callsCursorMs: null,
    created_at: o.at,
    updated_at: o.at,
  };
}
