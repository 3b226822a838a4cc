import { isCancel, isAxiosError } from 'axios';
import { isTooLarge, outbound } from '../net/outbound.js';
import { SpeechError } from './types.js';

/** How long any speech provider may take to answer one request. */
export const SPEECH_TIMEOUT_MS = 30_000;
/** How much of a provider's error text is kept in a message. */
const MESSAGE_KEPT = 300;

export interface SpeechPost {
  /** Names the engine in every error. */
  engine: string;
  url: string;
  body: unknown;
  headers: Record<string, string>;
  /** Blanked out of any error text, in case a provider echoes it. */
  apiKey: string;
  signal?: AbortSignal;
}

export interface SpeechAnswer {
  bytes: Buffer;
  contentType: string;
}

const asRecord = (value: unknown): Record<string, unknown> | null =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;

/** The human part of an error body: OpenAI `{error: {message}}`, ElevenLabs `{detail: {message}}`. */
function messageIn(json: unknown): string | null {
  const root = asRecord(json);
  if (!root) return null;
  for (const key of ['error', 'detail', 'message']) {
    const value = root[key];
    if (typeof value === 'string') return value;
    if (Array.isArray(value)) {
      const first = asRecord(value[0]);
      const text = first?.msg ?? first?.message;
      if (typeof text === 'string') return text;
    }
    const inner = asRecord(value)?.message;
    if (typeof inner === 'string') return inner;
  }
  return null;
}

/** What the provider said in an error answer, shortened and with the key blanked out. */
export function providerMessage(bytes: Buffer, apiKey: string): string {
  const text = bytes.toString('utf8').trim();
  let message: string | null = null;
  try {
    message = messageIn(JSON.parse(text));
  } catch {
    // Not JSON (a proxy's HTML page, plain text): quote the text itself.
  }
  const said = (message ?? text).replace(/\s+/g, ' ').slice(0, MESSAGE_KEPT) || 'no message';
  return apiKey ? said.split(apiKey).join('***') : said;
}

/** Posts to a speech provider; any failure (status, network, timeout) becomes a SpeechError. */
export async function postToSpeechProvider(request: SpeechPost): Promise<SpeechAnswer> {
  const { engine, signal } = request;
  try {
    const res = await outbound.post<ArrayBuffer>(request.url, request.body, {
      headers: request.headers,
      responseType: 'arraybuffer',
      timeout: SPEECH_TIMEOUT_MS,
      signal,
      validateStatus: () => true,
    });
    const bytes = Buffer.from(res.data);
    const contentType = String(res.headers['content-type'] ?? '');
    if (res.status < 200 || res.status >= 300)
      throw new SpeechError(
        engine,
        `${engine} answered ${res.status}: ${providerMessage(bytes, request.apiKey)}`,
      );
    return { bytes, contentType };
  } catch (err) {
    if (err instanceof SpeechError) throw err;
    if (signal?.aborted && (isCancel(err) || isAxiosError(err))) throw signal.reason;
    throw new SpeechError(engine, `${engine} request failed: ${reasonOf(err)}`);
  }
}

function reasonOf(err: unknown): string {
  if (isTooLarge(err)) return 'the answer is larger than the response size limit';
  if (isAxiosError(err) && (err.code === 'ECONNABORTED' || err.code === 'ETIMEDOUT'))
    return `no answer within ${SPEECH_TIMEOUT_MS / 1000} s`;
  return err instanceof Error ? err.message : String(err);
}
