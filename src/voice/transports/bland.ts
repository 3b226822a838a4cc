/**
 * Bland's web-agent socket, as its browser SDK (`bland-client-js-sdk` 1.0.3) drives it; Bland
 * documents none of it, so this transport is experimental. A single-use session token from
 * `POST /v1/agents/{id}/authorize` opens the socket; binary frames are raw PCM16LE at 16 kHz
 * both ways with no format handshake; text frames are `"clear"` (barge-in: drop unplayed agent
 * audio), `"ping"`/`"pong"`, and JSON `{event: "mark"}` (echoed once the audio before it has
 * played, as the SDK's player does) or `{event: "update", payload}` (live transcript packets).
 */
import { bytesFromPcm, durationMs } from '../../audio/pcm.js';
import { ProviderError } from '../../providers/client.js';
import { obj, str, type Json } from '../../providers/read.js';
import type { AgentAudioEvents, AudioCall, Dial, DialRequest } from '../transport.js';
import { CallLine, openSocket } from './call-line.js';
import { requestJson, urlUnder } from './http.js';
import { PlayoutMarks } from './playout-marks.js';
import { jsonObject, Pcm16Stream, rawBytes, rawText } from './wire.js';

const PROVIDER = 'Bland';
const SAMPLE_RATE = 16000;
/** The SDK's streaming endpoint, for agents on Bland's own API host. */
const BLAND_API_HOST = 'api.bland.ai';
const BLAND_STREAM_URL = 'wss://stream-v2.aws.dc8.bland.ai/ws/connect/blandshared';

/**
 * The socket URL: Bland's streaming host for its own API; for any other base URL (a regional or
 * test host) the same path on that host, ws or wss as the base URL is http or https.
 */
export function blandSocketUrl(baseUrl: string, agentId: string, token: string): string {
  const base = new URL(baseUrl);
  const url =
    base.hostname === BLAND_API_HOST
      ? new URL(BLAND_STREAM_URL)
      : new URL(
          new URL(BLAND_STREAM_URL).pathname,
          `${base.protocol === 'https:' ? 'wss' : 'ws'}://${base.host}`,
        );
  url.searchParams.set('agent', agentId);
  url.searchParams.set('token', token);
  // Bland can mix office noise under its agent's voice: off, so the audio measured is the agent's.
  url.searchParams.set('background_noise', 'false');
  return url.toString();
}

async function sessionToken(req: DialRequest): Promise<string> {
  const answer = await requestJson({
    provider: PROVIDER,
    method: 'POST',
    url: urlUnder(req.baseUrl, `/v1/agents/${encodeURIComponent(req.agentId)}/authorize`),
    headers: { authorization: req.apiKey },
    body: Object.keys(req.variables).length ? { request_data: req.variables } : {},
    signal: req.signal,
    secret: req.apiKey,
  });
  const token = str(answer.token) ?? str(obj(answer.data).token);
  if (!token)
    throw new ProviderError(
      'bad_response',
      `${PROVIDER} authorized no session token for the agent`,
    );
  return token;
}

/**
 * Live transcript packets, joined per process and speaker until Bland marks them complete. The
 * SDK names their fields (`processId`, `type`, `text`, `complete`) but not the speaker values:
 * a `type` naming the user is what the agent heard, anything else the agent's words.
 */
function transcriptPackets(events: AgentAudioEvents) {
  const open = new Map<string, { heard: boolean; text: string }>();
  const flush = (key: string) => {
    const packet = open.get(key);
    open.delete(key);
    if (!packet?.text) return;
    if (packet.heard) events.heard(packet.text);
    else events.agentText(packet.text);
  };
  return {
    update(payload: Json): void {
      const text = str(payload.text)?.trim();
      if (!text) return;
      const type = str(payload.type) ?? '';
      const key = `${str(payload.processId) ?? ''}:${type}`;
      const packet = open.get(key) ?? { heard: /user|human|caller/i.test(type), text: '' };
      packet.text = packet.text ? `${packet.text} ${text}` : text;
      open.set(key, packet);
      if (payload.complete !== false) flush(key);
    },
    flushAll: () => [...open.keys()].forEach(flush),
  };
}

function onText(
  text: string,
  ctx: {
    line: CallLine;
    events: AgentAudioEvents;
    marks: PlayoutMarks;
    packets: ReturnType<typeof transcriptPackets>;
  },
): void {
  if (text === 'ping') return ctx.line.send('pong');
  if (text === 'pong') return;
  if (text === 'clear') {
    ctx.marks.clear();
    return ctx.events.clear();
  }
  const message = jsonObject(text);
  if (message?.event === 'mark') {
    const name = str(obj(message.mark).name);
    if (name) ctx.marks.mark(name);
  } else if (message?.event === 'update') ctx.packets.update(obj(message.payload));
}

export const dialBland: Dial = async (req): Promise<AudioCall> => {
  const token = await sessionToken(req);
  const url = blandSocketUrl(req.baseUrl, req.agentId, token);
  const { socket, listen } = await openSocket({
    provider: PROVIDER,
    url,
    signal: req.signal,
    secret: token,
  });
  const { events } = req;
  const line = new CallLine(socket, { provider: PROVIDER, events, secret: token });
  const agentAudio = new Pcm16Stream();
  const marks = new PlayoutMarks((name) =>
    line.send(JSON.stringify({ event: 'mark', mark: { name } })),
  );
  const packets = transcriptPackets(events);
  line.whenOver(() => {
    marks.stop();
    packets.flushAll();
  });

  listen((data, isBinary) => {
    if (!line.live) return;
    if (!isBinary) return onText(rawText(data), { line, events, marks, packets });
    const pcm = agentAudio.push(rawBytes(data));
    if (!pcm.length) return;
    marks.played(durationMs(pcm.length, SAMPLE_RATE));
    events.audio(pcm);
  });

  return {
    sampleRate: SAMPLE_RATE,
    agentTextSource: 'provider',
    callId: null,
    send: (frame) => line.send(bytesFromPcm(frame)),
    hangup: () => line.hangup(),
    providerTranscript: () => Promise.resolve(null),
  };
};
