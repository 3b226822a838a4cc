/** The shapes every provider adapter maps into. A figure the provider does not give is null. */
import type { AgentSnapshot, CallToolCall, NormalizedCall } from '../domain/providers.js';

export type {
  AgentConfiguration,
  AgentSnapshot,
  AgentTool,
  CallToolCall,
  ImportedToolCall,
  NormalizedCall,
  TranscriptTurn,
} from '../domain/providers.js';

export interface ProviderContext {
  baseUrl: string;
  apiKey: string;
}

/** What the agent answered to one caller line in a text conversation. */
export interface ChatReply {
  text: string;
  /** The agent ended the conversation. */
  ended: boolean;
  toolCalls: CallToolCall[];
}

/** A text conversation with the deployed agent, through the provider's own chat API. */
export interface ChatSession {
  /** What the agent said before the caller spoke, when the provider's chat shows it. */
  firstMessage: string | null;
  /** One caller turn; the signal aborts the request in flight (adapters that can pass it on). */
  send(text: string, signal?: AbortSignal): Promise<ChatReply>;
  close(): Promise<void>;
}

export interface ProviderAdapter {
  readonly name: string;
  readonly defaultBaseUrl: string;
  fetchAgent(ctx: ProviderContext, agentId: string): Promise<AgentSnapshot>;
  /**
   * Pages of calls that started at or after `sinceMs`, as they arrive: a page is imported before
   * the next is fetched, so memory stays flat however long the history.
   */
  listCalls(
    ctx: ProviderContext,
    agentId: string,
    sinceMs: number,
  ): AsyncGenerator<NormalizedCall[]>;
  /** Opens a text conversation with the deployed agent (the `provider` simulation channel). */
  openChat(
    ctx: ProviderContext,
    agentId: string,
    options: { expectsFirstMessage: boolean },
  ): Promise<ChatSession>;
}
