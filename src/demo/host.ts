/**
 * The built-in demo agent, served by the engine itself on loopback so that a first run needs no
 * account, key or network: a text endpoint in the plain JSON shape of http agents
 * (`POST /agents/{id}/chat`: `{messages}` in, `{reply, ended, toolCalls}` out), an audio endpoint
 * speaking Twilio Media Streams (`/agents/{id}/media`), and the order service its `order_status`
 * tool calls (`GET /orders/{id}`). It starts on first use, on a port of its own, and reads the
 * agent's knobs (`configuration.demo`) from the store at every conversation.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { DEMO_ORDER, type DemoKnobs } from '../domain/demo.js';
import type { ConnectionTest } from '../domain/providers.js';
import type { AgentCredentials } from '../providers/credentials.js';
import { effectiveConfiguration } from '../providers/view.js';
import type { Speech } from '../speech/index.js';
import type { Store } from '../store/index.js';
import { DEMO_FIXED_LINES, DemoBrain, type OrderLookup } from './brain.js';
import { DEFAULT_VOICE } from '../domain/audio.js';
import { DemoVoiceCall } from './voice-call.js';

export interface DemoEndpoints {
  /** The agent's text endpoint (an http agent's base URL, plain JSON format). */
  chatUrl: string;
  /** The agent's Twilio Media Streams socket. */
  mediaUrl: string;
  /** The order service behind the agent's `order_status` tool. */
  ordersUrl: string;
}

export interface DemoHost {
  /** Where the demo agent `agentId` is reached now; the server starts on first use. */
  endpoints(agentId: string): Promise<DemoEndpoints>;
  /** The connection test of the demo agent: is its server up, and how fast it answers. */
  test(): Promise<ConnectionTest>;
  close(): Promise<void>;
}

/** The largest chat request the demo reads: a long conversation's history, not a flood. */
const MAX_BODY_BYTES = 1024 * 1024;
const AGENT_PATH = /^\/agents\/([^/]+)\/(chat|media)$/;

interface HostDeps {
  store: Store;
  speech: Speech;
  log: (message: string) => void;
}

/** The knobs of demo agent `id`; null when there is no such demo agent. */
async function knobsOf(store: Store, id: string): Promise<DemoKnobs | null> {
  const agent = await store.agents.get(id);
  if (!agent || agent.provider !== 'demo') return null;
  return effectiveConfiguration(agent).demo ?? {};
}

/** The order service: the one order the demo knows, or 404. */
function answerOrder(res: ServerResponse, id: string): void {
  if (id !== DEMO_ORDER.id) {
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: `no order ${id}` }));
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ order_id: id, status: DEMO_ORDER.status, arrives: DEMO_ORDER.arrives }));
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('request too large'));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        reject(new Error('the body is not JSON'));
      }
    });
    req.on('error', reject);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The caller's lines of a chat history, oldest first. */
function callerLines(body: unknown): string[] | null {
  const messages = (body as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) return null;
  return messages
    .filter((m): m is { role: string; content: string } => {
      const msg = m as { role?: unknown; content?: unknown } | null;
      return msg?.role === 'user' && typeof msg.content === 'string';
    })
    .map((m) => m.content);
}

/** One text turn: the script replayed over the history, then the reply to its last line. */
async function answerChat(
  res: ServerResponse,
  ctx: { knobs: DemoKnobs; lookup: OrderLookup; body: unknown },
): Promise<void> {
  const lines = callerLines(ctx.body);
  if (!lines?.length) {
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: 'send {messages: [{role: "user", content}]}' }));
    return;
  }
  const brain = new DemoBrain(ctx.knobs, ctx.lookup);
  lines.slice(0, -1).forEach((line) => brain.replay(line));
  await sleep(ctx.knobs.answerDelayMs ?? 0);
  const reply = await brain.reply(lines.at(-1)!);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      reply: reply.text,
      ended: reply.ended,
      toolCalls: reply.toolCall ? [reply.toolCall] : [],
    }),
  );
}

/** `order_status` as the agent calls it: over HTTP, to the order service beside it. */
function orderLookup(ordersUrl: () => string): OrderLookup {
  return async (orderId) => {
    const began = performance.now();
    const res = await fetch(`${ordersUrl()}/${encodeURIComponent(orderId)}`);
    const result: unknown = await res.json();
    return { result, success: res.ok, latencyMs: Math.round(performance.now() - began) };
  };
}

/** Where a demo agent is reached now, as an http agent's credentials; undefined for any other. */
export async function demoReach(
  host: DemoHost,
  agent: { id: string; provider: string },
): Promise<AgentCredentials | undefined> {
  if (agent.provider !== 'demo') return undefined;
  const { chatUrl, mediaUrl } = await host.endpoints(agent.id);
  return { baseUrl: chatUrl, format: 'simple', websocketUrl: mediaUrl };
}

/**
 * Voices the demo's fixed lines once, before its first call is dialled, so that no call's time to
 * first audio includes the voice program's cold start. A voice that cannot speak is left to the
 * call, which says why.
 */
async function warmVoice(deps: HostDeps): Promise<void> {
  await Promise.all(
    DEMO_FIXED_LINES.map((line) =>
      deps.speech.synthesize(line, DEFAULT_VOICE).catch(() => undefined),
    ),
  );
}

type Route = (req: IncomingMessage, res: ServerResponse) => Promise<void>;
interface Listening {
  server: Server;
  sockets: WebSocketServer;
  base: string;
}

/** The demo's server on a free loopback port: `route` answers requests, calls take the socket. */
function listen(deps: HostDeps, route: Route, lookup: OrderLookup): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const server = createServer((req, res) => {
      route(req, res).catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: (err as Error).message }));
      });
    });
    const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_BODY_BYTES });
    server.on('upgrade', (req, socket, head) => {
      const agent = AGENT_PATH.exec(new URL(req.url ?? '/', 'http://demo').pathname);
      void (agent?.[2] === 'media' ? knobsOf(deps.store, agent[1]!) : Promise.resolve(null))
        .then((knobs) => {
          if (!knobs) return void socket.destroy();
          sockets.handleUpgrade(req, socket, head, (ws) => {
            new DemoVoiceCall({ socket: ws, knobs, speech: deps.speech, lookup, log: deps.log });
          });
        })
        .catch(() => socket.destroy());
    });
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, sockets, base: `http://127.0.0.1:${port}` });
    });
  });
}

export function createDemoHost(deps: HostDeps): DemoHost {
  let started: Promise<Listening> | null = null;
  /** Set once the server listens; the tool is only called on a conversation it serves. */
  let base = '';
  const lookup = orderLookup(() => `${base}/orders`);

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://demo');
    const order = /^\/orders\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && order) return answerOrder(res, decodeURIComponent(order[1]!));
    if (req.method === 'GET' && url.pathname === '/health') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
      return;
    }
    const agent = AGENT_PATH.exec(url.pathname);
    const knobs = agent?.[2] === 'chat' ? await knobsOf(deps.store, agent[1]!) : null;
    if (req.method !== 'POST' || !knobs) {
      res.writeHead(404).end();
      return;
    }
    await answerChat(res, { knobs, lookup, body: await readJson(req) });
  }

  const start = () =>
    (started ??= listen(deps, route, lookup).then(async (l) => {
      base = l.base;
      await warmVoice(deps);
      return l;
    }));

  return {
    async endpoints(agentId) {
      const { base: at } = await start();
      const id = encodeURIComponent(agentId);
      return {
        chatUrl: `${at}/agents/${id}/chat`,
        mediaUrl: `${at.replace(/^http/, 'ws')}/agents/${id}/media`,
        ordersUrl: `${at}/orders`,
      };
    },
    async test() {
      const began = performance.now();
      const took = () => Math.round(performance.now() - began);
      try {
        const res = await fetch(`${(await start()).base}/health`);
        return res.ok
          ? { ok: true, latencyMs: took(), message: 'The demo agent is served by this engine' }
          : { ok: false, latencyMs: took(), message: `The demo agent answered ${res.status}` };
      } catch (err) {
        return { ok: false, latencyMs: took(), message: (err as Error).message };
      }
    },
    async close() {
      if (!started) return;
      const { server, sockets } = await started;
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
