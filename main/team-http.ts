import { Agent } from 'undici';
import { AppError } from '../src/errors.js';
import type { EngineEventMessage } from '../preload/api.js';

/** A team server as main reaches it: its base URL, and its API key (in main's memory only). */
export interface TeamTarget {
  url: string;
  key: string;
}

/** No request to a team server waits longer than this: an unreachable server is an error, not a hang. */
export const TEAM_TIMEOUT_MS = 15_000;

/** How the event stream reconnects, and when a silent one counts as dead. */
export interface StreamTiming {
  connectMs: number;
  /** The server writes a ping every 15 s: this long without a byte, the link is dead. */
  idleMs: number;
  retryMs: number;
  maxRetryMs: number;
}

const STREAM_TIMING: StreamTiming = {
  connectMs: TEAM_TIMEOUT_MS,
  idleMs: 45_000,
  retryMs: 1_000,
  maxRetryMs: 30_000,
};

/** An event frame larger than this is not an engine event: the stream is dropped and reopened. */
const MAX_FRAME_CHARS = 1024 * 1024;

/** The most main reads of one answer: whatever answers at the saved URL cannot fill its memory. */
export const MAX_ANSWER_BYTES = 10 * 1024 * 1024;
/**
 * A recording comes as one base64 answer, and a call may last an hour: the cap for that one
 * operation is such a call's recording (16 kHz stereo, 230 MB, a third more as base64), still a
 * bound, where 10 MiB would refuse any call longer than about a minute.
 */
export const MAX_RECORDING_ANSWER_BYTES = 320 * 1024 * 1024;
const answerCap = (operation: string): number =>
  operation === 'simulations.recording' ? MAX_RECORDING_ANSWER_BYTES : MAX_ANSWER_BYTES;

interface HttpAnswer {
  data?: unknown;
  error?: { code?: unknown; message?: unknown; details?: unknown };
}

/**
 * Team servers' certificates are always checked, whatever NODE_TLS_REJECT_UNAUTHORIZED says: the
 * API key goes to whoever answers, so there is no switch that turns the check off.
 */
const verifiedTls = new Agent({ connect: { rejectUnauthorized: true } });
const teamFetch = (url: string, init: RequestInit): Promise<Response> =>
  fetch(url, { ...init, dispatcher: verifiedTls } as RequestInit);

const authorization = (target: TeamTarget) => ({ authorization: `Bearer ${target.key}` });

const parseAnswer = (text: string): HttpAnswer | null => {
  try {
    const body = JSON.parse(text) as HttpAnswer | null;
    return body && typeof body === 'object' && !Array.isArray(body) ? body : null;
  } catch {
    return null;
  }
};

/**
 * `POST {url}/v1/operations/{name}` with the key, as browser mode does: the server's status and
 * data, or its error envelope as the same AppError the local engine would throw.
 */
export async function callTeamServer(
  target: TeamTarget,
  name: string,
  input: unknown,
  timeoutMs = TEAM_TIMEOUT_MS,
): Promise<{ status: number; data: unknown }> {
  let res: Response;
  let text: string;
  try {
    res = await teamFetch(`${target.url}/v1/operations/${encodeURIComponent(name)}`, {
      method: 'POST',
      headers: { ...authorization(target), 'content-type': 'application/json' },
      body: JSON.stringify(input),
      // A redirect would carry the key elsewhere: it is reported, never followed.
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await cappedText(target.url, res, answerCap(name));
  } catch (err) {
    throw err instanceof AppError ? err : unreachable(target.url, err, timeoutMs);
  }
  const body = parseAnswer(text);
  if (res.ok && body && 'data' in body) return { status: res.status, data: body.data };
  throw refusal(target.url, res, body);
}

/** The answer's body as text, read as it arrives and given up past `cap` bytes. */
async function cappedText(url: string, res: Response, cap = MAX_ANSWER_BYTES): Promise<string> {
  const tooLarge = () =>
    new AppError(
      'team_server_error',
      502,
      `The team server at ${url} answered more than ${cap / 1024 / 1024} MiB: not read`,
    );
  if (Number(res.headers.get('content-length') ?? 0) > cap) {
    await res.body?.cancel();
    throw tooLarge();
  }
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > cap) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The team server's error envelope as an AppError; anything else says it is not a Callbench answer. */
function refusal(url: string, res: Response, body: HttpAnswer | null): AppError {
  const e = body?.error;
  if (e && typeof e === 'object' && typeof e.message === 'string') {
    const code = typeof e.code === 'string' ? e.code : 'team_server_error';
    const message =
      res.status === 401
        ? `The team server at ${url} refused the API key: ${e.message}`
        : e.message;
    return new AppError(code, res.status, message, e.details ?? undefined);
  }
  if (res.status >= 300 && res.status < 400)
    return new AppError(
      'team_server_error',
      502,
      `The team server at ${url} redirects to ${res.headers.get('location') ?? 'another address'}: save that URL instead`,
    );
  return new AppError(
    'team_server_error',
    502,
    `${url} answered HTTP ${res.status}, not as a Callbench server does: is it the team server's address?`,
  );
}

/** A request that got no answer: timed out, refused, or a name that does not resolve. */
function unreachable(url: string, err: unknown, timeoutMs: number): AppError {
  const e = err as Error & { cause?: { code?: unknown; message?: unknown } };
  if (e.name === 'TimeoutError')
    return new AppError(
      'team_server_unreachable',
      504,
      `The team server at ${url} did not answer within ${timeoutMs / 1000} s`,
    );
  const why = [e.cause?.code, e.cause?.message, e.message].find((v) => typeof v === 'string');
  if (typeof e.cause?.code === 'string' && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(e.cause.code))
    return new AppError(
      'team_server_untrusted',
      502,
      `The team server at ${url} has a certificate this computer does not trust (${e.cause.code}): nothing was sent. Give the server a certificate from a known authority, or add its authority to this computer's trusted ones`,
    );
  return new AppError(
    'team_server_unreachable',
    502,
    `The team server at ${url} cannot be reached (${String(why)})`,
  );
}

/** Opens `GET {url}/v1/events` once and closes it: the key may read the engine's events. */
export async function checkEventStream(target: TeamTarget, timeoutMs = TEAM_TIMEOUT_MS) {
  const abort = new AbortController();
  const timer = setTimeout(
    () => abort.abort(new DOMException('timed out', 'TimeoutError')),
    timeoutMs,
  );
  try {
    const res = await teamFetch(`${target.url}/v1/events`, {
      headers: authorization(target),
      redirect: 'manual',
      signal: abort.signal,
    });
    if (res.status !== 200)
      throw refusal(target.url, res, parseAnswer(await cappedText(target.url, res)));
  } catch (err) {
    throw err instanceof AppError ? err : unreachable(target.url, err, timeoutMs);
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

/**
 * Forwards the team server's event stream to `onEvent`, reopening it whenever it drops or falls
 * silent (after 1 s, doubling up to 30 s while it keeps failing). Answers the function that stops it.
 */
export function forwardTeamEvents(
  target: TeamTarget,
  onEvent: (event: EngineEventMessage) => void,
  log: (message: string) => void,
  timing: StreamTiming = STREAM_TIMING,
): () => void {
  const stop = new AbortController();
  void (async () => {
    let wait = timing.retryMs;
    let lastProblem = '';
    while (!stop.signal.aborted) {
      const connected = () => {
        wait = timing.retryMs;
        lastProblem = '';
      };
      try {
        await readEvents(target, onEvent, stop.signal, timing, connected);
      } catch (err) {
        const problem = `the team server's events (${target.url}/v1/events): ${(err as Error).message}`;
        // One line per new problem, not one per retry.
        if (!stop.signal.aborted && problem !== lastProblem) log(problem);
        lastProblem = problem;
      }
      await sleep(wait, stop.signal);
      wait = Math.min(wait * 2, timing.maxRetryMs);
    }
  })();
  return () => stop.abort();
}

/** One connection to the stream, until it ends, falls silent or is stopped. */
async function readEvents(
  target: TeamTarget,
  onEvent: (event: EngineEventMessage) => void,
  stop: AbortSignal,
  timing: StreamTiming,
  connected: () => void,
): Promise<void> {
  const link = new AbortController();
  const cut = () => link.abort(new Error('no answer, or silent too long'));
  stop.addEventListener('abort', cut);
  let timer = setTimeout(cut, timing.connectMs);
  const alive = () => {
    clearTimeout(timer);
    timer = setTimeout(cut, timing.idleMs);
  };
  try {
    const res = await teamFetch(`${target.url}/v1/events`, {
      headers: authorization(target),
      redirect: 'manual',
      signal: link.signal,
    });
    if (res.status !== 200 || !res.body)
      throw refusal(target.url, res, parseAnswer(await cappedText(target.url, res)));
    alive();
    connected();
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      alive();
      buffer = dispatchFrames(buffer + value, onEvent);
      if (buffer.length > MAX_FRAME_CHARS) throw new Error('an event frame is too large');
    }
  } finally {
    clearTimeout(timer);
    stop.removeEventListener('abort', cut);
  }
}

/** Hands each complete `data:` frame to `onEvent`; answers what is left of an incomplete one. */
export function dispatchFrames(
  buffer: string,
  onEvent: (event: EngineEventMessage) => void,
): string {
  const frames = buffer.replace(/\r\n/g, '\n').split('\n\n');
  const rest = frames.pop() ?? '';
  for (const frame of frames) {
    const data = frame
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n');
    const event = data ? engineEvent(data) : null;
    if (event) onEvent(event);
  }
  return rest;
}

/** An engine event, or null: malformed frames, and `app.*` events (main's own), are dropped. */
function engineEvent(text: string): EngineEventMessage | null {
  try {
    const e = JSON.parse(text) as Partial<EngineEventMessage> | null;
    if (!e || typeof e.type !== 'string' || e.type.startsWith('app.')) return null;
    if (typeof e.at !== 'string' || !e.data || typeof e.data !== 'object') return null;
    return { type: e.type, at: e.at, data: e.data };
  } catch {
    return null;
  }
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
