import type { OperationInput, OperationName, OperationOutput } from '../operations/catalogue.js';

/**
 * The one client of the API, for the renderer in a browser, the desktop's team-server connection
 * and the CLI: `POST /v1/operations/{name}` typed by the catalogue's operation map. Only fetch and
 * web streams, so it runs in a page and in Node; what differs by caller (the dispatcher, caps,
 * timeouts, the errors it throws) comes in as options.
 */

/** What `POST /v1/operations/{name}` answers: its data, or an error envelope. */
export interface Envelope {
  data?: unknown;
  error?: { code?: unknown; message?: unknown; details?: unknown };
}

/** An engine error as the engine answered it: its code, status, words and the fields concerned. */
export class ApiError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }

  /** Field-level problems ({path, message}), when the engine named fields. */
  get fields(): { path: string; message: string }[] {
    return Array.isArray(this.details)
      ? (this.details as { path: string; message: string }[]).filter(
          (d) => typeof d?.path === 'string',
        )
      : [];
  }
}

/** How a caller reports each way a request can go wrong, in its own error type. */
export interface ClientErrors {
  /** The server answered with an error envelope, or not as a Callbench server does. */
  refused(res: Response, body: Envelope | null): Error;
  /** No answer: timed out, refused, a name that does not resolve. */
  unreachable(err: unknown, timeoutMs: number | undefined): Error;
  /** The answer was larger than the caller reads. */
  tooLarge(cap: number): Error;
}

/** Where an operation goes over HTTP, and whether its answer is bare (REST) or `{data}`. */
export interface Route {
  method: string;
  path: string;
  body?: unknown;
  bare?: boolean;
}

/** The one route that takes every operation by name (served with the page, and by team servers). */
export const operationsRoute = (name: string, input: unknown): Route => ({
  method: 'POST',
  path: `/v1/operations/${encodeURIComponent(name)}`,
  body: input ?? {},
});

export interface ClientOptions {
  /** The API's origin; '' for the page's own. */
  base: string;
  /** Where each operation goes (default: the operations route). */
  route?: (name: string, input: unknown) => Route;
  /** An API key; none where a session cookie goes with each request by itself. */
  key?: string | null;
  /** The request itself: fetch by default; the desktop's checks certificates whatever the env. */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  redirect?: RequestRedirect;
  /** No request waits longer than this (default: no bound). */
  timeoutMs?: number;
  /** The most read of one operation's answer (default: no bound). */
  answerCap?: (operation: string) => number;
  errors?: Partial<ClientErrors>;
  /** Told of every 401 (the page asks for a key again). */
  onUnauthorized?: () => void;
}

export interface ApiClient {
  /** Any operation by name (for callers that forward names they do not know). */
  request(
    name: string,
    input: unknown,
    timeoutMs?: number,
  ): Promise<{ status: number; data: unknown }>;
  /** An operation of the catalogue, typed by the operation map. */
  invoke<N extends OperationName>(name: N, input: OperationInput<N>): Promise<OperationOutput<N>>;
  /** `GET /v1/events` opened: the stream, or the refusal thrown (fetch errors as they come). */
  openEvents(signal: AbortSignal): Promise<NonNullable<Response['body']>>;
  /** Opens the event stream once and closes it: the key may read the engine's events. */
  checkEvents(timeoutMs?: number): Promise<void>;
  /** Ends this sign-in's session (and its cookie). */
  signOut(): Promise<void>;
}

const defaultErrors: ClientErrors = {
  refused(res, body) {
    const e = body?.error ?? {};
    return new ApiError(
      typeof e.code === 'string' ? e.code : 'error',
      res.status,
      typeof e.message === 'string' ? e.message : `The engine answered ${res.status}`,
      e.details,
    );
  },
  unreachable: (err) => (err instanceof Error ? err : new Error(String(err))),
  tooLarge: (cap) => new ApiError('error', 0, `The answer is larger than ${cap} bytes: not read`),
};

/** The body as JSON when it is an object (an envelope), else null. */
export function parseAnswer(text: string): Envelope | null {
  try {
    const body = JSON.parse(text) as Envelope | null;
    return body && typeof body === 'object' && !Array.isArray(body) ? body : null;
  } catch {
    return null;
  }
}

/** The answer's body as text, read as it arrives; null, and the rest not read, past `cap` bytes. */
export async function cappedText(res: Response, cap: number): Promise<string | null> {
  if (Number(res.headers.get('content-length') ?? 0) > cap) {
    await res.body?.cancel();
    return null;
  }
  if (!res.body) return '';
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return text + decoder.decode();
    bytes += value.byteLength;
    if (bytes > cap) {
      await reader.cancel();
      return null;
    }
    text += decoder.decode(value, { stream: true });
  }
}

/** The client of the API at `options.base`. */
export function apiClient(options: ClientOptions): ApiClient {
  const errors: ClientErrors = { ...defaultErrors, ...options.errors };
  const send = options.fetch ?? ((url: string, init: RequestInit) => fetch(url, init));
  const capOf = options.answerCap ?? (() => Infinity);
  const auth: Record<string, string> = options.key
    ? { authorization: `Bearer ${options.key}` }
    : {};
  const headers = { ...auth, 'content-type': 'application/json' };
  /** The body read within the cap, or the refusal it amounts to. */
  const readBody = async (res: Response, cap: number, timeoutMs?: number) => {
    const text = await cappedText(res, cap).catch((err: unknown) => {
      throw errors.unreachable(err, timeoutMs);
    });
    if (text === null) throw errors.tooLarge(cap);
    return parseAnswer(text);
  };
  const eventsRequest = (signal: AbortSignal) =>
    send(`${options.base}/v1/events`, { headers: auth, redirect: options.redirect, signal });
  const refusalOf = async (res: Response, timeoutMs?: number) =>
    errors.refused(res, await readBody(res, capOf('/v1/events'), timeoutMs));

  const client: ApiClient = {
    async request(name, input, timeoutMs = options.timeoutMs) {
      const route = (options.route ?? operationsRoute)(name, input);
      const res = await send(options.base + route.path, {
        method: route.method,
        headers: route.body === undefined ? auth : headers,
        body: route.body === undefined ? undefined : JSON.stringify(route.body),
        // A redirect may be refused (the desktop's key must not follow one elsewhere).
        redirect: options.redirect,
        signal: timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs),
      }).catch((err: unknown) => {
        throw errors.unreachable(err, timeoutMs);
      });
      const body = await readBody(res, capOf(name), timeoutMs);
      if (res.status === 401) options.onUnauthorized?.();
      if (res.ok && body && (route.bare || 'data' in body))
        return { status: res.status, data: route.bare ? body : body.data };
      throw errors.refused(res, body);
    },
    async invoke(name, input) {
      return (await client.request(name, input)).data as OperationOutput<typeof name>;
    },
    async openEvents(signal) {
      const res = await eventsRequest(signal);
      if (res.status !== 200 || !res.body) throw await refusalOf(res);
      return res.body;
    },
    checkEvents: (timeoutMs = options.timeoutMs) =>
      checkEvents(eventsRequest, refusalOf, {
        timeoutMs,
        unreachable: (err, ms) => errors.unreachable(err, ms),
      }),
    async signOut() {
      const res = await send(`${options.base}/v1/logout`, { method: 'POST', headers });
      if (!res.ok && res.status !== 401) throw errors.refused(res, null);
    },
  };
  return client;
}

/** Opens the event stream and closes it, within `timeoutMs`. */
async function checkEvents(
  open: (signal: AbortSignal) => Promise<Response>,
  refusalOf: (res: Response, timeoutMs?: number) => Promise<Error>,
  o: { timeoutMs: number | undefined; unreachable: ClientErrors['unreachable'] },
): Promise<void> {
  const abort = new AbortController();
  const timer =
    o.timeoutMs === undefined
      ? undefined
      : setTimeout(() => abort.abort(new DOMException('timed out', 'TimeoutError')), o.timeoutMs);
  try {
    let res: Response;
    try {
      res = await open(abort.signal);
    } catch (err) {
      throw o.unreachable(err, o.timeoutMs);
    }
    if (res.status !== 200) throw await refusalOf(res, o.timeoutMs);
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}
