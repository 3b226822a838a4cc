import { createCipheriv, createDecipheriv, createHash, randomBytes, scrypt } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AppError } from './errors.js';
import type { Store } from './store/index.js';
import { KEY_CHECK_SETTING, type SealedPlace } from './store/sealed.js';

export { KEY_CHECK_SETTING };
const KEY_CHECK_TEXT = 'callbench secret key check';
/** A team server's key text: long enough to carry a 256-bit key's worth of randomness in base64. */
const MIN_TEAM_KEY_CHARS = 32;

/** What the key check reads and writes in the store. */
export type KeyedStore = Pick<Store, 'sealed' | 'settings'>;
/** A team server's key check also re-seals, in one transaction under a lock. */
export type TeamKeyedStore = KeyedStore & Pick<Store, 'transaction'>;

/**
 * How a team key's text becomes the 256-bit key: scrypt (32 MiB, about 60 ms once per start), so
 * that a guessable passphrase costs a guesser as much per try; the salt is the database's own.
 */
interface ScryptParams {
  salt: string;
  N: number;
  r: number;
  p: number;
}
const SCRYPT_COST = { N: 2 ** 15, r: 8, p: 1 } as const;
const SCRYPT_MAXMEM = 256 * 1024 * 1024;
const TEAM_KEY_LOCK = 'callbench-secret-key';

/** A team server's key check: sealed with the stretched key, beside how it was stretched. */
interface TeamKeyCheck extends Sealed {
  /** Absent on a database sealed before stretching (the key was one SHA-256 of the text). */
  scrypt?: ScryptParams;
}

function stretch(keyText: string, params: ScryptParams): Promise<SecretBox> {
  const { salt, N, r, p } = params;
  return new Promise((resolve, reject) =>
    scrypt(
      keyText,
      Buffer.from(salt, 'base64'),
      32,
      { N, r, p, maxmem: SCRYPT_MAXMEM },
      (err, key) => (err ? reject(err) : resolve(SecretBox.withKey(key))),
    ),
  );
}

/** The key a team server used before stretching: one SHA-256 of the text. */
const hashedOnce = (keyText: string): SecretBox =>
  SecretBox.withKey(createHash('sha256').update(keyText, 'utf8').digest());

/** Every sealed value inside a stored JSON value, opened with `from` and sealed with `to`. */
function resealed(value: unknown, from: SecretBox, to: SecretBox): unknown {
  if (isSealed(value)) return to.seal(from.open(value));
  if (Array.isArray(value)) return value.map((v) => resealed(v, from, to));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resealed(v, from, to)]));
}

const teamKeyRefused = (why?: string) =>
  new AppError(
    'secret_key_unusable',
    500,
    `CALLBENCH_SECRET_KEY is not the key this database's secrets were sealed with${why ? ` (${why})` : ''}: give every instance the key the team server was started with`,
  );

/** The key text, or the one-line refusal of a missing or short one. */
function teamKeyText(keyText: string | undefined): string {
  if (!keyText)
    throw new AppError(
      'secret_key_missing',
      500,
      'A team server needs CALLBENCH_SECRET_KEY: the same secret of at least 32 characters on every instance (for example the output of `openssl rand -base64 32`)',
    );
  if (keyText.length < MIN_TEAM_KEY_CHARS)
    throw new AppError(
      'secret_key_too_short',
      500,
      `CALLBENCH_SECRET_KEY is ${keyText.length} characters long; it must have at least ${MIN_TEAM_KEY_CHARS} (for example the output of \`openssl rand -base64 32\`)`,
    );
  return keyText;
}

export const keyFile = (dataDir: string): string => join(dataDir, 'secret.key');
const now = () => new Date().toISOString();

function readKey(file: string): { box: SecretBox | null; problem: string | null } {
  if (!existsSync(file)) return { box: null, problem: 'is missing' };
  let text: string;
  try {
    chmodSync(file, 0o600);
  } catch {
    // Windows has no POSIX modes; the user profile folder protects the file there.
  }
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (err) {
    return { box: null, problem: `cannot be read (${(err as NodeJS.ErrnoException).code})` };
  }
  const key = Buffer.from(text, 'base64');
  if (key.length !== 32) return { box: null, problem: 'is not a Callbench secret key' };
  return { box: SecretBox.withKey(key), problem: null };
}

function keyRefused(file: string, problem: string, places: SealedPlace[]): AppError {
  const what = [...new Set(places.map((p) => p.label))].join(', ');
  return new AppError(
    'secret_key_unusable',
    500,
    `The secret key ${file} ${problem}, and the store holds sealed secrets that need it (${what}). ` +
      `Restore ${file} from a backup of this data dir, or run "callbench secrets reset --data-dir ${dirname(file)}" ` +
      'to delete the sealed secrets (it lists what to enter again).',
  );
}

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

  static withKey(key: Buffer): SecretBox {
    return new SecretBox(key);
  }

  /**
   * The data dir's key, made on first start. A key that is missing, unreadable or not the one the
   * stored secrets were sealed with is never silently replaced while sealed secrets exist: the
   * engine refuses to start and says how out (restore the file, or `callbench secrets reset`).
   */
  static async forDataDir(dataDir: string, store: KeyedStore): Promise<SecretBox> {
    const file = keyFile(dataDir);
    const places = await store.sealed.places();
    const check = await store.settings.get<Sealed>(KEY_CHECK_SETTING);
    const { box, problem } = readKey(file);
    const fits = box && (check ? box.opens(check) : places.every((p) => box.opensAll(p.value)));
    if (box && fits) {
      if (!check) await store.settings.set(KEY_CHECK_SETTING, box.seal(KEY_CHECK_TEXT), now());
      return box;
    }
    if (places.length)
      throw keyRefused(file, problem ?? 'does not open the sealed secrets', places);
    if (box) return box.remember(store); // no secret depends on the old check: this key is the one
    if (problem !== 'is missing') throw keyRefused(file, problem ?? 'is unusable', places);
    writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    return SecretBox.forDataDir(dataDir, store);
  }

  /**
   * A team server's key: CALLBENCH_SECRET_KEY, the same on every instance and never stored in the
   * database; the database keeps the salt it is stretched with. A key that does not open what the
   * database holds refuses the start: a server with another key would seal new secrets that its
   * peers cannot open.
   */
  static async forTeam(keyText: string | undefined, store: TeamKeyedStore): Promise<SecretBox> {
    const text = teamKeyText(keyText);
    const check = await store.settings.get<TeamKeyCheck>(KEY_CHECK_SETTING);
    if (check?.scrypt) {
      const box = await stretch(text, check.scrypt);
      if (!box.opens(check)) throw teamKeyRefused();
      return box;
    }
    // A new database, or one sealed before stretching: under a lock, so that instances starting
    // together agree on one salt and re-seal once.
    const params = { salt: randomBytes(16).toString('base64'), ...SCRYPT_COST };
    const box = await stretch(text, params);
    const settled = await store.transaction((tx) => box.settleTeamKey(tx, text, params), {
      lock: TEAM_KEY_LOCK,
    });
    // Another instance settled it first: its salt is the one.
    return settled ? box : SecretBox.forTeam(text, store);
  }

  /**
   * Stores this (stretched) key's check with its salt; the secrets a check made with the old
   * derivation vouches for are sealed again with this key, in the same transaction. Answers false
   * when another instance stored a stretched check meanwhile.
   */
  private async settleTeamKey(
    tx: KeyedStore,
    keyText: string,
    params: ScryptParams,
  ): Promise<boolean> {
    const check = await tx.settings.get<TeamKeyCheck>(KEY_CHECK_SETTING);
    if (check?.scrypt) return false;
    const old = hashedOnce(keyText);
    const places = await tx.sealed.places();
    if (check && !old.opens(check)) throw teamKeyRefused();
    // Checked before writing anything: a value that does not open would fail the re-seal midway.
    const stuck = places.find((p) => !old.opensAll(p.value));
    if (stuck) throw teamKeyRefused(`${stuck.label} holds a secret that it does not open`);
    await tx.sealed.rewrite(places, (value) => resealed(value, old, this));
    const stored: TeamKeyCheck = { ...this.seal(KEY_CHECK_TEXT), scrypt: params };
    await tx.settings.set(KEY_CHECK_SETTING, stored, now());
    return true;
  }

  private async remember(store: KeyedStore): Promise<SecretBox> {
    await store.settings.set(KEY_CHECK_SETTING, this.seal(KEY_CHECK_TEXT), now());
    return this;
  }

  private opens(sealed: Sealed): boolean {
    try {
      return this.open(sealed) === KEY_CHECK_TEXT;
    } catch {
      return false;
    }
  }

  /** Whether every sealed value inside a stored JSON value opens with this key. */
  private opensAll(value: unknown): boolean {
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
