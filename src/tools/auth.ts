import { blockedBy } from '../net/guard.js';
import { isTooLarge, outbound } from '../net/outbound.js';
import { ToolFailure } from './outcome.js';

export type TargetAuth =
  | { type: 'none' }
  | { type: 'bearer'; token: string }
  | { type: 'api_key'; key: string; location: 'header' | 'query'; paramName: string }
  | { type: 'basic'; username: string; password: string }
  | { type: 'oauth2'; clientId: string; clientSecret: string; tokenUrl: string; scope?: string };

interface CachedToken {
  token: string;
  expiresAt: number;
}

/**
 * OAuth2 client-credentials tokens, shared by every call with the same client: one request for
 * many concurrent calls, reused until shortly before it expires.
 */
export class OAuthTokenCache {
  private readonly tokens = new Map<string, CachedToken>();
  private readonly pending = new Map<string, Promise<CachedToken>>();

  constructor(private readonly now: () => number = Date.now) {}

  private key(auth: Extract<TargetAuth, { type: 'oauth2' }>): string {
    return JSON.stringify([auth.tokenUrl, auth.clientId, auth.clientSecret, auth.scope ?? '']);
  }

  async token(auth: Extract<TargetAuth, { type: 'oauth2' }>, timeoutMs: number): Promise<string> {
    const key = this.key(auth);
    const cached = this.tokens.get(key);
    if (cached && cached.expiresAt > this.now()) return cached.token;
    let request = this.pending.get(key);
    if (!request) {
      request = this.fetch(auth, timeoutMs).finally(() => this.pending.delete(key));
      this.pending.set(key, request);
    }
    const fresh = await request;
    this.tokens.set(key, fresh);
    return fresh.token;
  }

  /** After a 401 from the target: forget the token so that the next call fetches a new one. */
  invalidate(auth: Extract<TargetAuth, { type: 'oauth2' }>): void {
    this.tokens.delete(this.key(auth));
  }

  private async fetch(
    auth: Extract<TargetAuth, { type: 'oauth2' }>,
    timeoutMs: number,
  ): Promise<CachedToken> {
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: auth.clientId,
      client_secret: auth.clientSecret,
    });
    if (auth.scope) form.set('scope', auth.scope);
    let res;
    try {
      res = await outbound.post(auth.tokenUrl, form.toString(), {
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        timeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
        validateStatus: () => true,
        maxRedirects: 0,
      });
    } catch (err) {
      if (isTooLarge(err))
        throw new ToolFailure(
          'response_too_large',
          'The OAuth2 token endpoint answered more than the cap (network.maxResponseMiB)',
        );
      const blocked = blockedBy(err);
      if (blocked) throw new ToolFailure('blocked_address', blocked.message);
      throw new ToolFailure(
        'network_error',
        `The OAuth2 token endpoint could not be reached: ${(err as Error).message}`,
      );
    }
    const body = res.data as { access_token?: unknown; expires_in?: unknown };
    if (res.status >= 400 || typeof body?.access_token !== 'string') {
      throw new ToolFailure(
        'auth_error',
        `The OAuth2 token endpoint refused the client credentials (status ${res.status})`,
        res.status,
      );
    }
    const lifetime = typeof body.expires_in === 'number' ? body.expires_in * 1000 : 3_600_000;
    // Renew a little early so that a token never expires between our check and the target's.
    const margin = Math.min(60_000, lifetime * 0.1);
    return { token: body.access_token, expiresAt: this.now() + lifetime - margin };
  }
}

export interface AuthApplied {
  headers: Record<string, string>;
  query: Record<string, string>;
}

/** The headers and query parameters that carry a credential to the target. */
export async function applyAuth(
  auth: TargetAuth | undefined,
  oauth: OAuthTokenCache,
  timeoutMs: number,
): Promise<AuthApplied> {
  if (auth?.type === 'oauth2')
    return {
      headers: { authorization: `Bearer ${await oauth.token(auth, timeoutMs)}` },
      query: {},
    };
  return staticAuth(auth);
}

/**
 * What auth other than OAuth2 adds, at once: a tool call need not wait a turn for what its own
 * config says.
 */
export function staticAuth(auth: Exclude<TargetAuth, { type: 'oauth2' }> | undefined): AuthApplied {
  const out: AuthApplied = { headers: {}, query: {} };
  switch (auth?.type) {
    case undefined:
    case 'none':
      break;
    case 'bearer':
      out.headers.authorization = `Bearer ${auth.token}`;
      break;
    case 'api_key':
      if (auth.location === 'query') out.query[auth.paramName] = auth.key;
      else out.headers[auth.paramName.toLowerCase()] = auth.key;
      break;
    case 'basic':
      out.headers.authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
      break;
  }
  return out;
}
