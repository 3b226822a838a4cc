/**
 * Fake deployed voice agents, one per protocol Callbench dials, all driven by the same voice
 * brain (fake-voice-brain.ts) and mounted on one node:http server: Vapi (`POST /call`, its call
 * socket, `GET /call/:id`), ElevenLabs (signed URL, the conversation socket in audio mode),
 * Bland (authorize, the web-agent socket) and Twilio Media Streams (`/media-stream`, the socket
 * a custom agent serves). `createVoiceFakes` gives the routes alone, so the fake provider server
 * can serve them on its own port.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  newBrainRecord,
  prepareSpeech,
  VoiceBrain,
  type BrainOptions,
  type FakeBrainRecord,
} from './fake-voice-brain.js';
import {
  blandSocket,
  elevenAudioSocket,
  parse,
  sendJson,
  twilioSocket,
  vapiSocket,
  type BrainFactory,
} from './fake-voice-sockets.js';
import { handled } from './handled.js';
import type { JsonObject } from './json.js';

export type { BrainOptions, FakeBrainRecord } from './fake-voice-brain.js';

type Json = JsonObject;
type Send = (status: number, value: unknown) => void;

export interface VoiceHttpRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Json;
  host: string;
}

export interface VoiceFakes {
  /** One record per call, in the order the calls were placed. */
  brains: FakeBrainRecord[];
  /** Answers the voice routes' HTTP requests; false when the request is not one of them. */
  http: (req: VoiceHttpRequest, send: Send) => boolean;
  /** Takes the voice sockets' upgrades; false when the path is not one of them. */
  upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => boolean;
  /** An ElevenLabs conversation socket whose init message asked for audio. */
  elevenAudio: (socket: WebSocket, init: Json) => void;
  /** Ends every call at once. */
  close: () => void;
}

export const VOICE_KEY = 'voice-key-good-456';
export const ELEVEN_PATH = '/v1/convai/conversation';
export function createVoiceFakes(opts: {
  brain: BrainOptions;
  key: string;
  /** The signature the ElevenLabs socket accepts in its signed URL. */
  elevenSignature?: string;
}): VoiceFakes {
  const { key } = opts;
  const signature = opts.elevenSignature ?? 'sig-voice';
  const brains: FakeBrainRecord[] = [];
  const wss = new WebSocketServer({ noServer: true });
  const sockets = new Set<WebSocket>();
  const vapiCalls = new Map<string, { body: Json; record: FakeBrainRecord | null }>();
  const blandTokens = new Map<string, Json>();

  /** A record for a new call, and the brain that runs it once the protocol says go. */
  const brainFor: BrainFactory = (socket, protocol, link) => {
    sockets.add(socket);
    const record = newBrainRecord(protocol);
    brains.push(record);
    const brain = new VoiceBrain(
      opts.brain,
      { ...link, hangup: () => socket.close(1000), drop: () => socket.terminate() },
      record,
    );
    socket.on('close', () => {
      brain.stop();
      record.endedBy ??= 'caller';
    });
    socket.on('error', () => undefined);
    return brain;
  };
  const elevenAudio = (socket: WebSocket, init: Json) => {
    const conversationId = `conv_voice_${brains.length + 1}`;
    const clientToolCall = opts.brain.clientToolCall ?? false;
    elevenAudioSocket(brainFor, socket, { init, conversationId, clientToolCall });
  };

  const authorized = (headers: IncomingHttpHeaders, scheme: 'bearer' | 'raw' | 'xi') => {
    const given = scheme === 'xi' ? headers['xi-api-key'] : headers.authorization;
    return given === (scheme === 'bearer' ? `Bearer ${key}` : key);
  };
  const refused = (send: Send) => (send(401, { message: 'Invalid key' }), true);

  function http(req: VoiceHttpRequest, send: Send): boolean {
    const { method, path, headers, body, host } = req;
    if (method === 'POST' && path === '/call') {
      if (!authorized(headers, 'bearer')) return refused(send);
      if (body.transport?.provider !== 'vapi.websocket')
        return (send(400, { message: 'this fake only places vapi.websocket calls' }), true);
      const id = `vcall_${vapiCalls.size + 1}`;
      vapiCalls.set(id, { body, record: null });
      const websocketCallUrl = `ws://${host}/vapi/ws/${id}`;
      return (
        send(201, {
          id,
          status: 'queued',
          transport: { provider: 'vapi.websocket', websocketCallUrl },
        }),
        true
      );
    }
    const vapiId = /^\/call\/([^/]+)$/.exec(path)?.[1];
    if (method === 'GET' && vapiId && vapiCalls.has(vapiId)) {
      if (!authorized(headers, 'bearer')) return refused(send);
      return (send(200, vapiRecord(vapiId, vapiCalls.get(vapiId)!.record)), true);
    }
    const blandAgent = /^\/v1\/agents\/([^/]+)\/authorize$/.exec(path)?.[1];
    if (method === 'POST' && blandAgent) {
      if (!authorized(headers, 'raw')) return refused(send);
      const token = `btok_${blandTokens.size + 1}_${Math.random().toString(36).slice(2)}`;
      blandTokens.set(token, body.request_data ?? {});
      return (send(200, { status: 'success', token }), true);
    }
    if (method === 'GET' && path === '/v1/convai/conversation/get-signed-url') {
      if (!authorized(headers, 'xi')) return refused(send);
      const signed_url = `ws://${host}${ELEVEN_PATH}?agent_id=el_1&conversation_signature=${signature}`;
      return (send(200, { signed_url }), true);
    }
    return false;
  }

  function upgrade(req: IncomingMessage, raw: Duplex, head: Buffer): boolean {
    const url = new URL(req.url ?? '/', 'http://x');
    const accept = (then: (socket: WebSocket) => void) =>
      wss.handleUpgrade(req, raw, head, (socket) => then(socket));
    const deny = () => (raw.end('HTTP/1.1 401 Unauthorized\r\nconnection: close\r\n\r\n'), true);
    const vapiId = /^\/vapi\/ws\/([^/]+)$/.exec(url.pathname)?.[1];
    if (vapiId) {
      const call = vapiCalls.get(vapiId);
      if (!call || call.record) return deny();
      return (accept((s) => (call.record = vapiSocket(brainFor, s, call.body).record)), true);
    }
    if (url.pathname === '/ws/connect/blandshared') {
      const token = url.searchParams.get('token') ?? '';
      const requestData = blandTokens.get(token);
      if (!requestData || !url.searchParams.get('agent')) return deny();
      blandTokens.delete(token); // single use
      return (accept((s) => blandSocket(brainFor, s, requestData)), true);
    }
    if (url.pathname === '/media-stream') return (accept((s) => twilioSocket(brainFor, s)), true);
    if (url.pathname === ELEVEN_PATH) {
      if (url.searchParams.get('conversation_signature') !== signature) return deny();
      accept((socket) =>
        socket.once('message', (data) => {
          const init = parse(data);
          if (init.conversation_config_override?.conversation?.text_only === true)
            return sendJson(socket, { type: 'error', message: 'the voice fake speaks audio only' });
          elevenAudio(socket, init);
        }),
      );
      return true;
    }
    return false;
  }

  return {
    brains,
    http,
    upgrade,
    elevenAudio,
    close() {
      for (const socket of [...sockets, ...wss.clients]) socket.terminate();
      wss.close();
    },
  };
}

/** Vapi's call record: what the agent said and what it heard, on the call's own clock. */
function vapiRecord(id: string, record: FakeBrainRecord | null): Json {
  const t0 = record?.connectedAtMs ?? 0;
  const at = (ms: number) => Math.round(ms - t0) / 1000;
  const messages = [
    ...(record?.said ?? []).map((s) => ({
      role: 'bot',
      message: s.text,
      secondsFromStart: at(s.atMs),
    })),
    ...(record?.heard ?? []).map((h) => ({
      role: 'user',
      message: h.text,
      secondsFromStart: at(h.atMs),
    })),
  ].sort((a, b) => a.secondsFromStart - b.secondsFromStart);
  const ended = record?.endedBy != null;
  return {
    id,
    status: ended ? 'ended' : 'in-progress',
    messages: [
      { role: 'system', message: 'You are a fake voice agent.', secondsFromStart: 0 },
      ...messages,
    ],
  };
}

export interface FakeVoice {
  url: string;
  key: string;
  /** The custom agent's Twilio Media Streams socket. */
  mediaStreamUrl: string;
  brains: FakeBrainRecord[];
  stop(): Promise<void>;
}

/** All four protocols on one server on 127.0.0.1, each call run by a brain with `brain`'s options. */
export async function startFakeVoice(
  brain: BrainOptions & { key?: string } = {},
): Promise<FakeVoice> {
  const key = brain.key ?? VOICE_KEY;
  await prepareSpeech(brain, [16000, 8000]);
  const fakes = createVoiceFakes({ brain, key });
  const server = createServer(
    handled(async (req, res) => {
      let raw = '';
      for await (const chunk of req) raw += String(chunk);
      const send: Send = (status, value) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const request = {
        method: req.method ?? 'GET',
        path,
        headers: req.headers,
        host: String(req.headers.host),
      };
      if (!fakes.http({ ...request, body: raw ? (JSON.parse(raw) as Json) : {} }, send))
        send(404, { message: `no voice fake for ${path}` });
    }),
  );
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (!fakes.upgrade(req, socket, head)) socket.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    key,
    mediaStreamUrl: `ws://127.0.0.1:${port}/media-stream`,
    brains: fakes.brains,
    stop: () =>
      new Promise((r) => {
        fakes.close();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
