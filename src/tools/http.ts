import { Deadline, exchange, TooManyRedirects } from '../net/exchange.js';
import { blockedBy } from '../net/guard.js';
import { isCredentialHeader, responseCap, ResponseTooLarge } from '../net/outbound.js';
import { failureForStatus, ToolFailure } from './outcome.js';
import type { AuthApplied } from './auth.js';
import type { ReadAnswer } from './raw-answer.js';

export const MAX_RESPONSE_BYTES = 5 * 1024 * 1024;
export const MAX_REDIRECTS = 3;

export interface HttpConfig {
  method: string;
  url: string;
  headers?: Record<string, string>;
}

/** The exact request a tool call sends (what a dry run answers, with secrets masked). */
export interface PreparedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: unknown;
}

/** A parameter as it goes into a URL path: objects and arrays as JSON, nothing as empty. */
const urlValue = (v: unknown): string => {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
};

/** A URL cut at its `{name}` placeholders: the text around them (one more than names) and names. */
interface UrlTemplate {
  parts: string[];
  names: string[];
}

/** Templates by URL: a tool's URL is cut once, not matched again on every call. */
const templates = new Map<string, UrlTemplate>();
const TEMPLATES_KEPT = 1000;

function templateOf(url: string): UrlTemplate {
  let template = templates.get(url);
  if (!template) {
    template = { parts: [], names: [] };
    let last = 0;
    for (const match of url.matchAll(/\{([^{}]+)\}/g)) {
      template.parts.push(url.slice(last, match.index));
      template.names.push(match[1]!);
      last = match.index + match[0].length;
    }
    template.parts.push(url.slice(last));
    if (templates.size >= TEMPLATES_KEPT) templates.clear();
    templates.set(url, template);
  }
  return template;
}

/**
 * Fills `{name}` placeholders (URL-encoded), then sends the other parameters as the query string
 * for GET and DELETE and as a JSON body otherwise.
 */
export function buildRequest(
  config: HttpConfig,
  params: Record<string, unknown>,
  auth: AuthApplied,
): PreparedRequest {
  const { parts, names } = templateOf(config.url);
  let filled = parts[0]!;
  for (let i = 0; i < names.length; i++)
    filled += encodeURIComponent(urlValue(params[names[i]!])) + parts[i + 1]!;
  const rest: Record<string, unknown> = {};
  for (const k in params) if (!names.includes(k)) rest[k] = params[k];
  const method = config.method.toUpperCase();
  const inQuery = method === 'GET' || method === 'DELETE';
  const query = inQuery ? { ...rest, ...auth.query } : auth.query;
  let url = filled;
  // Parsing the URL is only needed to merge query parameters into it.
  if (!isEmpty(query)) {
    const parsed = new URL(filled);
    for (const [name, v] of Object.entries(query)) parsed.searchParams.set(name, String(v));
    url = parsed.toString();
  }
  const headers: Record<string, string> = {
    accept: 'application/json',
    ...(config.headers && lower(config.headers)),
    ...auth.headers,
  };
  const request: PreparedRequest = { method, url, headers };
  if (!inQuery) {
    request.body = rest;
    headers['content-type'] = 'application/json';
  }
  return request;
}

function isEmpty(o: object): boolean {
  for (const _key in o) return false;
  return true;
}

const lower = (h: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));

/** The answer as read: its status, headers and decoded body, and that body as text. */
export type HttpAnswer = ReadAnswer;

/** Request headers a browser sends to another origin without asking it first (CORS-safelisted). */
const SAFELISTED = new Set(['accept', 'accept-language', 'content-language', 'content-type']);

/**
 * What follows a redirect to another origin: only safelisted headers, and none the tool's auth
 * made (an api_key may be sent under any name, even Accept) nor one sealed as a credential. A
 * tool's custom headers (X-Tenant) say things about the caller that another origin has no need
 * of; a target that needs them must be called at its final URL.
 */
const keptAcrossOrigins = (auth: Pick<AuthApplied, 'headers'>) => {
  // Built on the first redirect that leaves the origin: most calls never make one.
  let made: Set<string> | undefined;
  return (name: string): boolean => {
    made ??= new Set(Object.keys(auth.headers).map((header) => header.toLowerCase()));
    return SAFELISTED.has(name) && !made.has(name) && !isCredentialHeader(name);
  };
};

/**
 * Sends the request, following up to MAX_REDIRECTS redirects; a non-2xx status or a transport
 * failure becomes a classified ToolFailure. The deadline covers the whole exchange, also a body
 * that trickles in slowly. `auth` is what the tool's auth added (kept from other origins).
 */
export async function send(
  request: PreparedRequest,
  timeoutMs: number,
  auth: Pick<AuthApplied, 'headers'> = { headers: {} },
): Promise<HttpAnswer> {
  const deadline = new Deadline(timeoutMs);
  let answer: HttpAnswer;
  try {
    const { status, headers, body } = await exchange(
      {
        method: request.method,
        url: request.url,
        headers: request.headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
      },
      {
        signal: deadline,
        limit: Math.min(MAX_RESPONSE_BYTES, responseCap()),
        maxRedirects: MAX_REDIRECTS,
        keepAcrossOrigins: keptAcrossOrigins(auth),
      },
    );
    // The buffer and headers are kept by reference: a tool test shows them as its raw answer.
    answer = { status, headers, body, text: body.toString('utf8') };
  } catch (err) {
    throw classifyTransportError(err, timeoutMs, deadline.aborted);
  } finally {
    deadline.clear();
  }
  if (answer.status >= 400) throw failureForStatus(answer.status, answer.text, answer);
  return answer;
}

function classifyTransportError(err: unknown, timeoutMs: number, timedOut: boolean): ToolFailure {
  const e = err as Error & { code?: string };
  if (timedOut || e.code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new ToolFailure('timeout', `No complete answer within ${timeoutMs} ms`);
  }
  if (err instanceof ResponseTooLarge) {
    return new ToolFailure(
      'response_too_large',
      `The response is larger than ${err.limit} bytes; it was cut off`,
    );
  }
  if (err instanceof TooManyRedirects) return new ToolFailure('http_error', err.message);
  const blocked = blockedBy(err);
  if (blocked) return new ToolFailure('blocked_address', blocked.message);
  const message = e.message ?? String(err);
  return new ToolFailure(
    'network_error',
    `The target could not be reached: ${e.code ? `${e.code} ` : ''}${message}`,
  );
}

/** Parses a JSON body; `required` when a mapping needs it. */
export function parseBody(answer: HttpAnswer, required: boolean): unknown {
  const fail = (why: string): never => {
    throw new ToolFailure(
      'invalid_response',
      `The response mapping needs JSON, but ${why}`,
      answer.status,
      answer,
    );
  };
  if (answer.text.trim() === '') return required ? fail('the response body is empty') : null;
  try {
    return JSON.parse(answer.text);
  } catch {
    return required ? fail('the response body is not JSON') : answer.text;
  }
}
