import { timingSafeEqual } from 'node:crypto';
import { hashCredential } from '../kernel/secret-box.js';
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

/** The id CALLBENCH_API_KEY goes by: it is not stored, so it is valid while the process runs. */
export const ENV_KEY_ID = 'key_env';

/** The caller CALLBENCH_API_KEY acts as. */
const envCaller = (osUser: string): Caller => ({
  kind: 'api_key',
  keyId: ENV_KEY_ID,
  user: { id: ENV_KEY_ID, name: osUser },
});

const keyCaller = (key: { id: string; label: string | null }, osUser: string): Caller => ({
  kind: 'api_key',
  keyId: key.id,
  user: { id: key.id, name: key.label ?? osUser },
});

/**
 * The caller an API key acts as while it is valid (not revoked), by its id: what a browser session
 * made with that key acts as, checked on each of its requests.
 */
export function createKeyCallers({ store, envApiKey, osUser }: Omit<AuthOptions, 'clock'>) {
  return async (keyId: string): Promise<Caller | null> => {
    if (keyId === ENV_KEY_ID) return envApiKey ? envCaller(osUser) : null;
    const key = await store.credentials.findActiveKey(keyId);
    return key ? keyCaller(key, osUser) : null;
  };
}

/** Resolves a bearer credential to a caller, or null when it is not valid. */
export function createAuthenticator({ store, clock, envApiKey, osUser }: AuthOptions) {
  const envHash = envApiKey ? Buffer.from(hashCredential(envApiKey), 'hex') : null;
  const lastTouched = new Map<string, number>();

  return async function authenticate(credential: string): Promise<Caller | null> {
    if (envHash && timingSafeEqual(Buffer.from(hashCredential(credential), 'hex'), envHash)) {
      return envCaller(osUser);
    }
    const key = await store.credentials.findKeyBySecret(credential);
    if (key) {
      // Recording every use would add a write per request; once a minute is enough to tell.
      const now = clock.now();
      if ((lastTouched.get(key.id) ?? 0) < now - 60_000) {
        lastTouched.set(key.id, now);
        await store.credentials.touchKey(key.id, isoNow(clock));
      }
      return keyCaller(key, osUser);
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
