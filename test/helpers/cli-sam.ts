import type { TestServer } from './server.js';

/**
 * Inserts "Support Sam" (agt_sam), a Vapi agent with a one-line prompt and no tools, straight into
 * the store: the agent the CLI tests run scenarios against over the replica channel.
 */
export async function insertCliSam(s: TestServer): Promise<void> {
  const now = new Date().toISOString();
  await s.engine.store.agents.insert({
    id: 'agt_sam',
    provider: 'vapi',
    providerAgentId: 'a1',
    name: 'Support Sam',
    status: 'active',
    description: null,
    overrides: {},
    channel: 'replica',
    credentials: null,
    tags: [],
    syncStatus: 'idle',
    lastSyncedAt: null,
    syncError: null,
    callsCursorMs: null,
    created_at: now,
    updated_at: now,
    snapshot: {
      name: 'Support Sam',
      description: null,
      phoneNumbers: [],
      knowledgeBases: [],
      routingRules: [],
      tags: [],
      textChat: true,
      configuration: {
        model: { provider: null, name: null, temperature: null, maxTokens: null },
        voice: { provider: null, voiceId: null, stability: null, similarityBoost: null },
        prompt: 'You are Sam.',
        firstMessage: null,
        tools: [],
      },
    },
  });
}
