import type { CallToolCall, ChatSession } from '../providers/types.js';
import { stripEnd } from './caller.js';
import type { Turn } from '../domain/simulations.js';

export type Channel = 'provider' | 'replica' | 'http';

export interface AgentReply {
  text: string;
  ended: boolean;
  toolTurns: Turn[];
}

/** The agent side of a simulated conversation, whichever channel it is reached on. */
export interface AgentUnderTest {
  firstMessage: string | null;
  /** The agent's answer; a request it makes stops when the signal fires (a cancel). */
  reply(callerText: string, signal?: AbortSignal): Promise<AgentReply>;
  close(): Promise<void>;
}

/**
 * A deployed agent (provider chat API, or its own URL): the tools it reports calling become tool
 * turns, and are handed to `onToolCall` (the call log). It ends the conversation when its channel
 * says so, or with the end marker.
 */
export function chatAgent(
  session: ChatSession,
  startedAt: number,
  onToolCall: (call: CallToolCall) => Promise<void> = () => Promise.resolve(),
): AgentUnderTest {
  return {
    firstMessage: session.firstMessage,
    async reply(callerText, signal) {
      const answer = await session.send(callerText, signal);
      const said = stripEnd(answer.text);
      for (const call of answer.toolCalls) await onToolCall(call);
      const toolTurns: Turn[] = answer.toolCalls.map((tc) => ({
        role: 'tool',
        text: '',
        at_ms: Date.now() - startedAt,
        latency_ms: tc.latencyMs,
        tool: { name: tc.name, arguments: tc.arguments, result: tc.result, success: tc.success },
      }));
      return { text: said.text, ended: said.ended || answer.ended, toolTurns };
    },
    close: () => session.close(),
  };
}
