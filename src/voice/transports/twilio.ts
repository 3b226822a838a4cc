/**
 * Custom agents (`http` provider) over the Twilio Media Streams protocol, which Pipecat, LiveKit
 * and most home-built voice stacks accept as their phone side. Callbench plays Twilio: it opens
 * the agent's WebSocket, announces the stream (`connected`, `start`), streams the caller as
 * base64 8 kHz mu-law `media`, plays the agent's `media` back, honours `clear`, answers `mark`
 * when the audio before it would have finished playing, and ends with `stop`.
 */
import { randomBytes } from 'node:crypto';
import { durationMs, mulawDecode, mulawEncode } from '../../audio/pcm.js';
import { ProviderError } from '../../providers/client.js';
import { obj, str, type Json } from '../../providers/read.js';
import type { CallToolCall } from '../../domain/providers.js';
import type { AgentAudioEvents, AudioCall, Dial } from '../transport.js';
import { CallLine, openSocket } from './call-line.js';
import { PlayoutMarks } from './playout-marks.js';
import { jsonObject, rawText } from './wire.js';

const PROVIDER = 'Custom agent (Twilio Media Streams)';
const SAMPLE_RATE = 8000;

/** A Twilio-style id: its two-letter prefix and 32 hex digits. */
const sid = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;

/** The telephony side's outgoing messages, numbered as Twilio numbers them. */
function twilioStream(line: CallLine, variables: Record<string, string>) {
  const ids = { streamSid: sid('MZ'), callSid: sid('CA'), accountSid: sid('AC') };
  let sequence = 0;
  let chunk = 0;
  let startedAt = 0;
  const post = (event: string, body: Json) =>
    line.send(
      JSON.stringify({
        event,
        sequenceNumber: String(++sequence),
        streamSid: ids.streamSid,
        ...body,
      }),
    );
  return {
    ids,
    open(): void {
      line.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
      startedAt = performance.now();
      post('start', {
        start: {
          streamSid: ids.streamSid,
          callSid: ids.callSid,
          accountSid: ids.accountSid,
          tracks: ['inbound'],
          customParameters: variables,
          mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: SAMPLE_RATE, channels: 1 },
        },
      });
    },
    media(frame: Int16Array): void {
      const timestamp = String(Math.round(performance.now() - startedAt));
      const payload = mulawEncode(frame).toString('base64');
      post('media', { media: { track: 'inbound', chunk: String(++chunk), timestamp, payload } });
    },
    mark: (name: string) => post('mark', { mark: { name } }),
    /** Keypad digits as Twilio reports them: one `dtmf` message per digit, from the caller's track. */
    dtmf: (digits: string) => {
      for (const digit of digits) post('dtmf', { dtmf: { track: 'inbound_track', digit } });
    },
    stop: () =>
      JSON.stringify({
        event: 'stop',
        sequenceNumber: String(++sequence),
        streamSid: ids.streamSid,
        stop: { accountSid: ids.accountSid, callSid: ids.callSid },
      }),
  };
}

/** A tool call as the demo agent reports it: `{name, arguments, result, success, latencyMs}`. */
function reportedToolCall(call: Json): CallToolCall {
  return {
    name: str(call.name) ?? 'unknown',
    arguments: call.arguments ?? null,
    result: call.result ?? null,
    success: typeof call.success === 'boolean' ? call.success : null,
    latencyMs: typeof call.latencyMs === 'number' ? call.latencyMs : null,
  };
}

/** One message from the agent; `agent_text` only from an agent that says its words (the demo). */
function onAgentMessage(
  message: Json,
  ctx: { events: AgentAudioEvents; marks: PlayoutMarks; agentText: boolean },
): void {
  switch (message.event) {
    case 'agent_text': {
      const text = str(obj(message.agent_text).text);
      if (ctx.agentText && text) ctx.events.agentText(text);
      return;
    }
    case 'agent_tool_call':
      if (ctx.agentText) ctx.events.toolCall?.(reportedToolCall(obj(message.agent_tool_call)));
      return;
    case 'media': {
      const payload = str(obj(message.media).payload);
      if (!payload) return;
      const pcm = mulawDecode(Buffer.from(payload, 'base64'));
      if (!pcm.length) return;
      ctx.marks.played(durationMs(pcm.length, SAMPLE_RATE));
      return ctx.events.audio(pcm);
    }
    case 'clear':
      ctx.marks.clear();
      return ctx.events.clear();
    case 'mark': {
      const name = str(obj(message.mark).name);
      if (name) ctx.marks.mark(name);
      return;
    }
  }
}

/**
 * A Twilio Media Streams dialer. `agentText`: the agent also sends its words as `agent_text`
 * messages (`{event: "agent_text", agent_text: {text}}`, before their audio) and its tool calls as
 * `agent_tool_call`, as the built-in demo agent does, so the call needs no speech-to-text.
 */
function twilioDialer(provider: string, agentText: boolean): Dial {
  return (req) => dialTwilioAs(req, { provider, agentText });
}

export const dialTwilio: Dial = twilioDialer(PROVIDER, false);
export const dialDemo: Dial = twilioDialer('Demo agent (Twilio Media Streams)', true);

async function dialTwilioAs(
  req: Parameters<Dial>[0],
  { provider, agentText }: { provider: string; agentText: boolean },
): Promise<AudioCall> {
  const url = req.websocketUrl;
  if (!url)
    throw new ProviderError(
      'bad_response',
      `${provider}: the agent's connection has no WebSocket URL to call`,
    );
  // Twilio signs its requests instead; an agent with a key of its own gets it as a bearer token.
  const headers = req.apiKey ? { authorization: `Bearer ${req.apiKey}` } : undefined;
  const { socket, listen } = await openSocket({
    provider,
    url,
    headers,
    signal: req.signal,
    secret: req.apiKey,
  });
  const line = new CallLine(socket, { provider, events: req.events, secret: req.apiKey });
  const stream = twilioStream(line, req.variables);
  const marks = new PlayoutMarks(stream.mark);
  line.whenOver(() => marks.stop());
  listen((data) => {
    if (!line.live) return;
    const message = jsonObject(rawText(data));
    if (message) onAgentMessage(message, { events: req.events, marks, agentText });
  });
  stream.open();

  return {
    sampleRate: SAMPLE_RATE,
    agentTextSource: agentText ? 'provider' : 'stt',
    reportsToolCalls: agentText,
    callId: stream.ids.callSid,
    send: (frame) => {
      if (line.live) stream.media(frame);
    },
    sendDtmf: (digits) => {
      if (line.live) stream.dtmf(digits);
    },
    hangup: () => line.hangup(stream.stop()),
    providerTranscript: () => Promise.resolve(null),
  };
}
