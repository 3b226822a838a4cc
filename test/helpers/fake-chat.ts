import { handled } from './handled.js';
import type { JsonObject } from './json.js';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

type Json = JsonObject;

/** What every fake deployed agent answers, whichever chat API carries the conversation. */
export function botReply(text: string): {
  text: string;
  tool: { name: string; args: Json } | null;
  ended: boolean;
} {
  const order = /order\s+([A-Z0-9]+)/i.exec(text);
  if (order)
    return {
      text: `Your order ${order[1]} has shipped.`,
      tool: { name: 'order_status', args: { orderId: order[1] } },
      ended: false,
    };
  if (/bye|thank/i.test(text)) return { text: 'Goodbye!', tool: null, ended: true };
  return { text: 'How can I help with your order?', tool: null, ended: false };
}

export interface ChatLog {
  /** Every chat request body, by API: vapi, retell, bland, eleven (user messages), openai, simple. */
  requests: { api: string; body: Json }[];
  /** ElevenLabs: pongs received for the pings sent. */
  pongs: number;
}

export const newChatLog = (): ChatLog => ({ requests: [], pongs: 0 });

/** The providers' text chat endpoints; answers true when it handled the request. */
export function handleProviderChat(
  path: string,
  method: string,
  body: Json,
  host: string,
  log: ChatLog,
  send: (status: number, value: unknown) => void,
): boolean {
  if (method === 'POST' && path === '/chat') {
    log.requests.push({ api: 'vapi', body });
    if (body.assistantId !== 'asst_1') return (send(404, { message: 'no assistant' }), true);
    const r = botReply(String(body.input));
    const calls = [
      ...(r.tool
        ? [
            {
              id: 'tc1',
              type: 'function',
              function: { name: r.tool.name, arguments: JSON.stringify(r.tool.args) },
            },
          ]
        : []),
      ...(r.ended
        ? [{ id: 'tc2', type: 'function', function: { name: 'endCall', arguments: '{}' } }]
        : []),
    ];
    const output = [
      ...(calls.length ? [{ role: 'assistant', content: null, tool_calls: calls }] : []),
      { role: 'assistant', content: r.text },
    ];
    return (
      send(201, {
        id: `chat_${log.requests.length}`,
        assistantId: body.assistantId,
        previousChatId: body.previousChatId,
        output,
        messages: [],
        cost: 0.001,
      }),
      true
    );
  }
  if (method === 'POST' && path === '/agent-playground-completion/ret_1') {
    log.requests.push({ api: 'retell', body });
    const last = [...body.messages].reverse().find((m: Json) => m.role === 'user');
    const r = botReply(String(last?.content));
    const messages = [
      ...(r.tool
        ? [
            {
              role: 'tool_call_invocation',
              tool_call_id: 't1',
              name: r.tool.name,
              arguments: JSON.stringify(r.tool.args),
            },
            {
              role: 'tool_call_result',
              tool_call_id: 't1',
              content: '{"status":"shipped"}',
              successful: true,
            },
          ]
        : []),
      { role: 'agent', content: r.text },
    ];
    return (send(200, { messages, call_ended: r.ended }), true);
  }
  if (method === 'POST' && path === '/v1/pathway/chat/create') {
    log.requests.push({ api: 'bland', body });
    if (body.pathway_id !== 'pw_1') return (send(400, { message: 'unknown pathway' }), true);
    return (send(200, { status: 'success', data: { chat_id: 'bchat_1' } }), true);
  }
  if (method === 'POST' && path === '/v1/pathway/chat/bchat_1') {
    log.requests.push({ api: 'bland', body });
    const r = botReply(String(body.message));
    return (
      send(200, { status: 'success', data: { assistant_responses: [r.text], completed: r.ended } }),
      true
    );
  }
  if (method === 'GET' && path === '/v1/convai/conversation/get-signed-url') {
    return (
      send(200, {
        signed_url: `ws://${host}/v1/convai/conversation?agent_id=el_1&conversation_signature=sig123`,
      }),
      true
    );
  }
  return false;
}

/** What serves an ElevenLabs conversation whose init message did not ask for text only. */
export type ElevenAudioConversation = (socket: WebSocket, init: Json) => void;

/**
 * ElevenLabs' conversation WebSocket as an upgrade handler (answers false for other paths, so
 * several socket routes can share one server). Text-only conversations are served here; any
 * other goes to `audio` when given, and is refused otherwise.
 */
export function elevenSocketUpgrade(
  log: ChatLog,
  audio?: ElevenAudioConversation,
): (req: IncomingMessage, socket: Duplex, head: Buffer) => boolean {
  const wss = new WebSocketServer({ noServer: true });
  wss.on('connection', (socket, req) => {
    if (!String(req.url).includes('conversation_signature=sig123'))
      return socket.close(4001, 'unsigned');
    socket.once('message', (data) => {
      const first = JSON.parse((data as Buffer).toString('utf8')) as Json;
      const textOnly = first.conversation_config_override?.conversation?.text_only === true;
      if (first.type === 'conversation_initiation_client_data' && !textOnly && audio)
        return audio(socket, first);
      const onMessage = elevenTextConversation(socket, log);
      onMessage(first);
      socket.on('message', (more) =>
        onMessage(JSON.parse((more as Buffer).toString('utf8')) as Json),
      );
    });
  });
  return (req, socket, head) => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/v1/convai/conversation') return false;
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    return true;
  };
}

/** One text-mode conversation: the handler of each message the caller sends. */
function elevenTextConversation(socket: WebSocket, log: ChatLog): (m: Json) => void {
  const send = (v: Json) => socket.send(JSON.stringify(v));
  return (m) => {
    if (m.type === 'conversation_initiation_client_data') {
      if (m.conversation_config_override?.conversation?.text_only !== true)
        return send({ type: 'error', message: 'audio not supported by this fake' });
      send({
        type: 'conversation_initiation_metadata',
        conversation_initiation_metadata_event: { conversation_id: 'conv_live' },
      });
      send({ type: 'ping', ping_event: { event_id: 7, ping_ms: 5 } });
      send({ type: 'agent_response', agent_response_event: { agent_response: 'Hi, Eve here' } });
    } else if (m.type === 'pong') {
      if (m.event_id === 7) log.pongs++;
    } else if (m.type === 'user_message') {
      log.requests.push({ api: 'eleven', body: m });
      const r = botReply(String(m.text));
      if (r.tool)
        send({
          type: 'agent_tool_response',
          agent_tool_response: {
            tool_name: r.tool.name,
            tool_call_id: 'x',
            tool_type: 'webhook',
            is_error: false,
          },
        });
      send({ type: 'agent_response', agent_response_event: { agent_response: r.text } });
      // Closed a little later, so the end is seen at the next turn, as a real hang-up would be.
      if (r.ended) setTimeout(() => socket.close(1000), 200);
    }
  };
}

/** An agent of the tester's own at a URL: OpenAI-compatible at /v1/chat/completions, plain JSON at /simple. */
export async function startFakeHttpAgent(apiKey = 'agent-key') {
  const log = newChatLog();
  /** Requests being answered now, the most at once, and how long each answer takes. */
  const load = { inFlight: 0, maxInFlight: 0, delayMs: 0 };
  const server = createServer(
    handled(async (req, res) => {
      load.inFlight++;
      load.maxInFlight = Math.max(load.maxInFlight, load.inFlight);
      res.on('close', () => load.inFlight--);
      if (load.delayMs) await new Promise((r) => setTimeout(r, load.delayMs));
      let raw = '';
      for await (const c of req) raw += c;
      const body = raw ? JSON.parse(raw) : {};
      const send = (status: number, v: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(v));
      };
      const last = [...(body.messages ?? [])].reverse().find((m: Json) => m.role === 'user');
      const r = botReply(String(last?.content));
      if (req.url === '/v1/chat/completions') {
        log.requests.push({ api: 'openai', body });
        if (req.headers.authorization !== `Bearer ${apiKey}`)
          return send(401, { error: { message: 'bad key' } });
        return send(200, {
          id: 'cmpl',
          object: 'chat.completion',
          model: body.model,
          choices: [
            {
              index: 0,
              finish_reason: 'stop',
              message: { role: 'assistant', content: r.ended ? `${r.text} [END_CALL]` : r.text },
            },
          ],
        });
      }
      if (req.url === '/simple') {
        log.requests.push({ api: 'simple', body });
        return send(200, {
          reply: r.text,
          ended: r.ended,
          ...(r.tool
            ? { toolCalls: [{ name: r.tool.name, arguments: r.tool.args, success: true }] }
            : {}),
        });
      }
      if (req.url === '/broken') return send(200, { answer: 'wrong shape' });
      send(404, {});
    }),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    log,
    load,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
