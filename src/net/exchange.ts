import type { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http';
import { finished, pipeline, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Agent, request } from 'undici';
import { Deadline } from './deadline.js';
import { guardedConnector, guardGeneration } from './guard.js';
import { isCredentialHeader, leavesOrigin, responseCap, ResponseTooLarge } from './outbound.js';

/**
 * One HTTP exchange on undici's request API, for the engine's busiest outside calls: tool targets
 * and model APIs. Either a tool call or a model call used to spend more of its time in its HTTP
 * client than in anything else of ours (axios about 130 µs a call, fetch about 120 µs more than
 * undici's whole exchange), and a tool's responseTime is what a user reads as the target's
 * latency. The exchange keeps what the engine promises of every request from outside: credentials
 * never follow a redirect to another origin, and answers are capped.
 */

export interface Outgoing {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface ExchangeOptions {
  /** Ends the exchange, also while the body is still arriving. */
  signal?: AbortSignal | EventEmitter | Deadline;
  /** Bytes of the (decoded) body past which the exchange fails with ResponseTooLarge. */
  limit: number;
  maxRedirects: number;
  /**
   * Which headers (by lower-case name) go on when a redirect leaves the first request's origin;
   * by default all but those named like credentials.
   */
  keepAcrossOrigins?: (name: string) => boolean;
}

export { Deadline };

const notCredential = (name: string): boolean => !isCredentialHeader(name);

export class TooManyRedirects extends Error {
  constructor(readonly limit: number) {
    super(`More than ${limit} redirects`);
  }
}

/**
 * One keep-alive pool per thread. Its connect timeout is the longest deadline any caller gives
 * (a tool's 120 s): each exchange's own signal is what ends it. Its connections are made through
 * the outbound guard (a team server's refusal of internal addresses).
 */
let pool: { agent: Agent; generation: number } | null = null;
function dispatcher(): Agent {
  // A new guard (an engine started or stopped): connections checked under the old one go.
  if (pool && pool.generation !== guardGeneration()) {
    void pool.agent.close().catch(() => undefined);
    pool = null;
  }
  pool ??= {
    agent: new Agent({ connect: guardedConnector(120_000) }),
    generation: guardGeneration(),
  };
  return pool.agent;
}

/** Connection-level headers the client owns; undici refuses a request that sets them. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect']);

/**
 * The headers as sent: without the connection's own, and asking for a compressed answer unless
 * the caller chose (a provider's page of calls is several megabytes; decoding is done here).
 */
function sendable(headers: Record<string, string>): Record<string, string> {
  // One pass over the names: this runs for every tool call and model call.
  let hopByHop = false;
  let chosen = false;
  for (const name in headers) {
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower)) hopByHop = true;
    else if (lower === 'accept-encoding') chosen = true;
  }
  const own = hopByHop ? withoutHeaders(headers, (name) => HOP_BY_HOP.has(name)) : headers;
  // The added header first: spread into a literal that has a field already, the copy costs a few
  // nanoseconds; a field added after the spread cost a third of a microsecond.
  return chosen ? own : { 'accept-encoding': 'gzip, deflate, br', ...own };
}

const withoutHeaders = (headers: Record<string, string>, drop: (name: string) => boolean) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !drop(name.toLowerCase())));

/**
 * Sends the request and reads its answer, following redirects: credentials (or whatever
 * keepAcrossOrigins leaves out) stay behind when one leaves the first request's origin, and a
 * 303, or a 301 or 302 after a POST, goes on as a GET without the body, as browsers do.
 */
export async function exchange(outgoing: Outgoing, options: ExchangeOptions): Promise<Answer> {
  let { method, url, headers, body } = outgoing;
  for (let hop = 0; ; hop++) {
    const res = await request(url, {
      method: method as 'GET',
      headers: sendable(headers),
      body,
      // A Deadline has the emitter methods undici uses (on, once, removeListener, aborted).
      signal: options.signal as AbortSignal | EventEmitter | undefined,
      dispatcher: dispatcher(),
    });
    const location = res.headers.location;
    if (res.statusCode < 300 || res.statusCode >= 400 || typeof location !== 'string') {
      const read = await readCapped(res.body, res.headers, options.limit);
      return { status: res.statusCode, headers: res.headers, body: read };
    }
    await res.body.dump();
    if (hop === options.maxRedirects) throw new TooManyRedirects(options.maxRedirects);
    const next = new URL(location, url).toString();
    if (leavesOrigin(outgoing.url, next)) {
      const keep = options.keepAcrossOrigins ?? notCredential;
      headers = withoutHeaders(headers, (name) => !keep(name));
    }
    const status = res.statusCode;
    if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
      headers = withoutHeaders(headers, (name) => name === 'content-type');
    }
    url = next;
  }
}

const DECODERS: Record<string, () => NodeJS.ReadWriteStream> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/**
 * The body as it was before its content-encoding, which undici's request API leaves as it came.
 * An encoding it does not know leaves the body as it is, as fetch does.
 */
function decoded(body: Readable, encoding: string | string[] | undefined): Readable {
  if (encoding === undefined) return body; // nearly every answer: nothing to split
  const codings = String(encoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity');
  if (codings.length === 0 || !codings.every((c) => c in DECODERS)) return body;
  // Applied in the order they were listed: the last one is undone first.
  const stages = codings.reverse().map((c) => DECODERS[c]!());
  return pipeline([body, ...stages], () => undefined) as unknown as Readable;
}

/**
 * The body read to its end, up to the cap: past it, the exchange fails with ResponseTooLarge.
 * Read with a listener, not `for await`: the stream's async iterator costs a tool call more than
 * its own mapping (a promise and a generator step per chunk).
 */
function readCapped(
  body: Readable & { dump(): Promise<void> },
  headers: IncomingHttpHeaders,
  limit: number,
): Promise<Buffer> {
  const encoding = headers['content-encoding'];
  if (!encoding && Number(headers['content-length'] ?? 0) > limit) {
    return body.dump().then(() => {
      throw new ResponseTooLarge(limit);
    });
  }
  const source = decoded(body, encoding);
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let seen = 0;
    let tooLarge = false;
    source.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      seen += chunk.length;
      if (seen > limit) {
        tooLarge = true;
        body.destroy();
        reject(new ResponseTooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    // Ends as the iterator did: with the body at its end, or with the error (or a close before
    // the end) that ended it first, also one that came before these listeners did.
    finished(source, (err) => {
      if (tooLarge) return;
      if (err) reject(err);
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    });
  });
}

/** Redirects a model call follows. */
const FETCH_MAX_REDIRECTS = 5;

/** Statuses whose answer has no body: a Response refuses one. */
const NO_BODY = new Set([101, 204, 205, 304]);

type Fetch = typeof globalThis.fetch;

const headerRecord = (headers: HeadersInit | undefined): Record<string, string> =>
  Object.fromEntries(headers instanceof Headers ? headers : new Headers(headers));

function bodyOf(body: BodyInit | null | undefined): string | Uint8Array | undefined {
  if (body === null || body === undefined || typeof body === 'string') return body ?? undefined;
  if (body instanceof Uint8Array) return body;
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (body instanceof URLSearchParams) return body.toString();
  // The SDKs send JSON for every call the engine makes; a stream or a form is a mistake here.
  throw new TypeError('the model fetch sends text and byte bodies only');
}

/** The body was read whole and decoded: the headers that described it on the wire no longer do. */
const WIRE_HEADERS = new Set(['content-encoding', 'content-length', 'transfer-encoding']);

const answerHeaders = (headers: IncomingHttpHeaders): [string, string][] =>
  Object.entries(headers).flatMap(([name, value]) =>
    value === undefined || WIRE_HEADERS.has(name)
      ? []
      : Array.isArray(value)
        ? value.map((v) => [name, v])
        : [[name, value]],
  ) as [string, string][];

/**
 * A fetch for the model SDKs, on the exchange: it follows redirects itself, so that no credential
 * header (the SDKs send `x-api-key` and `api-key`, which fetch keeps across origins) leaves for
 * another origin, and it caps the answer's body, also once decompressed.
 */
export const guardedFetch =
  (cap?: number): Fetch =>
  async (input, init) => {
    const answer = await exchange(
      {
        method: init?.method ?? 'GET',
        url: input instanceof Request ? input.url : String(input),
        headers: headerRecord(init?.headers),
        body: bodyOf(init?.body),
      },
      {
        signal: init?.signal ?? undefined,
        limit: cap ?? responseCap(),
        maxRedirects: FETCH_MAX_REDIRECTS,
      },
    );
    const { buffer, byteOffset, byteLength } = answer.body;
    const body = new Uint8Array(buffer as ArrayBuffer, byteOffset, byteLength);
    return new Response(NO_BODY.has(answer.status) ? null : body, {
      status: answer.status,
      headers: answerHeaders(answer.headers),
    });
  };
