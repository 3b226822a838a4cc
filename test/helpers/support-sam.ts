import type { AgentSnapshot } from '../../src/providers/types.js';

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
