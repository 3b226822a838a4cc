import { timingSafeEqual } from 'node:crypto';
import { hashCredential } from '../secrets.js';
import type { Caller } from '../operations/types.js';
import type { Store } from '../store/index.js';
import type { Clock } from '../clock.js';
import { isoNow } from '../clock.js';

export interface AuthOptions {
  store: Store;
  clock: Clock;
  /** CALLBENCH_API_KEY: valid as an API key, never stored. */
  envApiKey?: string;
  osUser: string;
}

/** Resolves a bearer credential to a caller, or null when it is not valid. */
export function createAuthenticator({ store, clock, envApiKey, osUser }: AuthOptions) {
  const envHash = envApiKey ? Buffer.from(hashCredential(envApiKey), 'hex') : null;
  const lastTouched = new Map<string, number>();

  return async function authenticate(credential: string): Promise<Caller | null> {
    if (envHash && timingSafeEqual(Buffer.from(hashCredential(credential), 'hex'), envHash)) {
      return { kind: 'api_key', keyId: 'key_env', user: { id: 'key_env', name: osUser } };
    }
    const key = await store.credentials.findKeyBySecret(credential);
    if (key) {
      // Recording every use would add a write per request; once a minute is enough to tell.
      const now = clock.now();
      if ((lastTouched.get(key.id) ?? 0) < now - 60_000) {
        lastTouched.set(key.id, now);
        await store.credentials.touchKey(key.id, isoNow(clock));
      }
      return { kind: 'api_key', keyId: key.id, user: { id: key.id, name: key.label ?? osUser } };
    }
    const token = await store.credentials.findTokenBySecret(credential);
    if (token) {
      return {
        kind: 'token',
        tokenId: token.id,
        workspaceId: token.workspace_id,
        user: { id: token.id, name: token.name ?? osUser },
      };
    }
    return null;
  };
}

export type Authenticate = ReturnType<typeof createAuthenticator>;
