import axios, { AxiosError, type AxiosRequestConfig } from 'axios';
import { GuardedHttpAgent, GuardedHttpsAgent } from './guard.js';

/**
 * What every request the engine makes to the outside shares (providers, agents, OAuth token
 * endpoints, models, webhooks, tool targets): credentials never follow a redirect to another
 * origin, and answers are bounded.
 */

export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
let maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES;

/** The cap on any answer from outside, from the `network.maxResponseMiB` setting. */
export const responseCap = (): number => maxResponseBytes;
export function setResponseCap(bytes: number): void {
  maxResponseBytes = bytes;
}

/** Header names that carry credentials: authorization, cookies, and any *key, *token, *secret. */
const CREDENTIAL_HEADER =
  /^(?:(?:proxy-)?authorization|cookie|set-cookie)$|key|token|secret|password|session|auth/i;

export const isCredentialHeader = (name: string): boolean => CREDENTIAL_HEADER.test(name);

const originOf = (url: string): string | null => {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
};

/** True when a redirect leaves the origin (scheme, host or port) the request was sent to. */
export const leavesOrigin = (from: string, to: string): boolean => {
  const a = originOf(from);
  return a === null || a !== originOf(to);
};

/** Removes every credential header (and basic auth) from a request about to follow a redirect. */
function dropCredentials(options: Record<string, unknown>, from: string): void {
  if (typeof options.href !== 'string' || !leavesOrigin(from, options.href)) return;
  const headers = (options.headers ?? {}) as Record<string, unknown>;
  for (const name of Object.keys(headers)) if (isCredentialHeader(name)) delete headers[name];
  delete options.auth;
}

/** The answer was larger than the cap: the message names the failure kind callers report. */
export class ResponseTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`response_too_large: the answer is larger than ${limit} bytes`);
  }
}

export const isTooLarge = (err: unknown): boolean =>
  err instanceof ResponseTooLarge ||
  (err instanceof AxiosError && /maxContentLength/.test(err.message)) ||
  (err instanceof Error && err.cause instanceof ResponseTooLarge);

/**
 * The engine's axios: every request capped and stripped of credentials on a cross-origin
 * redirect, its connections (every hop's) made through the outbound guard.
 */
export const outbound = axios.create({
  proxy: false,
  httpAgent: new GuardedHttpAgent(),
  httpsAgent: new GuardedHttpsAgent(),
});
outbound.interceptors.request.use(
  (config) => {
    const limit = config.maxContentLength ?? -1;
    config.maxContentLength = limit > 0 ? Math.min(limit, responseCap()) : responseCap();
    const own = config.beforeRedirect;
    config.beforeRedirect = (options, response, request) => {
      // The hop's own URL when axios passes it, else the first request's.
      dropCredentials(options, (request as typeof request | undefined)?.url ?? String(config.url));
      own?.(options, response, request);
    };
    return config;
    // Synchronous: axios then sends without first going through a chain of promises.
  },
  null,
  { synchronous: true },
);

export type OutboundConfig = AxiosRequestConfig;
