import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** An encrypted value as it is stored inside JSON columns. */
export interface Sealed {
  $enc: string;
}

export const isSealed = (v: unknown): v is Sealed =>
  typeof v === 'object' && v !== null && typeof (v as Sealed).$enc === 'string';

/**
 * Encrypts secrets at rest (AES-256-GCM) with a key kept in the data dir, readable by its owner
 * only. The store therefore never holds a provider key or a tool credential in clear.
 */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  static forDataDir(dataDir: string): SecretBox {
    const file = join(dataDir, 'secret.key');
    if (!existsSync(file)) {
      writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    }
    try {
      chmodSync(file, 0o600);
    } catch {
      // Windows has no POSIX modes; the user profile folder protects the file there.
    }
    return new SecretBox(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64'));
  }

  seal(plain: string): Sealed {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return { $enc: Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64') };
  }

  open(sealed: Sealed): string {
    const raw = Buffer.from(sealed.$enc, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

/** What a secret looks like in every answer: at most its last 4 characters, and fewer when short. */
export function mask(secret: string): string {
  const visible = secret.length >= 12 ? 4 : secret.length >= 8 ? 2 : 0;
  return `****${visible ? secret.slice(-visible) : ''}`;
}

/** API keys and tokens are random and long, so one SHA-256 is enough (no password stretching). */
export const hashCredential = (credential: string): string =>
  createHash('sha256').update(credential).digest('hex');
