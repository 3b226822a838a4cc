/** The shapes every provider adapter maps into, and the store keeps. A figure the provider does not give is null. */

// The agent's own shapes are defined with the agent (zod, so the operations publish them too).
export type { AgentConfiguration, AgentSnapshot, AgentTool } from './agents.js';

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

/** A tool call of an imported call: when in the call it was asked for, besides what it did. */
export interface ImportedToolCall extends CallToolCall {
  /** Ms from the call's start to the request (the provider's own time); null when it gives none. */
  atMs: number | null;
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
  toolCalls: ImportedToolCall[];
  /** The call ended in a provider-side error. */
  providerError: string | null;
}

/** What a connection test answers: whether the other side works for us now, and how fast. */
export interface ConnectionTest {
  ok: boolean;
  latencyMs: number;
  message: string;
}
