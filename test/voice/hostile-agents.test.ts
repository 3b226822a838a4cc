import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { mulawEncode } from '../../src/audio/pcm.js';
import { providerClient } from '../../src/providers/client.js';
import { elevenLabsChat } from '../../src/providers/elevenlabs-chat.js';
import { AgentActivity, MAX_CLEARS } from '../../src/voice/agent-activity.js';
import { CallInbox, LiveCall } from '../../src/voice/live-call.js';
import {
  AGENT_AUDIO_TOO_FAR_AHEAD,
  AGENT_MESSAGE_TOO_LARGE,
  type AgentAudioEvents,
  type AudioCall,
} from '../../src/voice/transport.js';
import { dialerFor } from '../../src/voice/transports/index.js';
import { MAX_PENDING_MARKS, PlayoutMarks } from '../../src/voice/transports/playout-marks.js';
import { startFakeSpeech, type FakeSpeech } from '../helpers/fake-speech.js';
import { parse } from '../helpers/fake-voice-sockets.js';
import { handled } from '../helpers/handled.js';
import { createPersona } from '../helpers/http-agents.js';
import type { Json } from '../helpers/json.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { firstSimulationOf } from '../helpers/twilio-agent.js';

/**
 * Agents that try to exhaust the engine over their call socket: one message over 1 MiB, or audio
 * sent far ahead of the play clock. Each ends its call as failed, naming the limit, and the
 * engine's buffers stay bounded.
 */

const MIB = 1024 * 1024;
type Kind = 'vapi' | 'bland' | 'eleven' | 'twilio';
type Behaviour = (socket: WebSocket, kind: Kind) => void;

interface HostileAgent {
  url: string;
  mediaStreamUrl: string;
  /** Resolves when Callbench closed (or cut) the agent's socket. */
  closed: Promise<void>;
  stop(): Promise<void>;
}

/**
 * One server speaking just enough of each protocol to get a call up (Vapi's `POST /call`, Bland's
 * authorize, ElevenLabs' signed URL and metadata, Twilio's `start`), then `behaviour` on the socket.
 */
async function startHostileAgent(behaviour: Behaviour): Promise<HostileAgent> {
  const wss = new WebSocketServer({ noServer: true });
  let onClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (onClosed = resolve));
  const server = createServer(
    handled(async (req, res) => {
      for await (const _ of req);
      const host = String(req.headers.host);
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const body =
        path === '/call'
          ? { id: 'vcall_1', transport: { websocketCallUrl: `ws://${host}/vapi` } }
          : path.endsWith('/authorize')
            ? { token: 'btok_1' }
            : path.endsWith('/get-signed-url')
              ? { signed_url: `ws://${host}/eleven` }
              : {};
      res.writeHead(path === '/call' ? 201 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    }),
  );
  server.on('upgrade', (req: IncomingMessage, raw: Duplex, head: Buffer) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const kind: Kind =
      path === '/vapi'
        ? 'vapi'
        : path === '/eleven'
          ? 'eleven'
          : path === '/media-stream'
            ? 'twilio'
            : 'bland';
    wss.handleUpgrade(req, raw, head, (socket) => {
      socket.on('error', () => undefined);
      socket.on('close', () => onClosed());
      behaviour(socket, kind);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    mediaStreamUrl: `ws://127.0.0.1:${port}/media-stream`,
    closed,
    stop: () =>
      new Promise<void>((r) => {
        for (const socket of wss.clients) socket.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Runs `then` once the call is up on the agent's side: its first message, or at once. */
function whenUp(socket: WebSocket, kind: Kind, then: () => void): void {
  if (kind === 'vapi' || kind === 'bland') return then();
  socket.on('message', (data) => {
    const m = parse(data);
    if (kind === 'eleven' && m.type === 'conversation_initiation_client_data') {
      socket.send(
        JSON.stringify({
          type: 'conversation_initiation_metadata',
          conversation_initiation_metadata_event: { conversation_id: 'conv_1' },
        }),
      );
      then();
    } else if (kind === 'twilio' && m.event === 'start') then();
  });
}

/** One message just over 1 MiB, in the shape each protocol carries agent audio. */
const oversize: Behaviour = (socket, kind) =>
  whenUp(socket, kind, () => {
    const big = 'A'.repeat(MIB);
    if (kind === 'vapi' || kind === 'bland') socket.send(Buffer.alloc(MIB + 2));
    else if (kind === 'eleven')
      socket.send(JSON.stringify({ type: 'audio', audio_event: { audio_base_64: big } }));
    else socket.send(JSON.stringify({ event: 'media', media: { payload: big } }));
  });

/**
 * 40 s of the agent's audio at once, in Twilio `media` messages of `chunkMs` (each well under
 * 1 MiB): as it answers `start` (held before the call is up), or once the caller's frames come.
 */
const floodAhead =
  (chunkMs: number, when: 'start' | 'caller'): Behaviour =>
  (socket) => {
    let sent = false;
    socket.on('message', (data) => {
      const event = parse(data).event;
      if (sent || event !== (when === 'start' ? 'start' : 'media')) return;
      sent = true;
      const chunk = mulawEncode(new Int16Array(8 * chunkMs).fill(3000)).toString('base64');
      for (let i = 0; i < 40_000 / chunkMs; i++)
        socket.send(JSON.stringify({ event: 'media', media: { payload: chunk } }));
    });
  };

let agent: HostileAgent | null = null;
let s: TestServer | null = null;
let speech: FakeSpeech | null = null;
const calls: AudioCall[] = [];
afterEach(async () => {
  await Promise.all(calls.splice(0).map((c) => c.hangup()));
  await s?.stop();
  await agent?.stop();
  await speech?.stop();
  agent = s = speech = null;
});

function listen() {
  let ended: (v: { how: string; detail: string }) => void = () => undefined;
  const end = new Promise<{ how: string; detail: string }>((resolve) => (ended = resolve));
  const events: AgentAudioEvents = {
    audio: () => undefined,
    clear: () => undefined,
    agentText: () => undefined,
    correctAgentText: () => undefined,
    heard: () => undefined,
    ended: (how, detail) => ended({ how, detail }),
  };
  return { events, end };
}

describe('a message over 1 MiB on a call socket', () => {
  it.each(['vapi', 'elevenlabs', 'bland', 'http'])(
    'ends a %s call at once, naming the limit',
    async (provider) => {
      agent = await startHostileAgent(oversize);
      const choice = dialerFor(provider);
      if ('refused' in choice) throw new Error(choice.refused);
      const { events, end } = listen();
      const call = await choice.dial({
        baseUrl: agent.url,
        apiKey: 'agent-key',
        agentId: 'agent_1',
        websocketUrl: agent.mediaStreamUrl,
        variables: {},
        events,
        signal: new AbortController().signal,
      });
      calls.push(call);
      expect(await end).toEqual({ how: 'misbehaved', detail: AGENT_MESSAGE_TOO_LARGE });
      await agent.closed;
    },
  );

  it('fails an ElevenLabs text conversation the same way', async () => {
    agent = await startHostileAgent(oversize);
    const chat = elevenLabsChat(
      providerClient(agent.url, { 'xi-api-key': 'k' }),
      'el_1',
      true,
      10_000,
    );
    await expect(chat).rejects.toThrow(AGENT_MESSAGE_TOO_LARGE);
  });
});

describe('hostile custom agents in an audio simulation', () => {
  async function simulate(behaviour: Behaviour): Promise<Json> {
    agent = await startHostileAgent(behaviour);
    speech = await startFakeSpeech();
    s = await startServer();
    await s.call('PATCH', '/v1/settings', {
      speech: { stt: { baseUrl: `${speech.url}/v1`, apiKey: 'fake-speech-key' } },
    });
    const connected = await s.call('POST', '/v1/agents/connect', {
      provider: 'http',
      agent_id: 'hostile-bot',
      credentials: { base_url: `${agent.url}/chat`, websocket_url: agent.mediaStreamUrl },
    });
    expect(connected.status).toBe(201);
    const scenario = await s.ws('POST', '/scenarios', {
      name: 'Hostile agent',
      prompt: 'Ask about an order.',
      personas: [await createPersona(s, 'Dana')],
      targetAgents: [connected.body.id],
      script: [{ say: 'Hello, where is my order?' }],
      audio: { enabled: true },
    });
    expect(scenario.status).toBe(201);
    return firstSimulationOf(s, scenario.body.data.scenario.id as string);
  }

  it('fails the simulation on a message over 1 MiB, and the engine keeps answering', async () => {
    const sim = await simulate(oversize);
    expect(sim.status).toBe('failed');
    expect(sim.error).toBe(AGENT_MESSAGE_TOO_LARGE);
    expect(AGENT_MESSAGE_TOO_LARGE).toBe('the agent sent a message over 1 MiB');
    await agent!.closed;
    expect((await s!.call('GET', '/v1/agents')).status).toBe(200);
  }, 60_000);

  it.each([
    [1000, 'start'],
    [20, 'caller'],
  ] as const)(
    'fails the simulation on audio more than 30 s ahead of real time (%i ms chunks from %s)',
    async (chunkMs, when) => {
      const sim = await simulate(floodAhead(chunkMs, when));
      expect(sim.status).toBe('failed');
      expect(sim.error).toBe(AGENT_AUDIO_TOO_FAR_AHEAD);
      expect(AGENT_AUDIO_TOO_FAR_AHEAD).toBe(
        "the agent's audio ran more than 30 s ahead of real time",
      );
      await agent!.closed;
      expect((await s!.call('GET', '/v1/agents')).status).toBe(200);
    },
    60_000,
  );
});

/** A call that is never dialled: the loop's buffers alone are under test. */
const idleCall = (sampleRate: number): AudioCall => ({
  sampleRate,
  agentTextSource: 'stt',
  callId: null,
  send: () => undefined,
  hangup: () => Promise.resolve(),
  providerTranscript: () => Promise.resolve(null),
});

const liveCall = (rate: number) =>
  new LiveCall(idleCall(rate), {
    maxMs: 60_000,
    keepAgentAudio: false,
    onFrame: () => undefined,
    onAgentTurnEnd: () => undefined,
    onEnded: () => undefined,
  });

describe('the buffers before and during the call', () => {
  it('ends the call when audio held before it starts passes 30 s, keeping none of it', () => {
    const inbox = new CallInbox(8000);
    for (let i = 0; i < 30; i++) inbox.audio(new Int16Array(8000));
    expect(inbox.endedAs).toBeNull();
    inbox.audio(new Int16Array(8000));
    expect(inbox.endedAs).toEqual({ how: 'misbehaved', detail: AGENT_AUDIO_TOO_FAR_AHEAD });
    const live = liveCall(8000);
    inbox.attach(live);
    expect(live.agentBusy(0)).toBe(false);
  });

  it('applies clears to the audio held before the call, whatever their number', () => {
    const inbox = new CallInbox(8000);
    inbox.audio(new Int16Array(800).fill(1000), 1);
    for (let i = 0; i < 100_000; i++) inbox.clear(1);
    const live = liveCall(8000);
    inbox.attach(live);
    expect(live.agentBusy(0)).toBe(false);
    expect(live.agentActivity.clears).toEqual([0]);

    const kept = new CallInbox(8000);
    kept.audio(new Int16Array(800).fill(1000), 1);
    kept.clear(0);
    const other = liveCall(8000);
    kept.attach(other);
    expect(other.agentBusy(0)).toBe(true);
  });

  it('ends the live call on audio more than 30 s ahead of its clock', () => {
    const ends: unknown[] = [];
    const live = new LiveCall(idleCall(8000), {
      maxMs: 60_000,
      keepAgentAudio: false,
      onFrame: () => undefined,
      onAgentTurnEnd: () => undefined,
      onEnded: (end) => ends.push(end),
    });
    live.agentAudio(new Int16Array(8000 * 30));
    expect(ends).toEqual([]);
    live.agentAudio(new Int16Array(1));
    expect(ends).toEqual([{ how: 'misbehaved', detail: AGENT_AUDIO_TOO_FAR_AHEAD }]);
    live.agentAudio(new Int16Array(1));
    expect(ends).toHaveLength(1);
  });

  it('keeps at most MAX_CLEARS clears of a call', () => {
    const activity = new AgentActivity(60_000);
    for (let i = 0; i < MAX_CLEARS + 5000; i++) activity.noteClear(i);
    expect(activity.clears).toHaveLength(MAX_CLEARS);
    expect(activity.stoppedAfter(10)).toBe(10);
  });

  it('keeps at most MAX_PENDING_MARKS marks waiting for their audio to play', () => {
    const echoed: string[] = [];
    const marks = new PlayoutMarks(
      (name) => echoed.push(name),
      () => 0,
    );
    marks.played(600_000);
    for (let i = 0; i < MAX_PENDING_MARKS + 5000; i++) marks.mark(`m${i}`);
    marks.clear();
    expect(echoed).toHaveLength(MAX_PENDING_MARKS);
    expect(echoed[0]).toBe('m0');
  });
});
