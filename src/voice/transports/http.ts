/**
 * The few HTTP requests a live call needs (create the call, authorize a session, read the call
 * record): one attempt each within the dial's deadline, cancellable, every failure a
 * `ProviderError` whose message names the provider and never holds the key.
 */
import { outbound } from '../../net/outbound.js';
import { ProviderError } from '../../providers/client.js';
import { cancelled, withoutSecret } from './wire.js';

/** How long a dial waits for any one step (an HTTP answer, the socket opening, the handshake). */
export const CONNECT_TIMEOUT_MS = 10_000;

export interface VoiceHttpRequest {
  provider: string;
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal;
  /** The key sent with the request: masked out of any message built from the answer. */
  secret: string;
}

/** The provider's own words about a failure, when its answer has some (bounded). */
function serverSays(data: unknown): string {
  if (typeof data === 'string') return data.slice(0, 200);
  if (data && typeof data === 'object') {
    const d = data as Record<string, unknown>;
    const said = d.message ?? d.error ?? d.detail;
    if (typeof said === 'string') return said.slice(0, 200);
    if (said !== undefined) return JSON.stringify(said).slice(0, 200);
  }
  return '';
}

function failure(req: VoiceHttpRequest, status: number, data: unknown): ProviderError {
  const path = new URL(req.url).pathname;
  const said = withoutSecret(serverSays(data), req.secret);
  const tail = said ? `: ${said}` : '';
  if (status === 401 || status === 403)
    return new ProviderError(
      'auth',
      `${req.provider} refused the API key (${status})${tail}`,
      status,
    );
  if (status === 404)
    return new ProviderError('not_found', `${req.provider} has no ${path} (404)${tail}`, 404);
  const kind = status >= 500 || status === 429 ? 'unavailable' : 'bad_response';
  return new ProviderError(kind, `${req.provider} answered ${status} to ${path}${tail}`, status);
}

/** The JSON answer of one request; anything but a 2xx JSON object is a `ProviderError`. */
export async function requestJson(req: VoiceHttpRequest): Promise<Record<string, unknown>> {
  let res;
  try {
    res = await outbound.request({
      method: req.method,
      url: req.url,
      data: req.body,
      headers: { accept: 'application/json', ...req.headers },
      timeout: CONNECT_TIMEOUT_MS,
      signal: req.signal,
      validateStatus: () => true,
      responseType: 'json',
    });
  } catch (err) {
    if (req.signal?.aborted) throw cancelled(req.signal, req.provider);
    const why = withoutSecret(err instanceof Error ? err.message : String(err), req.secret);
    throw new ProviderError('unavailable', `${req.provider} could not be reached: ${why}`);
  }
  if (res.status >= 300) throw failure(req, res.status, res.data);
  const data: unknown = res.data;
  if (!data || typeof data !== 'object' || Array.isArray(data))
    throw new ProviderError(
      'bad_response',
      `${req.provider} answered ${new URL(req.url).pathname} with something other than a JSON object`,
    );
  return data as Record<string, unknown>;
}

/** `path` under the provider's base URL (which may carry a path prefix of its own). */
export function urlUnder(baseUrl: string, path: string): string {
  return new URL(
    path.replace(/^\//, ''),
    baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`,
  ).toString();
}
