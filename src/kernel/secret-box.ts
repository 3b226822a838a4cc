// The sealing box: AES-256-GCM over a 32-byte key, and nothing else. It knows no store and no key
// file, so the store, the domain shapes and every service can use it without importing what
// checks the key (src/secrets.ts, above the store).
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** An encrypted value as it is stored inside JSON columns. */
export interface Sealed {
  $enc: string;
}

export const isSealed = (v: unknown): v is Sealed =>
  typeof v === 'object' && v !== null && typeof (v as Sealed).$enc === 'string';

/**
 * Encrypts secrets at rest (AES-256-GCM), so the store never holds a provider key or a tool
 * credential in clear. src/secrets.ts finds the key (the data dir's file or the team's) and checks
 * it against the store before anyone gets a box.
 */
export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  static withKey(key: Buffer): SecretBox {
    return new SecretBox(key);
  }

  /** Whether every sealed value inside a stored JSON value opens with this key. */
  opensAll(value: unknown): boolean {
    if (isSealed(value)) {
      try {
        this.open(value);
        return true;
      } catch {
        return false;
      }
    }
    if (typeof value !== 'object' || value === null) return true;
    return Object.values(value).every((v) => this.opensAll(v));
  }

  /**
   * A secret sent back in a settings form: the mask of the stored one (answered masked, sent
   * back unchanged) keeps it; anything else is a new secret, sealed.
   */
  sealUnlessMask(sent: string, stored: unknown): Sealed {
    return isSealed(stored) && sent === mask(this.open(stored)) ? stored : this.seal(sent);
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
