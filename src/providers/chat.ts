import type { ProviderCall } from './client.js';
import { ProviderError } from './client.js';
import { arr, functionToolCall, obj, parsedWhenJson, str, type Json } from './read.js';
import type { CallToolCall, ChatSession } from './types.js';

/**
 * The providers' text conversation APIs (the `provider` simulation channel): each keeps the
 * conversation's state the way its provider wants it, and answers what the agent said.
 */

const noClose = async (): Promise<void> => {};

/** Vapi `POST /chat`: the conversation continues from the previous chat's id. */
export function vapiChat(call: ProviderCall, assistantId: string): ChatSession {
  let previousChatId: string | null = null;
  return {
    firstMessage: null,
    async send(text) {
      const answer = obj(
        await call({
          method: 'POST',
          path: '/chat',
          idempotent: false,
          body: { assistantId, input: text, ...(previousChatId ? { previousChatId } : {}) },
        }),
      );
      previousChatId = str(answer.id) ?? previousChatId;
      const said = arr(answer.output)
        .map(obj)
        .filter((m) => m.role === 'assistant');
      const toolCalls: CallToolCall[] = said
        .flatMap((m) => arr(m.tool_calls).map(obj))
        .map(functionToolCall);
      return {
        text: said
          .map((m) => str(m.content))
          .filter(Boolean)
          .join(' '),
        ended: toolCalls.some((t) => t.name === 'endCall'),
        toolCalls,
      };
    },
    close: noClose,
  };
}

/** Retell `POST /agent-playground-completion/{agent_id}`: stateless, the whole history each time. */
export function retellChat(call: ProviderCall, agentId: string): ChatSession {
  const history: Json[] = [];
  return {
    firstMessage: null,
    async send(text) {
      history.push({ role: 'user', content: text });
      const answer = obj(
        await call({
          method: 'POST',
          path: `/agent-playground-completion/${encodeURIComponent(agentId)}`,
          idempotent: false,
          body: { messages: history },
        }),
      );
      const fresh = arr(answer.messages).map(obj);
      history.push(...fresh);
      const calls = new Map<string, CallToolCall>();
      for (const m of fresh) {
        if (m.role === 'tool_call_invocation')
          calls.set(String(m.tool_call_id), {
            name: str(m.name) ?? 'unknown',
            arguments: parsedWhenJson(m.arguments),
            result: null,
            success: null,
            latencyMs: null,
          });
        if (m.role === 'tool_call_result') {
          const c = calls.get(String(m.tool_call_id));
          if (c) {
            c.result = parsedWhenJson(m.content);
            c.success = typeof m.successful === 'boolean' ? m.successful : true;
          }
        }
      }
      const text2 = fresh
        .filter((m) => m.role === 'agent')
        .map((m) => str(m.content))
        .filter(Boolean)
        .join(' ');
      return { text: text2, ended: answer.call_ended === true, toolCalls: [...calls.values()] };
    },
    close: noClose,
  };
}

/** Bland pathway chat: only agents built on a pathway can be talked to in text. */
export async function blandChat(call: ProviderCall, agentId: string): Promise<ChatSession> {
  const raw = obj(await call({ path: `/v1/agents/${encodeURIComponent(agentId)}` }));
  const pathwayId = str(obj(raw.agent ?? raw).pathway_id);
  if (!pathwayId)
    throw new ProviderError(
      'bad_response',
      'Bland offers text chat for pathway agents only, and this agent has no pathway_id: use the replica channel',
    );
  const created = obj(
    await call({
      method: 'POST',
      path: '/v1/pathway/chat/create',
      idempotent: false,
      body: { pathway_id: pathwayId },
    }),
  );
  const chatId =
    str(obj(created.data).chat_id) ??
    str(obj(created.data).id) ??
    str(created.chat_id) ??
    str(created.id);
  if (!chatId)
    throw new ProviderError('bad_response', 'Bland created a pathway chat but answered no chat id');
  return {
    firstMessage: null,
    async send(text) {
      const data = obj(
        obj(
          await call({
            method: 'POST',
            path: `/v1/pathway/chat/${encodeURIComponent(chatId)}`,
            idempotent: false,
            body: { message: text },
          }),
        ).data,
      );
      const replies = arr(data.assistant_responses)
        .map((r) => (typeof r === 'string' ? r : (str(obj(r).content) ?? str(obj(r).text))))
        .filter(Boolean);
      return {
        text: replies.join(' '),
        ended: data.completed === true || data.ended === true,
        toolCalls: [],
      };
    },
    close: noClose,
  };
}
