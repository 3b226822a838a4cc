import type { TokenCounts } from '../domain/simulations.js';
/** What model calls spent, counted as they are made (the simulation stores it by model, too). */
export type Usage = TokenCounts;
/** A language model connection: the OpenAI chat completions API at a base URL, or Anthropic. */
export interface ModelConnection {
  kind: 'openai' | 'anthropic';
  /** OpenAI-compatible servers (OpenAI, Groq, Together, OpenRouter, vLLM, LM Studio, Ollama) or a regional Anthropic host. */
  baseUrl?: string;
  apiKey: string;
  model: string;
}

export const ROLES = ['caller', 'judge', 'replica'] as const;
export type Role = (typeof ROLES)[number];

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
}

export type ChatMessage =
  | { role: 'user' | 'assistant'; content: string; toolCalls?: ToolCallRequest[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

export interface ToolCallRequest {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * An answer that must be one JSON object of a schema: OpenAI-compatible models are asked with
 * `response_format: {type: 'json_schema'}` (the object comes as the text), Anthropic with a tool
 * the model is made to call (the object comes as that tool call's arguments). The schema keeps
 * to what OpenAI's strict mode takes: every property required, no additional properties.
 */
export interface StructuredAnswer {
  name: string;
  description: string;
  schema: Record<string, unknown>;
}

export interface CompletionRequest {
  system?: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  temperature?: number;
  maxTokens?: number;
  /** The answer's shape, when it must be structured (see StructuredAnswer). */
  structured?: StructuredAnswer;
}

export interface Completion {
  text: string;
  toolCalls: ToolCallRequest[];
  /** The connection's model that answered (absent from clients that do not say). */
  model?: string;
}

/** What model calls cost a simulation: every call made, retries included. */
export const emptyUsage = (): Usage => ({
  llm_calls: 0,
  input_tokens: 0,
  cached_input_tokens: 0,
  output_tokens: 0,
});

/** Makes a model call; every attempt is counted in `usage`. */
export type ModelClient = (request: CompletionRequest, usage: Usage) => Promise<Completion>;

/** How model calls are retried and bounded. */
export interface ModelPolicy {
  attempts: number;
  baseDelayMs: number;
  timeoutMs: number;
  /** The cap on a model's answer; the engine's `network.maxResponseMiB` when not given. */
  maxResponseBytes?: number;
}

export const DEFAULT_MODEL_POLICY: ModelPolicy = {
  attempts: 4,
  baseDelayMs: 1_000,
  timeoutMs: 60_000,
};

/** A model call that failed: its HTTP status when the model answered one. */
export class ModelError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}
