import WebSocket, { type RawData } from 'ws';
import { guardedSocketOptions } from '../net/guard.js';
import { ProviderError, type ProviderCall } from './client.js';
import { obj, str, type Json } from './read.js';
import type { CallToolCall, ChatSession } from './types.js';
import {
  AGENT_MESSAGE_MAX_BYTES,
  AGENT_MESSAGE_TOO_LARGE,
  isMessageTooLarge,
} from '../net/agent-messages.js';

/** A socket message as text, whether ws hands it over as one buffer or as fragments. */
const rawText = (data: RawData): string =>
  Array.isArray(data)
    ? Buffer.concat(data).toString('utf8')
    : Buffer.isBuffer(data)
      ? data.toString('utf8')
      : Buffer.from(data).toString('utf8');

/**
 * The conversation socket's events as a queue: pings answered at once, the rest kept until asked
 * for; a close or a socket error ends every wait.
 */
function socketInbox(socket: WebSocket, timeoutMs: number) {
  const inbox: Json[] = [];
  let waiter: (() => void) | null = null;
  let closed = false;
  let failure: Error | null = null;
  const wake = () => {
    const w = waiter;
    waiter = null;
    w?.();
  };
  socket.on('message', (data) => {
    let event: Json;
    try {
      event = obj(JSON.parse(rawText(data)));
    } catch {
      return;
    }
    // Pings are answered at once, whatever the conversation is waiting for.
    if (event.type === 'ping')
      socket.send(JSON.stringify({ type: 'pong', event_id: obj(event.ping_event).event_id }));
    else {
      inbox.push(event);
      wake();
    }
  });
  socket.on('close', () => {
    closed = true;
    wake();
  });
  socket.on('error', (err) => {
    failure = isMessageTooLarge(err)
      ? new ProviderError('bad_response', AGENT_MESSAGE_TOO_LARGE)
      : new ProviderError('unavailable', `ElevenLabs conversation socket failed: ${err.message}`);
    wake();
  });

  /** The next event of one of `types`; the events skipped on the way are answered too. */
  async function until(types: string[]): Promise<{ event: Json | null; skipped: Json[] }> {
    const skipped: Json[] = [];
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (inbox.length) {
        const event = inbox.shift()!;
        if (event.type === 'error')
          throw new ProviderError(
            'bad_response',
            `ElevenLabs: ${str(event.message) ?? str(obj(event.error_event).message) ?? 'conversation error'}`,
          );
        if (types.includes(String(event.type))) return { event, skipped };
        skipped.push(event);
      }
      if (failure) throw failure;
      if (closed) return { event: null, skipped };
      const left = deadline - Date.now();
      if (left <= 0)
        throw new ProviderError('unavailable', `ElevenLabs did not answer within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }
  return { until, closed: () => closed };
}

/**
 * The conversation socket's URL for an agent, text or audio alike: always a signed URL, which
 * private and public agents both accept, so the key itself never travels on the socket.
 */
export async function elevenLabsConversationUrl(
  call: ProviderCall,
  agentId: string,
): Promise<string> {
  const signed = obj(
    await call({ path: '/v1/convai/conversation/get-signed-url', query: { agent_id: agentId } }),
  );
  const url = str(signed.signed_url);
  if (!url)
    throw new ProviderError(
      'bad_response',
      'ElevenLabs answered no signed_url for the conversation',
    );
  return url;
}

/**
 * ElevenLabs text conversation: the agent's WebSocket with `text_only` set at initiation.
 * Always through a signed URL, which works for private and public agents alike.
 */
export async function elevenLabsChat(
  call: ProviderCall,
  agentId: string,
  expectsFirstMessage: boolean,
  timeoutMs: number,
): Promise<ChatSession> {
  const url = await elevenLabsConversationUrl(call, agentId);
  // One message is capped as on every call socket (ws's own default is 100 MiB).
  const socket = new WebSocket(url, {
    maxPayload: AGENT_MESSAGE_MAX_BYTES,
    ...guardedSocketOptions(url),
  });
  const events = socketInbox(socket, timeoutMs);
  const until = events.until;

  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', (err) =>
      reject(
        new ProviderError('unavailable', `ElevenLabs conversation socket failed: ${err.message}`),
      ),
    );
  });
  socket.send(
    JSON.stringify({
      type: 'conversation_initiation_client_data',
      conversation_config_override: { conversation: { text_only: true } },
    }),
  );
  const init = await until(['conversation_initiation_metadata']);
  if (!init.event)
    throw new ProviderError('unavailable', 'ElevenLabs closed the conversation before it started');
  const first = expectsFirstMessage ? await until(['agent_response']) : null;

  return {
    firstMessage: first?.event ? str(obj(first.event.agent_response_event).agent_response) : null,
    async send(text) {
      if (events.closed()) return { text: '', ended: true, toolCalls: [] };
      socket.send(JSON.stringify({ type: 'user_message', text }));
      const { event, skipped } = await until(['agent_response']);
      const toolCalls: CallToolCall[] = skipped
        .filter((e) => e.type === 'agent_tool_response')
        .map((e) => {
          const t = obj(e.agent_tool_response);
          return {
            name: str(t.tool_name) ?? 'unknown',
            arguments: null,
            result: null,
            success: typeof t.is_error === 'boolean' ? !t.is_error : null,
            latencyMs: null,
          };
        });
      return {
        text: event ? (str(obj(event.agent_response_event).agent_response) ?? '') : '',
        ended: !event || events.closed(),
        toolCalls,
      };
    },
    async close() {
      if (events.closed()) return;
      await new Promise<void>((resolve) => {
        socket.once('close', () => resolve());
        socket.close(1000);
        setTimeout(() => {
          socket.terminate();
          resolve();
        }, 1000).unref();
      });
    },
  };
}
