import { Agent } from 'undici';
import { apiClient, type ApiClient, type Envelope } from '../src/client/api-client.js';
import { followEvents, type StreamTiming } from '../src/client/event-stream.js';
import { AppError } from '../src/errors.js';
import type { EngineEventMessage } from '../preload/api.js';

/** A team server as main reaches it: its base URL, and its API key (in main's memory only). */
export interface TeamTarget {
  url: string;
  key: string;
}

/** No request to a team server waits longer than this: an unreachable server is an error, not a hang. */
export const TEAM_TIMEOUT_MS = 15_000;

export type { StreamTiming };

/** The server writes a ping every 15 s: 45 s without a byte, the link is dead. */
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

/**
 * Team servers' certificates are always checked, whatever NODE_TLS_REJECT_UNAUTHORIZED says: the
 * API key goes to whoever answers, so there is no switch that turns the check off.
 */
const verifiedTls = new Agent({ connect: { rejectUnauthorized: true } });
const teamFetch = (url: string, init: RequestInit): Promise<Response> =>
  fetch(url, { ...init, dispatcher: verifiedTls } as RequestInit);

/** The API client as main reaches a team server: checked TLS, no redirect, capped answers. */
function teamClient(target: TeamTarget, timeoutMs: number): ApiClient {
  return apiClient({
    base: target.url,
    key: target.key,
    fetch: teamFetch,
    // A redirect would carry the key elsewhere: it is reported, never followed.
    redirect: 'manual',
    timeoutMs,
    answerCap,
    errors: {
      refused: (res, body) => refusal(target.url, res, body),
      unreachable: (err, ms) => unreachable(target.url, err, ms ?? timeoutMs),
      tooLarge: (cap) =>
        new AppError(
          'team_server_error',
          502,
          `The team server at ${target.url} answered more than ${cap / 1024 / 1024} MiB: not read`,
        ),
    },
  });
}

/**
 * `POST {url}/v1/operations/{name}` with the key, as browser mode does: the server's status and
 * data, or its error envelope as the same AppError the local engine would throw.
 */
export function callTeamServer(
  target: TeamTarget,
  name: string,
  input: unknown,
  timeoutMs = TEAM_TIMEOUT_MS,
): Promise<{ status: number; data: unknown }> {
  return teamClient(target, timeoutMs).request(name, input);
}

/** The team server's error envelope as an AppError; anything else says it is not a Callbench answer. */
function refusal(url: string, res: Response, body: Envelope | null): AppError {
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
export function checkEventStream(target: TeamTarget, timeoutMs = TEAM_TIMEOUT_MS): Promise<void> {
  return teamClient(target, timeoutMs).checkEvents();
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
  return followEvents(teamClient(target, timing.connectMs ?? TEAM_TIMEOUT_MS), onEvent, {
    timing: { maxFrameChars: MAX_FRAME_CHARS, ...timing },
    onProblem: (err) => log(`the team server's events (${target.url}/v1/events): ${err.message}`),
  });
}
