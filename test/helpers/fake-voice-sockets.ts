/**
 * The fake voice agents' side of each call socket: what Vapi, ElevenLabs (audio mode), Bland
 * and a Twilio Media Streams agent send and expect, wired to a voice brain.
 */
import WebSocket, { type RawData } from 'ws';
import { bytesFromPcm, mulawDecode, mulawEncode, pcmFromBytes } from '../../src/audio/pcm.js';
import type { BrainLink, FakeBrainRecord, FakeProtocol, VoiceBrain } from './fake-voice-brain.js';
import type { JsonObject } from './json.js';

type Json = JsonObject;

/** Makes the brain of a new call on `socket` (recorded, stopped when the socket closes). */
export type BrainFactory = (
  socket: WebSocket,
  protocol: FakeProtocol,
  link: Omit<BrainLink, 'hangup' | 'drop'>,
) => VoiceBrain;

export const textOf = (data: RawData) => Buffer.from(data as Buffer).toString('utf8');
const pcmOf = (data: RawData) => pcmFromBytes(Uint8Array.from(data as Buffer));
export const parse = (data: RawData): Json => {
  try {
    return JSON.parse(textOf(data)) as Json;
  } catch {
    return {};
  }
};
export const sendJson = (socket: WebSocket, value: unknown) => {
  if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(value));
};
const echoed = (record: FakeBrainRecord, m: Json) =>
  record.marksEchoed.push({ name: String(m.mark?.name), atMs: performance.now() });

/** Vapi's call socket: raw PCM16 at 16 kHz both ways, `{"type":"hangup"}` from the caller. */
export function vapiSocket(brainFor: BrainFactory, socket: WebSocket, body: Json): VoiceBrain {
  const brain = brainFor(socket, 'vapi', {
    rate: 16000,
    audio: (pcm) => socket.send(bytesFromPcm(pcm)),
    // The vapi.websocket transport has no "clear": an interrupted agent just stops.
    interrupted: () => undefined,
  });
  brain.record.init = body;
  socket.on('message', (data, isBinary) => {
    if (isBinary) return brain.feed(pcmOf(data));
    const m = parse(data);
    brain.record.clientMessages.push(m);
    if (m.type === 'hangup') socket.close(1000);
  });
  brain.start();
  return brain;
}

/** ElevenLabs' conversation socket in audio mode, after the caller's init message. */
export function elevenAudioSocket(
  brainFor: BrainFactory,
  socket: WebSocket,
  opts: { init: Json; conversationId: string; clientToolCall: boolean },
): VoiceBrain {
  let eventId = 0;
  const send = (value: Json) => sendJson(socket, value);
  const brain = brainFor(socket, 'elevenlabs', {
    rate: 16000,
    audio: (pcm) => {
      const audio_base_64 = bytesFromPcm(pcm).toString('base64');
      send({ type: 'audio', audio_event: { audio_base_64, event_id: ++eventId } });
    },
    replyStarted: (t) =>
      send({ type: 'agent_response', agent_response_event: { agent_response: t } }),
    heard: (t) =>
      send({ type: 'user_transcript', user_transcription_event: { user_transcript: t } }),
    interrupted: () => send({ type: 'interruption', interruption_event: { event_id: eventId } }),
  });
  brain.record.init = opts.init;
  send({
    type: 'conversation_initiation_metadata',
    conversation_initiation_metadata_event: {
      conversation_id: opts.conversationId,
      agent_output_audio_format: 'pcm_16000',
      user_input_audio_format: 'pcm_16000',
    },
  });
  if (opts.clientToolCall)
    send({
      type: 'client_tool_call',
      client_tool_call: { tool_name: 'open_page', tool_call_id: 'ct_1', parameters: {} },
    });
  let pingId = 0;
  const ping = () => send({ type: 'ping', ping_event: { event_id: ++pingId, ping_ms: 5 } });
  const pings = setInterval(ping, 1000);
  socket.on('close', () => clearInterval(pings));
  socket.on('message', (data) => {
    const m = parse(data);
    if (typeof m.user_audio_chunk === 'string')
      return brain.feed(pcmFromBytes(Buffer.from(m.user_audio_chunk, 'base64')));
    if (m.type === 'pong') brain.record.pongs++;
    else brain.record.clientMessages.push(m);
  });
  brain.start();
  return brain;
}

/** Bland's web-agent socket: raw PCM16, `clear`, `ping`/`pong`, `mark` and `update` JSON. */
export function blandSocket(brainFor: BrainFactory, socket: WebSocket, requestData: Json) {
  let packet = 0;
  let mark = 0;
  const update = (type: string, text: string) =>
    sendJson(socket, {
      event: 'update',
      payload: { processId: `p${++packet}`, packetId: `k${packet}`, type, text, complete: true },
    });
  const brain = brainFor(socket, 'bland', {
    rate: 16000,
    audio: (pcm) => socket.send(bytesFromPcm(pcm)),
    replyStarted: (t) => update('assistant', t),
    heard: (t) => update('user', t),
    replyEnded: () => {
      const name = `m${++mark}`;
      brain.record.marksSent.push({ name, atMs: performance.now() });
      sendJson(socket, { event: 'mark', mark: { name } });
    },
    interrupted: () => socket.send('clear'),
  });
  brain.record.init = requestData;
  socket.on('message', (data, isBinary) => {
    if (isBinary) return brain.feed(pcmOf(data));
    if (textOf(data) === 'pong') return void brain.record.pongs++;
    const m = parse(data);
    if (m.event === 'mark') echoed(brain.record, m);
    else brain.record.clientMessages.push(m);
  });
  socket.send('ping');
  brain.start();
  return brain;
}

/** A custom agent's Twilio Media Streams socket: the brain starts at the caller's `start`. */
export function twilioSocket(brainFor: BrainFactory, socket: WebSocket) {
  let streamSid = '';
  let mark = 0;
  let connected = false;
  let brain: VoiceBrain | null = null;
  const link = (record: () => FakeBrainRecord): Omit<BrainLink, 'hangup' | 'drop'> => ({
    rate: 8000,
    audio: (pcm) => {
      const payload = mulawEncode(pcm).toString('base64');
      sendJson(socket, { event: 'media', streamSid, media: { payload } });
    },
    replyEnded: () => {
      const name = `reply-${++mark}`;
      record().marksSent.push({ name, atMs: performance.now() });
      sendJson(socket, { event: 'mark', streamSid, mark: { name } });
    },
    interrupted: () => sendJson(socket, { event: 'clear', streamSid }),
  });
  socket.on('message', (data) => {
    const m = parse(data);
    if (m.event === 'connected') connected = true;
    else if (m.event === 'start' && connected && !brain) {
      streamSid = String(m.start?.streamSid);
      const b: VoiceBrain = brainFor(
        socket,
        'twilio',
        link(() => b.record),
      );
      brain = b;
      brain.record.init = m;
      brain.start();
    } else if (m.event === 'media' && brain)
      brain.feed(mulawDecode(Buffer.from(String(m.media?.payload ?? ''), 'base64')));
    else if (m.event === 'mark' && brain) echoed(brain.record, m);
    else if (m.event === 'dtmf' && brain) brain.record.clientMessages.push(m);
    else if (m.event === 'stop') {
      brain?.record.clientMessages.push(m);
      socket.close(1000);
    }
  });
}
