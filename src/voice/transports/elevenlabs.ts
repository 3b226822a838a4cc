/**
 * ElevenLabs Conversational AI in audio mode: the agent's conversation socket (through the same
 * signed URL as text mode), `conversation_initiation_client_data` first with the dynamic
 * variables only (a prompt override would wipe the agent's tools, and `text_only` would turn the
 * voice off), then base64 PCM both ways in the formats the agent announces.
 */
import { DEFAULT_RETRY, ProviderError, providerClient } from '../../providers/client.js';
import { elevenLabsConversationUrl } from '../../providers/elevenlabs-chat.js';
import { num, obj, str, type Json } from '../../providers/read.js';
import {
  AGENT_MESSAGE_TOO_LARGE,
  type AgentAudioEvents,
  type AudioCall,
  type Dial,
  type DialRequest,
} from '../transport.js';
import { CallLine, openSocket, sentTooLarge } from './call-line.js';
import {
  agentAudioDecoder,
  callerAudioEncoder,
  parseElevenLabsFormat,
  type ElevenLabsAudioFormat,
} from './elevenlabs-formats.js';
import { CONNECT_TIMEOUT_MS } from './http.js';
import { cancelled, jsonObject, rawText, unlessAborted, withoutSecret } from './wire.js';

const PROVIDER = 'ElevenLabs';
const SAMPLE_RATE = 16000;
const CLIENT_TOOLS_REFUSED =
  'Callbench does not run client tools in audio mode: this tool call was not executed.';

/** The signed conversation URL, read once within the dial's deadline. */
async function signedUrl(req: DialRequest): Promise<string> {
  const call = providerClient(
    req.baseUrl,
    { 'xi-api-key': req.apiKey },
    { ...DEFAULT_RETRY, attempts: 2, baseDelayMs: 250, timeoutMs: CONNECT_TIMEOUT_MS },
  );
  try {
    return await unlessAborted(elevenLabsConversationUrl(call, req.agentId), req.signal, PROVIDER);
  } catch (err) {
    if (!(err instanceof ProviderError) || err.message.startsWith(PROVIDER)) throw err;
    const said = withoutSecret(err.message, req.apiKey).replace(/^The provider /, '');
    throw new ProviderError(err.kind, `${PROVIDER}: ${said}`, err.status);
  }
}

interface Formats {
  input: ElevenLabsAudioFormat;
  output: ElevenLabsAudioFormat;
  conversationId: string | null;
}

/** The formats in force, from `conversation_initiation_metadata`; one we cannot speak is refused. */
function formatsOf(event: Json): Formats {
  const meta = obj(event.conversation_initiation_metadata_event);
  const inputName = meta.user_input_audio_format ?? 'pcm_16000';
  const outputName = meta.agent_output_audio_format ?? 'pcm_16000';
  const input = parseElevenLabsFormat(inputName);
  const output = parseElevenLabsFormat(outputName);
  if (!input || !output)
    throw new ProviderError(
      'bad_response',
      `${PROVIDER} announced audio formats Callbench does not speak (input ${JSON.stringify(inputName)}, output ${JSON.stringify(outputName)})`,
    );
  return { input, output, conversationId: str(meta.conversation_id) };
}

/** One conversation event, once the conversation has started. */
function handleEvent(
  event: Json,
  ctx: { line: CallLine; events: AgentAudioEvents; decode: (b64: string) => Int16Array },
): void {
  const { line, events } = ctx;
  const eventId = (v: unknown) => num(obj(v).event_id) ?? undefined;
  switch (event.type) {
    case 'audio': {
      const base64 = str(obj(event.audio_event).audio_base_64);
      const pcm = base64 ? ctx.decode(base64) : null;
      if (pcm?.length) events.audio(pcm, eventId(event.audio_event));
      return;
    }
    case 'interruption':
      return events.clear(eventId(event.interruption_event));
    case 'agent_response': {
      const text = str(obj(event.agent_response_event).agent_response);
      if (text) events.agentText(text);
      return;
    }
    case 'agent_response_correction': {
      // The agent was cut off: its text is replaced by what it actually said before the cut.
      const text = str(obj(event.agent_response_correction_event).corrected_agent_response);
      if (text) events.correctAgentText(text);
      return;
    }
    case 'user_transcript': {
      const text = str(obj(event.user_transcription_event).user_transcript);
      if (text) events.heard(text);
      return;
    }
    case 'ping': {
      const ping = obj(event.ping_event);
      const pong = JSON.stringify({ type: 'pong', event_id: ping.event_id });
      return line.later(Math.max(0, num(ping.ping_ms) ?? 0), () => line.send(pong));
    }
    case 'client_tool_call': {
      const toolCallId = obj(event.client_tool_call).tool_call_id;
      const result = { type: 'client_tool_result', tool_call_id: toolCallId };
      line.send(JSON.stringify({ ...result, result: CLIENT_TOOLS_REFUSED, is_error: true }));
      return;
    }
  }
}

interface ConversationStart {
  started: Promise<Formats>;
  resolve(formats: Formats): void;
  fail(err: Error): void;
}

/** Settles once the conversation has started, or on an early close, the deadline or a cancel. */
function conversationStart(line: CallLine, signal: AbortSignal): ConversationStart {
  let resolve!: (formats: Formats) => void;
  let fail!: (err: Error) => void;
  const started = new Promise<Formats>((res, rej) => {
    resolve = res;
    fail = rej;
  });
  const timer = setTimeout(
    () =>
      fail(
        new ProviderError(
          'unavailable',
          `${PROVIDER} did not start the conversation within ${CONNECT_TIMEOUT_MS / 1000} s`,
        ),
      ),
    CONNECT_TIMEOUT_MS,
  );
  const onAbort = () => fail(cancelled(signal, PROVIDER));
  signal.addEventListener('abort', onAbort, { once: true });
  line.socket.once('close', (code, reason) => {
    if (sentTooLarge(line.socket))
      return fail(new ProviderError('bad_response', `${PROVIDER}: ${AGENT_MESSAGE_TOO_LARGE}`));
    const said = reason.length ? `: ${reason.toString('utf8')}` : '';
    fail(
      new ProviderError(
        'unavailable',
        `${PROVIDER} closed the conversation before it started (${code}${said})`,
      ),
    );
  });
  const settled = () => {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  };
  started.then(settled, settled);
  return { started, resolve, fail };
}

/** The first events: an error fails the dial, the metadata starts the conversation. */
function onHandshakeEvent(event: Json, start: ConversationStart): Formats | null {
  if (event.type === 'error') {
    const said = str(event.message) ?? str(obj(event.error_event).message) ?? 'conversation error';
    start.fail(new ProviderError('bad_response', `${PROVIDER}: ${said}`));
  }
  if (event.type !== 'conversation_initiation_metadata') return null;
  try {
    const formats = formatsOf(event);
    start.resolve(formats);
    return formats;
  } catch (err) {
    start.fail(err instanceof Error ? err : new Error(String(err)));
    return null;
  }
}

export const dialElevenLabs: Dial = async (req): Promise<AudioCall> => {
  const { socket, listen } = await openSocket({
    provider: PROVIDER,
    url: await signedUrl(req),
    signal: req.signal,
    secret: req.apiKey,
  });
  // Until the conversation has started, the far side's end fails the dial instead of being
  // reported to the loop.
  let decode: ((b64: string) => Int16Array) | null = null;
  // The loop's events (a class: its methods are called on it, never copied off it).
  const loop = req.events;
  const events: AgentAudioEvents = {
    audio: (pcm, eventId) => loop.audio(pcm, eventId),
    clear: (upto) => loop.clear(upto),
    agentText: (text) => loop.agentText(text),
    correctAgentText: (text) => loop.correctAgentText(text),
    heard: (text) => loop.heard(text),
    ended: (how, detail) => {
      if (decode) loop.ended(how, detail);
    },
  };
  const line = new CallLine(socket, { provider: PROVIDER, events, secret: req.apiKey });
  const start = conversationStart(line, req.signal);
  listen((data) => {
    const event = jsonObject(rawText(data));
    if (!event) return;
    if (!decode) {
      // Set here, not after the await: audio right behind the metadata in one read is kept.
      const formats = onHandshakeEvent(event, start);
      if (formats) decode = agentAudioDecoder(formats.output, SAMPLE_RATE);
      return;
    }
    if (line.live) handleEvent(event, { line, events, decode });
  });
  socket.send(
    JSON.stringify({
      type: 'conversation_initiation_client_data',
      dynamic_variables: req.variables,
    }),
  );
  let formats: Formats;
  try {
    formats = await start.started;
  } catch (err) {
    socket.terminate();
    throw err;
  }
  const encode = callerAudioEncoder(formats.input, SAMPLE_RATE);
  return {
    sampleRate: SAMPLE_RATE,
    agentTextSource: 'provider',
    callId: formats.conversationId,
    send(frame) {
      if (line.live) line.send(JSON.stringify({ user_audio_chunk: encode(frame) }));
    },
    hangup: () => line.hangup(),
    // What the agent heard and said already came live (`user_transcript`, `agent_response`).
    providerTranscript: () => Promise.resolve(null),
  };
};
