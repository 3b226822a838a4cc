import { isSealed, mask, type Sealed, type SecretBox } from '../secrets.js';
import { SECRET_AUTH_FIELDS } from './definition.js';

type Auth = Record<string, unknown>;

/**
 * Seals the secret fields of config.auth. A value equal to the mask of the stored secret means
 * "unchanged" (a client that read the tool and sends it back must not overwrite the secret with
 * its own mask).
 */
export function sealAuth(auth: Auth | undefined, previous: Auth | undefined, box: SecretBox): Auth | undefined {
  if (!auth) return auth;
  const out: Auth = { ...auth };
  for (const field of SECRET_AUTH_FIELDS) {
    const value = auth[field];
    if (typeof value !== 'string') continue;
    const before = previous?.[field];
    out[field] = isSealed(before) && value === mask(box.open(before)) ? before : box.seal(value);
  }
  return out;
}

export function maskAuth(auth: Auth | undefined, box: SecretBox): Auth | undefined {
  if (!auth) return auth;
  const out: Auth = { ...auth };
  for (const field of SECRET_AUTH_FIELDS) {
    const value = auth[field];
    if (isSealed(value)) out[field] = mask(box.open(value as Sealed));
  }
  return out;
}

/** The clear auth for making a call (never answered, never logged). */
export function openAuth(auth: Auth | undefined, box: SecretBox): Auth | undefined {
  if (!auth) return auth;
  const out: Auth = { ...auth };
  for (const field of SECRET_AUTH_FIELDS) {
    const value = auth[field];
    if (isSealed(value)) out[field] = box.open(value);
  }
  return out;
}
