import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { concatPcm, FRAME_MS, rmsDbfs, samplesPerFrame } from '../../src/audio/pcm.js';
import { startPacer } from '../../src/audio/pacer.js';
import type { AgentAudioEvents, AudioCall, Dial, DialRequest } from '../../src/voice/transport.js';
import { providerClient } from '../../src/providers/client.js';
import { elevenLabsChat } from '../../src/providers/elevenlabs-chat.js';
import {
  agentAudioDecoder,
  callerAudioEncoder,
  parseElevenLabsFormat,
} from '../../src/voice/transports/elevenlabs-formats.js';
import { blandSocketUrl } from '../../src/voice/transports/bland.js';
import { dialerFor } from '../../src/voice/transports/index.js';
import { GOOD_KEY, startFakeProviders } from '../helpers/fake-providers.js';
import { speak, speechBounds } from '../helpers/fake-voice-speech.js';
import type { FakeTurn } from '../helpers/fake-voice-brain.js';
import { startFakeVoice, type BrainOptions, type FakeVoice } from '../helpers/fake-voice.js';

const CALLER_LINE = 'Hello, I would like to check the status of my order.';
const REPLY = 'Your order has shipped and arrives tomorrow.';

let fake: FakeVoice | null = null;
const calls: AudioCall[] = [];
afterEach(async () => {
  await Promise.all(calls.splice(0).map((c) => c.hangup()));
  await fake?.stop();
  fake = null;
});

/** Everything a call reports, with arrival times on performance.now(). */
function listen() {
  const got = {
    audio: [] as { pcm: Int16Array; atMs: number; eventId?: number }[],
    clears: [] as { upto?: number; atMs: number }[],
    agentText: [] as string[],
    corrections: [] as string[],
    heard: [] as string[],
    ended: null as { how: string; detail: string } | null,
  };
  let onEnded: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => (onEnded = resolve));
  const events: AgentAudioEvents = {
    audio: (pcm, eventId) => got.audio.push({ pcm, atMs: performance.now(), eventId }),
    clear: (upto) => got.clears.push({ upto, atMs: performance.now() }),
    agentText: (text) => got.agentText.push(text),
    correctAgentText: (text) => {
      got.corrections.push(text);
      got.agentText[got.agentText.length - 1] = text;
    },
    heard: (text) => got.heard.push(text),
    ended: (how, detail) => {
      got.ended = { how, detail };
      onEnded();
    },
  };
  return { got, events, ended };
}

function dialer(provider: string): Dial {
  const choice = dialerFor(provider);
  if ('refused' in choice) throw new Error(choice.refused);
  return choice.dial;
}

async function dial(provider: string, events: AgentAudioEvents, more: Partial<DialRequest> = {}) {
  const call = await dialer(provider)({
    baseUrl: fake!.url,
    apiKey: fake!.key,
    agentId: 'agent_1',
    variables: { customer_name: 'Ana' },
    events,
    signal: new AbortController().signal,
    ...more,
  });
  calls.push(call);
  return call;
}

interface Talk {
  /** Silence streamed before the line (the caller waits). */
  leadMs?: number;
  /** Silence streamed after it (the caller listens). */
  silenceMs: number;
  line?: string;
  /** Stops streaming early (the call ended). */
  until?: Promise<unknown>;
}

/**
 * Streams silence, the caller's line, then silence, in paced 20 ms frames as the loop does;
 * returns when the caller's last speech sample was sent.
 */
async function talk(call: AudioCall, opts: Talk): Promise<number> {
  const pcm = await speak(opts.line ?? CALLER_LINE, call.sampleRate);
  const n = samplesPerFrame(call.sampleRate);
  const lead = Math.round((opts.leadMs ?? 0) / FRAME_MS);
  const frames = lead + Math.ceil(pcm.length / n) + Math.round(opts.silenceMs / FRAME_MS);
  const [, speechEnd] = speechBounds(pcm);
  let speechEndMs = 0;
  await new Promise<void>((resolve) => {
    const pacer = startPacer({
      frameMs: FRAME_MS,
      onFrame: (index) => {
        const i = index - lead;
        const frame = new Int16Array(n);
        if (i >= 0) frame.set(pcm.subarray(i * n, (i + 1) * n));
        const now = performance.now();
        if (i >= 0 && speechEnd > i * n && speechEnd <= (i + 1) * n)
          speechEndMs = now + ((speechEnd - i * n) * 1000) / call.sampleRate;
        call.send(frame);
        if (index + 1 < frames) return;
        pacer.stop();
        resolve();
      },
    });
    void opts.until?.then(() => {
      pacer.stop();
      resolve();
    });
  });
  return speechEndMs;
}

async function startFake(options: BrainOptions) {
  fake = await startFakeVoice(options);
  return fake;
}

const samples = (audio: { pcm: Int16Array }[]) => audio.reduce((n, a) => n + a.pcm.length, 0);

/** The first agent audio that arrived after `afterMs`. */
const firstAudioAfter = (audio: { atMs: number }[], afterMs: number) =>
  audio.find((a) => a.atMs > afterMs)?.atMs ?? Number.NaN;

/**
 * The agent's answer as the caller side saw it, against what the fake did on its own clock: the
 * fake waited at least `delayMs` after the caller's speech ended, and the caller side heard the
 * answer only once the fake sent it, so the gap it measured holds the fake's whole gap. Bounds on
 * how long delivery took would measure the machine's load, not the transport: none here.
 */
function expectAnswerAfterFakeGap(
  turn: FakeTurn,
  seen: { speechEndMs: number; heardAtMs: number },
  delayMs: number,
): void {
  const truth = turn.agentStartMs - turn.callerEndMs!;
  // Timers fire late on a busy machine, never early (but for rounding: timers count whole
  // milliseconds, the fake's times are fractional).
  expect(truth).toBeGreaterThanOrEqual(delayMs - 2);
  // The fake heard the speech end no sooner than it was sent (both stamp it the same way, from the
  // frame that carries it); and nothing of the answer arrived before the fake began it.
  expect(turn.callerEndMs! - seen.speechEndMs).toBeGreaterThanOrEqual(-1);
  expect(seen.heardAtMs).toBeGreaterThanOrEqual(turn.agentStartMs);
  expect(seen.heardAtMs - seen.speechEndMs).toBeGreaterThanOrEqual(truth - 1);
}

describe('Vapi (vapi.websocket)', () => {
  it('streams PCM both ways, hangs up cleanly, and reads both sides from the call record', async () => {
    const f = await startFake({ replies: [REPLY], delayMs: 500, heardTexts: ['check my order'] });
    const { got, events } = listen();
    const call = await dial('vapi', events);
    expect(call).toMatchObject({ sampleRate: 16000, agentTextSource: 'provider_record' });
    expect(call.callId).toBe('vcall_1');

    const speechEndMs = await talk(call, { silenceMs: 2500 });
    const brain = f.brains[0]!;
    expect(brain.init).toMatchObject({
      assistantId: 'agent_1',
      transport: {
        provider: 'vapi.websocket',
        audioFormat: { format: 'pcm_s16le', container: 'raw', sampleRate: 16000 },
      },
      assistantOverrides: { variableValues: { customer_name: 'Ana' } },
    });
    expect(brain.turns).toHaveLength(1);
    expect(samples(got.audio)).toBeGreaterThan(16000); // over a second of the agent's speech
    const heardAtMs = firstAudioAfter(got.audio, speechEndMs);
    expectAnswerAfterFakeGap(brain.turns[0]!, { speechEndMs, heardAtMs }, 500);

    await call.hangup();
    await call.hangup(); // twice is fine
    call.send(new Int16Array(320)); // after the end: a no-op
    expect(got.ended).toBeNull();
    await expect.poll(() => brain.endedBy).toBe('caller');
    const transcript = await call.providerTranscript();
    expect(transcript).toEqual([
      { role: 'caller', text: 'check my order', atMs: expect.any(Number) },
      { role: 'agent', text: REPLY, atMs: expect.any(Number) },
    ]);
  });

  it('reports an abrupt drop as dropped', async () => {
    await startFake({ firstMessage: 'Hello there.', dropAfterMs: 600 });
    const { got, events, ended } = listen();
    await dial('vapi', events);
    await ended;
    expect(got.ended?.how).toBe('dropped');
    expect(got.ended?.detail).toMatch(/^Vapi connection dropped/);
  });
});

describe('ElevenLabs (conversation socket, audio mode)', () => {
  it('plays the agent, passes its text and what it heard, answers pings, hangs up cleanly', async () => {
    const f = await startFake({
      firstMessage: 'Hi, this is Eve.',
      replies: [REPLY],
      heardTexts: ['my order'],
    });
    const { got, events } = listen();
    const call = await dial('elevenlabs', events);
    expect(call).toMatchObject({ sampleRate: 16000, agentTextSource: 'provider' });
    expect(call.callId).toBe('conv_voice_1');
    await talk(call, { silenceMs: 2500 });
    const brain = f.brains[0]!;
    // Variables only: no prompt override (it would wipe the agent's tools), and audio, not text.
    expect(brain.init).toEqual({
      type: 'conversation_initiation_client_data',
      dynamic_variables: { customer_name: 'Ana' },
    });
    expect(got.agentText).toEqual(['Hi, this is Eve.', REPLY]);
    expect(got.heard).toEqual(['my order']);
    expect(samples(got.audio)).toBeGreaterThan(16000);
    const ids = got.audio.map((a) => a.eventId!);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(brain.pongs).toBeGreaterThan(0);
    expect(await call.providerTranscript()).toBeNull();
    await call.hangup();
    expect(got.ended).toBeNull();
  });

  it('turns an interruption into a clear up to its event id', async () => {
    const f = await startFake({
      firstMessage:
        'Thank you for calling the order desk, where every order is our first priority.',
      replies: [REPLY],
    });
    const { got, events } = listen();
    const call = await dial('elevenlabs', events);
    // The caller starts while the agent is mid-sentence, and keeps talking past 300 ms.
    await talk(call, { leadMs: 1200, silenceMs: 1200 });
    const brain = f.brains[0]!;
    expect(brain.interruptions).toBe(1);
    expect(got.clears).toHaveLength(1);
    const clear = got.clears[0]!;
    const lastBefore = got.audio.filter((a) => a.atMs <= clear.atMs).at(-1)!;
    expect(clear.upto).toBe(lastBefore.eventId);
  });

  it('reports the agent hanging up', async () => {
    await startFake({ replies: [REPLY], hangupAfterTurns: 1, burst: true });
    const { got, events, ended } = listen();
    const call = await dial('elevenlabs', events);
    await talk(call, { silenceMs: 6000, until: ended });
    await ended;
    expect(got.ended?.how).toBe('agent_hangup');
  });
});

describe('Bland (web-agent socket, experimental)', () => {
  it('streams PCM, passes its transcript updates and echoes its marks after playout', async () => {
    const f = await startFake({ replies: [REPLY], burst: true, heardTexts: ['my order'] });
    expect(dialerFor('bland')).toMatchObject({ experimental: true });
    const { got, events } = listen();
    const call = await dial('bland', events);
    expect(call).toMatchObject({ sampleRate: 16000, agentTextSource: 'provider' });
    await talk(call, { silenceMs: 3500 });
    const brain = f.brains[0]!;
    expect(brain.init).toEqual({ customer_name: 'Ana' }); // request_data at authorize
    expect(samples(got.audio)).toBeGreaterThan(16000);
    expect(got.agentText).toEqual([REPLY]);
    expect(got.heard).toEqual(['my order']);
    expect(brain.pongs).toBe(1);
    // Sent in a burst: the mark comes back only once that audio would have played.
    const durationMs = (samples(got.audio) * 1000) / 16000;
    expect(brain.marksEchoed.map((m) => m.name)).toEqual(['m1']);
    expect(brain.marksEchoed[0]!.atMs - brain.marksSent[0]!.atMs).toBeGreaterThan(durationMs - 60);
    await call.hangup();
    expect(got.ended).toBeNull();
  });

  it("opens Bland's streaming host, or the base URL's host, with a single-use token", async () => {
    expect(blandSocketUrl('https://api.bland.ai', 'ag', 'tk')).toBe(
      'wss://stream-v2.aws.dc8.bland.ai/ws/connect/blandshared?agent=ag&token=tk&background_noise=false',
    );
    const f = await startFake({});
    const res = await fetch(`${f.url}/v1/agents/agent_1/authorize`, {
      method: 'POST',
      headers: { authorization: f.key, 'content-type': 'application/json' },
      body: '{}',
    });
    const { token } = (await res.json()) as { token: string };
    const url = blandSocketUrl(f.url, 'agent_1', token);
    expect(url.startsWith(`ws://${new URL(f.url).host}/ws/connect/blandshared?`)).toBe(true);
    const first = new WebSocket(url);
    await once(first, 'open');
    first.terminate();
    const second = new WebSocket(url);
    const [err] = (await once(second, 'error')) as [Error];
    expect(err.message).toMatch(/401/);
  });
});

describe('Twilio Media Streams (custom agents)', () => {
  it('plays the phone side in mu-law at 8 kHz, echoes marks after playout and stops cleanly', async () => {
    const f = await startFake({ replies: [REPLY], burst: true, delayMs: 700 });
    const { got, events } = listen();
    const call = await dial('http', events, { websocketUrl: f.mediaStreamUrl, apiKey: '' });
    expect(call).toMatchObject({ sampleRate: 8000, agentTextSource: 'stt' });
    const speechEndMs = await talk(call, { silenceMs: 3500 });
    const brain = f.brains[0]!;
    expect(brain.init).toMatchObject({
      event: 'start',
      sequenceNumber: '1',
      start: {
        tracks: ['inbound'],
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
        customParameters: { customer_name: 'Ana' },
      },
    });
    expect(brain.init!.start.callSid).toBe(call.callId);
    expect(samples(got.audio)).toBeGreaterThan(8000);
    const heardAtMs = firstAudioAfter(got.audio, speechEndMs);
    expectAnswerAfterFakeGap(brain.turns[0]!, { speechEndMs, heardAtMs }, 700);
    const durationMs = (samples(got.audio) * 1000) / 8000;
    expect(brain.marksEchoed.map((m) => m.name)).toEqual(['reply-1']);
    // The answer reached the caller side at once, not held back until its playout ended.
    expect(heardAtMs).toBeLessThan(brain.marksEchoed[0]!.atMs);
    expect(brain.marksEchoed[0]!.atMs - brain.marksSent[0]!.atMs).toBeGreaterThan(durationMs - 60);
    await call.hangup();
    await expect.poll(() => brain.endedBy).toBe('caller');
    expect(got.ended).toBeNull();
  });

  it('turns a clear into events.clear and answers pending marks at once', async () => {
    const f = await startFake({
      firstMessage:
        'Thank you for calling the order desk, where every order is our first priority.',
      burst: true,
    });
    const { got, events } = listen();
    const call = await dial('http', events, { websocketUrl: f.mediaStreamUrl, apiKey: '' });
    await talk(call, { leadMs: 1000, silenceMs: 300 });
    expect(got.clears).toHaveLength(1);
    const brain = f.brains[0]!;
    await expect.poll(() => brain.marksEchoed.length).toBe(1);
    // Echoed with the clear, long before the first message would have finished playing.
    expect(brain.marksEchoed[0]!.atMs - brain.marksSent[0]!.atMs).toBeLessThan(2500);
  });

  it('reports an abrupt drop as dropped', async () => {
    const f = await startFake({ dropAfterMs: 400 });
    const { got, events, ended } = listen();
    await dial('http', events, { websocketUrl: f.mediaStreamUrl, apiKey: '' });
    await ended;
    expect(got.ended?.how).toBe('dropped');
  });
});

describe('dialling', () => {
  it.each([
    ['vapi', 'Vapi'],
    ['elevenlabs', 'ElevenLabs'],
    ['bland', 'Bland'],
  ])(
    '%s refuses a wrong key with a message naming the provider, never the key',
    async (provider, name) => {
      await startFake({});
      const { events } = listen();
      const err = (await dial(provider, events, { apiKey: 'wrong-key-XYZ' }).catch(
        (e: unknown) => e,
      )) as Error;
      expect(err).toBeInstanceOf(Error);
      expect(err.message).toContain(name);
      expect(err.message).toMatch(/refused the API key/);
      expect(err.message).not.toContain('wrong-key-XYZ');
    },
  );

  it('honours the abort signal while the socket is still opening', async () => {
    // A server that takes the connection and never answers the upgrade.
    const held = new Set<Socket>();
    const silent = createServer((socket) => held.add(socket));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as AddressInfo).port;
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 200);
      const started = performance.now();
      const { events } = listen();
      const err = (await dialer('http')({
        baseUrl: '',
        apiKey: '',
        agentId: '',
        websocketUrl: `ws://127.0.0.1:${port}/media-stream`,
        variables: {},
        events,
        signal: controller.signal,
      }).catch((e: unknown) => e)) as Error;
      expect(err.message).toMatch(/cancelled|aborted/i);
      expect(performance.now() - started).toBeLessThan(2000);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });

  it('refuses Retell with the reason, and providers it does not know', () => {
    expect(dialerFor('retell')).toEqual({ refused: expect.stringMatching(/WebRTC.*LiveKit/) });
    expect(dialerFor('nope')).toHaveProperty('refused');
    expect(dialerFor('http')).toMatchObject({ experimental: false });
  });
});

describe('ElevenLabs details', () => {
  it('answers a client tool call with an error, since audio mode runs no client tools', async () => {
    const f = await startFake({ clientToolCall: true });
    const { events } = listen();
    await dial('elevenlabs', events);
    const brain = f.brains[0]!;
    await expect
      .poll(() => brain.clientMessages)
      .toEqual([
        {
          type: 'client_tool_result',
          tool_call_id: 'ct_1',
          result: expect.stringMatching(/does not run client tools in audio mode/),
          is_error: true,
        },
      ]);
  });

  it.each(['pcm_8000', 'pcm_16000', 'pcm_22050', 'pcm_24000', 'pcm_44100', 'ulaw_8000'])(
    "speaks %s both ways, at the call's 16 kHz",
    (name) => {
      const format = parseElevenLabsFormat(name)!;
      expect(format).not.toBeNull();
      // A 440 Hz tone through the caller's encoder, then back through the agent's decoder.
      const tone = Int16Array.from({ length: 16000 }, (_, i) =>
        Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 16000)),
      );
      const encode = callerAudioEncoder(format, 16000);
      const decode = agentAudioDecoder(format, 16000);
      const back: Int16Array[] = [];
      for (let i = 0; i < tone.length; i += 320)
        back.push(decode(encode(tone.subarray(i, i + 320))));
      const out = concatPcm(back);
      expect(Math.abs(out.length - tone.length)).toBeLessThan(200); // the filters' look-ahead
      const level = rmsDbfs(out.subarray(2000));
      expect(Math.abs(level - rmsDbfs(tone))).toBeLessThan(1);
    },
  );

  it('refuses a format it does not speak', () => {
    expect(parseElevenLabsFormat('mp3_44100')).toBeNull();
    expect(parseElevenLabsFormat('ulaw_16000')).toBeNull();
  });
});

describe('the fake provider server', () => {
  it('serves the voice protocols on its own port beside the text ones', async () => {
    const providers = await startFakeProviders({ voice: { replies: [REPLY] } });
    try {
      const base = { baseUrl: providers.url, apiKey: GOOD_KEY, variables: {} };
      // ElevenLabs' conversation path: audio here, while text mode still answers as before.
      const { got, events } = listen();
      const call = await dialer('elevenlabs')({
        ...base,
        agentId: 'el_1',
        events,
        signal: new AbortController().signal,
      });
      calls.push(call);
      const chat = await elevenLabsChat(
        providerClient(providers.url, { 'xi-api-key': GOOD_KEY }),
        'el_1',
        true,
        5000,
      );
      expect(chat.firstMessage).toBe('Hi, Eve here');
      await chat.close();
      await talk(call, { silenceMs: 1500 });
      expect(got.agentText).toEqual([REPLY]);
      const vapi = await dialer('vapi')({
        ...base,
        agentId: 'asst_1',
        events: listen().events,
        signal: new AbortController().signal,
      });
      calls.push(vapi);
      expect(providers.voice!.brains.map((b) => b.protocol)).toEqual(['elevenlabs', 'vapi']);
      await Promise.all(calls.splice(0).map((c) => c.hangup()));
    } finally {
      await providers.stop();
    }
  });
});
