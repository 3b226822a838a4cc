import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * Prefixed ids (`per_…`, `scn_…`). A millisecond timestamp leads so that ids sort roughly by
 * creation, which keeps SQLite's b-trees append-mostly; 12 random characters follow.
 */
// Random bytes are drawn from the OS in blocks: one system call per id would dominate bulk imports.
let pool = Buffer.alloc(0);
let offset = 0;

export function newId(prefix: string, now = Date.now()): string {
  const time = now.toString(36).padStart(9, '0');
  if (offset + 12 > pool.length) {
    pool = randomBytes(12 * 1024);
    offset = 0;
  }
  let rand = '';
  for (let i = offset; i < offset + 12; i++) rand += ALPHABET[pool[i]! % 36];
  offset += 12;
  return `${prefix}_${time}${rand}`;
}

/** A high-entropy secret for API keys and workspace tokens. */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(24).toString('base64url')}`;
}
