import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * Prefixed ids (`per_…`, `scn_…`). A millisecond timestamp leads so that ids sort roughly by
 * creation, which keeps SQLite's b-trees append-mostly; 12 random characters follow.
 */
export function newId(prefix: string, now = Date.now()): string {
  const time = now.toString(36).padStart(9, '0');
  const bytes = randomBytes(12);
  let rand = '';
  for (const b of bytes) rand += ALPHABET[b % 36];
  return `${prefix}_${time}${rand}`;
}

/** A high-entropy secret for API keys and workspace tokens. */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(24).toString('base64url')}`;
}
