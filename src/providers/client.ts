import { Deadline, exchange, type Answer } from '../net/exchange.js';
import { blockedBy } from '../net/guard.js';
import { isTooLarge, responseCap } from '../net/outbound.js';
import { AppError } from '../errors.js';

export type ProviderFailure = 'auth' | 'not_found' | 'unavailable' | 'bad_response';

/** A provider call that failed, classified the way sync and connect must react to it. */
export class ProviderError extends Error {
  constructor(
    readonly kind: ProviderFailure,
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  baseDelayMs: number;
  /** Longest Retry-After honoured; a longer one waits this long. */
  maxRetryAfterMs: number;
  timeoutMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  attempts: 5,
  baseDelayMs: 500,
  maxRetryAfterMs: 60_000,
  timeoutMs: 30_000,
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function retryAfterMs(header: unknown, policy: RetryPolicy): number | null {
  if (typeof header !== 'string') return null;
  const seconds = Number(header);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(header) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), policy.maxRetryAfterMs) : null;
}

/** Redirects a provider call follows. */
const MAX_REDIRECTS = 5;

/** One exchange with the provider, its deadline covering the whole answer. */
async function send(
  url: string,
  req: ProviderRequest,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<Answer> {
  const deadline = new Deadline(timeoutMs);
  const body = req.body === undefined ? undefined : JSON.stringify(req.body);
  try {
    return await exchange(
      {
        method: req.method ?? 'GET',
        url,
        headers: {
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body,
      },
      { signal: deadline, limit: responseCap(), maxRedirects: MAX_REDIRECTS },
    );
  } catch (err) {
    if (deadline.aborted)
      throw new Error(`no complete answer within ${timeoutMs} ms`, { cause: err });
    throw err;
  } finally {
    deadline.clear();
  }
}

/** A successful answer's JSON: an empty body is null, and a body that is not JSON a bad response. */
function parsed<T>(res: Answer, path: string): T {
  if (res.body.length === 0) return null as T;
  try {
    return JSON.parse(res.body.toString('utf8')) as T;
  } catch {
    throw new ProviderError('bad_response', `The provider's answer to ${path} is not JSON`);
  }
}

export interface ProviderRequest {
  method?: 'GET' | 'POST' | 'PATCH';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /**
   * False for requests that change something at the provider (a chat turn): a 5xx or a dropped
   * connection may come after the provider acted, so they are not sent again. 429 still is.
   */
  idempotent?: boolean;
}

/**
 * One provider's HTTP API: honours Retry-After on 429, retries 5xx and network failures with
 * exponential backoff and jitter (bounded), and never retries 401, 403 or 404.
 */
export function providerClient(
  baseUrl: string,
  headers: Record<string, string>,
  policy: RetryPolicy = DEFAULT_RETRY,
) {
  return async function call<T = unknown>(req: ProviderRequest): Promise<T> {
    const url = new URL(
      req.path.replace(/^\//, ''),
      baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`,
    );
    for (const [k, v] of Object.entries(req.query ?? {}))
      if (v !== undefined) url.searchParams.set(k, String(v));
    let lastProblem = '';
    for (let attempt = 1; attempt <= policy.attempts; attempt++) {
      let wait = policy.baseDelayMs * 2 ** (attempt - 1) + Math.random() * policy.baseDelayMs;
      try {
        const res = await send(url.toString(), req, headers, policy.timeoutMs);
        if (res.status < 300) return parsed<T>(res, url.pathname);
        if (res.status === 401 || res.status === 403)
          throw new ProviderError(
            'auth',
            `The provider refused the API key (${res.status})`,
            res.status,
          );
        if (res.status === 404)
          throw new ProviderError('not_found', `The provider has no ${url.pathname}`, 404);
        if (res.status === 429) {
          wait = retryAfterMs(res.headers['retry-after'], policy) ?? wait;
          lastProblem = 'it is throttling us (429)';
        } else if (res.status >= 500) {
          lastProblem = `it answered ${res.status}`;
          if (req.idempotent === false) break;
        } else {
          throw new ProviderError(
            'bad_response',
            `The provider answered ${res.status} to ${url.pathname}`,
            res.status,
          );
        }
      } catch (err) {
        if (err instanceof ProviderError) throw err;
        // Nothing oversized is kept, and asking again would only fetch it again.
        if (isTooLarge(err))
          throw new ProviderError(
            'bad_response',
            `response_too_large: the provider's answer to ${url.pathname} is larger than the cap (network.maxResponseMiB)`,
          );
        const blocked = blockedBy(err);
        if (blocked)
          throw new ProviderError(
            'unavailable',
            `The provider could not be reached: ${blocked.message}`,
          );
        lastProblem = `it could not be reached (${(err as Error).message})`;
        if (req.idempotent === false) break;
      }
      if (attempt < policy.attempts) await sleep(wait);
    }
    const tries =
      req.idempotent === false && !lastProblem.includes('429')
        ? 'not repeated, as it may have been acted on'
        : `${policy.attempts} attempts`;
    throw new ProviderError('unavailable', `The provider is unavailable: ${lastProblem}, ${tries}`);
  };
}

export type ProviderCall = ReturnType<typeof providerClient>;

/** How a failed connect is answered to our API's caller. */
export function connectError(err: unknown, provider: string): AppError {
  if (!(err instanceof ProviderError)) throw err;
  switch (err.kind) {
    case 'auth':
      return new AppError(
        'provider_auth_failed',
        400,
        `${provider} refused the API key: check credentials.api_key (and base_url for regional hosts).`,
      );
    case 'not_found':
      return new AppError(
        'provider_agent_not_found',
        404,
        `${provider} has no agent with that id, or this key cannot see it.`,
      );
    default:
      return new AppError(
        'provider_unavailable',
        502,
        `${provider} could not be reached or failed: ${err.message}. Try again shortly.`,
      );
  }
}
