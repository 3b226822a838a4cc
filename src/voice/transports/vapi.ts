/**
 * Vapi over its `vapi.websocket` transport: `POST /call` creates the call and names its socket;
 * binary frames carry raw PCM16 at 16 kHz both ways, text frames JSON control messages. Vapi
 * sends no text of the agent's words we rely on live: its call record, read after the call,
 * holds its own transcript of both sides.
 */
import { bytesFromPcm } from '../../audio/pcm.js';
import { ProviderError } from '../../providers/client.js';
import { arr, num, obj, str, type Json } from '../../providers/read.js';
import type { AudioCall, Dial, DialRequest, ProviderTranscriptTurn } from '../transport.js';
import { CallLine, openSocket } from './call-line.js';
import { requestJson, urlUnder } from './http.js';
import { jsonObject, Pcm16Stream, rawBytes, rawText } from './wire.js';

const PROVIDER = 'Vapi';
const SAMPLE_RATE = 16000;
/** The call record may lag the hang-up: read again this many times, this far apart. */
const RECORD_ATTEMPTS = 5;
const RECORD_RETRY_MS = 400;

function createCallBody(req: DialRequest): Json {
  return {
    assistantId: req.agentId,
    transport: {
      provider: 'vapi.websocket',
      audioFormat: { format: 'pcm_s16le', container: 'raw', sampleRate: SAMPLE_RATE },
    },
    ...(Object.keys(req.variables).length
      ? { assistantOverrides: { variableValues: req.variables } }
      : {}),
  };
}

/**
 * Control messages that end the call. Which ones Vapi sends on this socket is not documented;
 * these are the names its other channels use for the end of a call.
 */
function endsCall(message: Json): boolean {
  const type = str(message.type);
  if (type === 'hangup' || type === 'end-call' || type === 'call-ended') return true;
  return type === 'status-update' && message.status === 'ended';
}

/** Vapi's `messages[]` as both sides' turns: `bot`/`assistant` is the agent, `user` the caller. */
export function vapiTranscript(record: Json): ProviderTranscriptTurn[] {
  const turns: ProviderTranscriptTurn[] = [];
  for (const m of arr(record.messages).map(obj)) {
    const role =
      m.role === 'bot' || m.role === 'assistant' ? 'agent' : m.role === 'user' ? 'caller' : null;
    const text = str(m.message) ?? str(m.content);
    if (!role || !text) continue;
    const seconds = num(m.secondsFromStart);
    turns.push({ role, text, atMs: seconds === null ? null : Math.round(seconds * 1000) });
  }
  return turns;
}

async function readCallRecord(req: DialRequest, callId: string): Promise<Json> {
  const url = urlUnder(req.baseUrl, `/call/${encodeURIComponent(callId)}`);
  const headers = { authorization: `Bearer ${req.apiKey}` };
  let record: Json = {};
  for (let attempt = 1; attempt <= RECORD_ATTEMPTS; attempt++) {
    record = await requestJson({
      provider: PROVIDER,
      method: 'GET',
      url,
      headers,
      secret: req.apiKey,
    });
    if (record.status === 'ended') break;
    if (attempt < RECORD_ATTEMPTS) await new Promise((r) => setTimeout(r, RECORD_RETRY_MS));
  }
  return record;
}

export const dialVapi: Dial = async (req): Promise<AudioCall> => {
  const created = await requestJson({
    provider: PROVIDER,
    method: 'POST',
    url: urlUnder(req.baseUrl, '/call'),
    headers: { authorization: `Bearer ${req.apiKey}` },
    body: createCallBody(req),
    signal: req.signal,
    secret: req.apiKey,
  });
  const callId = str(created.id);
  const url = str(obj(created.transport).websocketCallUrl);
  if (!url)
    throw new ProviderError(
      'bad_response',
      `${PROVIDER} answered POST /call without transport.websocketCallUrl`,
    );
  const { socket, listen } = await openSocket({
    provider: PROVIDER,
    url,
    signal: req.signal,
    secret: req.apiKey,
  });
  const line = new CallLine(socket, { provider: PROVIDER, events: req.events, secret: req.apiKey });
  const agentAudio = new Pcm16Stream();

  listen((data, isBinary) => {
    if (!line.live) return;
    if (isBinary) {
      const pcm = agentAudio.push(rawBytes(data));
      if (pcm.length) req.events.audio(pcm);
      return;
    }
    // Other control messages (transcripts, speech and status updates) are the call record's to
    // report, after the call.
    const message = jsonObject(rawText(data));
    if (message && endsCall(message))
      line.agentHungUp(`${PROVIDER} ended the call (${String(message.type)})`);
  });

  return {
    sampleRate: SAMPLE_RATE,
    agentTextSource: 'provider_record',
    callId,
    send: (frame) => line.send(bytesFromPcm(frame)),
    hangup: () => line.hangup(JSON.stringify({ type: 'hangup' })),
    async providerTranscript() {
      if (!callId) return null;
      return vapiTranscript(await readCallRecord(req, callId));
    },
  };
};
