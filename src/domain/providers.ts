/** The shapes every provider adapter maps into, and the store keeps. A figure the provider does not give is null. */

export interface AgentTool {
  name: string;
  description: string | null;
  type: string | null;
  endpoint: string | null;
  method: string | null;
  /** The kind of auth the tool uses towards its endpoint (bearer_token, api_key, ...), or none. */
  auth: string;
}

export interface AgentConfiguration {
  model: {
    provider: string | null;
    name: string | null;
    temperature: number | null;
    maxTokens: number | null;
  };
  voice: {
    provider: string | null;
    voiceId: string | null;
    stability: number | null;
    similarityBoost: number | null;
  };
  prompt: string | null;
  firstMessage: string | null;
  tools: AgentTool[];
}

/** What a sync reads of an agent; versions are kept of all of it. */
export interface AgentSnapshot {
  name: string;
  description: string | null;
  configuration: AgentConfiguration;
  phoneNumbers: { number: string; provider: string | null; name: string | null }[];
  knowledgeBases: { id: string; name: string | null }[];
  routingRules: { name: string; destinations: string[] }[];
  tags: string[];
  /** Whether the provider offers a text conversation API for this agent (the default channel). */
  textChat: boolean;
}

export interface TranscriptTurn {
  role: 'user' | 'agent';
  text: string;
  startMs: number | null;
  endMs: number | null;
}

export interface CallToolCall {
  name: string;
  arguments: unknown;
  result: unknown;
  success: boolean | null;
  latencyMs: number | null;
}

export interface NormalizedCall {
  providerCallId: string;
  startedAt: string | null;
  endedAt: string | null;
  durationMs: number | null;
  endReason: string | null;
  /** USD, or null when the provider does not bill in a currency. */
  cost: number | null;
  costOriginal: { amount: number; unit: string } | null;
  recordingUrl: string | null;
  summary: string | null;
  successful: boolean | null;
  transcript: TranscriptTurn[];
  toolCalls: CallToolCall[];
  /** The call ended in a provider-side error. */
  providerError: string | null;
}

/** What a connection test answers: whether the other side works for us now, and how fast. */
export interface ConnectionTest {
  ok: boolean;
  latencyMs: number;
  message: string;
}
