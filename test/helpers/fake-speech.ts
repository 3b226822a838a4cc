import { handled } from './handled.js';
import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { bytesFromPcm, resample } from '../../src/audio/pcm.js';
import { parseWav } from '../../src/audio/wav.js';

const run = promisify(execFile);

/** What the fake recorded of one request: its path (with query) and its body as understood. */
export interface FakeSpeechRequest {
  path: string;
  body: unknown;
}

export interface FakeSpeech {
  /** http://127.0.0.1:port */
  url: string;
  requests: FakeSpeechRequest[];
  /** The answers transcriptions pop from, in order; once empty it answers "". */
  transcripts: string[];
  /** The next request, whatever its route, fails with this status and message. */
  failNext: (status: number, message: string) => void;
  stop(): Promise<void>;
}

/** The transcription request as the fake read it out of the multipart form. */
export interface ReceivedTranscription {
  fields: Record<string, string>;
  file: { filename: string; contentType: string; sampleRate: number; samples: number } | null;
}

interface FormPart {
  name: string;
  filename: string | null;
  contentType: string;
  content: Buffer;
}

type Api = 'openai' | 'elevenlabs';

/** Real speech, as a provider would make it: espeak-ng at the asked speed, at `rate` Hz. */
async function speech(text: string, speed: number, rate: number): Promise<Buffer> {
  const wpm = String(Math.round(175 * speed));
  const { stdout } = await run('espeak-ng', ['--stdout', '-v', 'en-us', '-s', wpm, '--', text], {
    encoding: 'buffer',
    maxBuffer: 64 * 1024 * 1024,
  });
  const wav = parseWav(stdout);
  return bytesFromPcm(resample(wav.pcm, wav.sampleRate, rate));
}

/** Each provider's error body: OpenAI `{error: {message}}`, ElevenLabs `{detail: {status, message}}`. */
function sendError(res: ServerResponse, api: Api, status: number, message: string): void {
  const body =
    api === 'openai'
      ? { error: { message, type: 'invalid_request_error', code: null } }
      : { detail: { status: status === 401 ? 'invalid_api_key' : 'error', message } };
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function sendAudio(res: ServerResponse, pcm: Buffer): void {
  res.writeHead(200, { 'content-type': 'audio/pcm', 'content-length': pcm.length });
  res.end(pcm);
}

/** Enough of multipart/form-data to find each part's name, file name, type and bytes. */
export function parseMultipart(body: Buffer, contentType: string): FormPart[] | null {
  const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  if (!boundary) return null;
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: FormPart[] = [];
  let at = body.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (body.subarray(start, start + 2).toString('latin1') === '--') return parts;
    const next = body.indexOf(delimiter, start);
    if (next < 0) return null;
    const raw = body.subarray(start + 2, next - 2); // the CRLFs around each part
    const headEnd = raw.indexOf('\r\n\r\n');
    if (headEnd < 0) return null;
    const head = raw.subarray(0, headEnd).toString('utf8');
    parts.push({
      name: /name="([^"]*)"/i.exec(head)?.[1] ?? '',
      filename: /filename="([^"]*)"/i.exec(head)?.[1] ?? null,
      contentType: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1]?.trim() ?? 'text/plain',
      content: raw.subarray(headEnd + 4),
    });
    at = next;
  }
  return null;
}

function readTranscription(parts: FormPart[]): ReceivedTranscription {
  const fields: Record<string, string> = {};
  let file: ReceivedTranscription['file'] = null;
  for (const part of parts) {
    if (part.name !== 'file') fields[part.name] = part.content.toString('utf8');
    else {
      try {
        const wav = parseWav(part.content);
        file = {
          filename: part.filename ?? '',
          contentType: part.contentType,
          sampleRate: wav.sampleRate,
          samples: wav.pcm.length,
        };
      } catch {
        file = null;
      }
    }
  }
  return { fields, file };
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const jsonOf = (body: Buffer): Record<string, unknown> | null => {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};

interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  body: Buffer;
}

/**
 * A speech provider on 127.0.0.1 that speaks for real: OpenAI-compatible `POST /v1/audio/speech`
 * (raw 24 kHz PCM) and `POST /v1/audio/transcriptions` (multipart WAV in, `{text}` out), and
 * ElevenLabs `POST /v1/text-to-speech/:voiceId?output_format=pcm_16000`. Keys are checked the way
 * each provider checks them.
 */
export async function startFakeSpeech(options: { key?: string } = {}): Promise<FakeSpeech> {
  const key = options.key ?? 'fake-speech-key';
  const requests: FakeSpeechRequest[] = [];
  const transcripts: string[] = [];
  let failure: { status: number; message: string } | null = null;

  const openaiSpeech = async ({ res, body }: Exchange): Promise<void> => {
    const json = jsonOf(body);
    const { input, model, voice, response_format: format, speed } = json ?? {};
    if (typeof input !== 'string' || typeof model !== 'string' || typeof voice !== 'string')
      return sendError(res, 'openai', 400, 'input, model and voice are required');
    if (format !== 'pcm') return sendError(res, 'openai', 400, 'this fake only answers pcm');
    sendAudio(res, await speech(input, typeof speed === 'number' ? speed : 1, 24000));
  };

  const elevenLabsSpeech = async ({ res, url, body }: Exchange): Promise<void> => {
    const json = jsonOf(body);
    const rate = /^pcm_(\d+)$/.exec(url.searchParams.get('output_format') ?? '')?.[1];
    if (!rate) return sendError(res, 'elevenlabs', 422, 'this fake only answers pcm_<rate>');
    const text = json?.text;
    if (typeof text !== 'string') return sendError(res, 'elevenlabs', 422, 'text is required');
    const settings = json?.voice_settings as { speed?: unknown } | undefined;
    const speed = typeof settings?.speed === 'number' ? settings.speed : 1;
    sendAudio(res, await speech(text, speed, Number(rate)));
  };

  const transcription = ({ req, res, body }: Exchange): void => {
    const parts = parseMultipart(body, req.headers['content-type'] ?? '');
    const received = parts ? readTranscription(parts) : null;
    requests[requests.length - 1]!.body = received;
    if (!received?.file || !received.fields.model)
      return sendError(res, 'openai', 400, 'a WAV file part and a model are required');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ text: transcripts.shift() ?? '' }));
  };

  const route = async (exchange: Exchange): Promise<void> => {
    const { req, res, url } = exchange;
    const eleven = url.pathname.startsWith('/v1/text-to-speech/');
    const api: Api = eleven ? 'elevenlabs' : 'openai';
    const authorized = eleven
      ? req.headers['xi-api-key'] === key
      : req.headers.authorization === `Bearer ${key}`;
    if (failure) {
      const { status, message } = failure;
      failure = null;
      return sendError(res, api, status, message);
    }
    if (!authorized)
      return sendError(res, api, 401, eleven ? 'Invalid API key' : 'Incorrect API key provided');
    if (req.method !== 'POST') return sendError(res, api, 405, 'POST only');
    if (eleven) return elevenLabsSpeech(exchange);
    if (url.pathname === '/v1/audio/speech') return openaiSpeech(exchange);
    if (url.pathname === '/v1/audio/transcriptions') return transcription(exchange);
    sendError(res, api, 404, `no route ${url.pathname}`);
  };

  const server = createServer(
    handled(async (req, res) => {
      const body = await readBody(req);
      const json = /json/i.test(req.headers['content-type'] ?? '');
      requests.push({ path: req.url ?? '', body: json ? jsonOf(body) : null });
      await route({ req, res, url: new URL(req.url ?? '/', 'http://fake'), body });
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    transcripts,
    failNext: (status, message) => {
      failure = { status, message };
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
