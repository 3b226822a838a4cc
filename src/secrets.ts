// The key-check step, above the store: finds the data dir's or the team's key and checks it
// against what the store holds. The sealing itself is src/kernel/secret-box.ts, which knows no store.
import { createHash, randomBytes, scrypt } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AppError } from './errors.js';
import { isSealed, SecretBox, type Sealed } from './kernel/secret-box.js';
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

/** Whether `box` opens the key check (a wrong key fails GCM's authentication). */
function opensCheck(box: SecretBox, check: Sealed): boolean {
  try {
    return box.open(check) === KEY_CHECK_TEXT;
  } catch {
    return false;
  }
}

async function remember(box: SecretBox, store: KeyedStore): Promise<SecretBox> {
  await store.settings.set(KEY_CHECK_SETTING, box.seal(KEY_CHECK_TEXT), now());
  return box;
}

/**
 * The data dir's key, made on first start. A key that is missing, unreadable or not the one the
 * stored secrets were sealed with is never silently replaced while sealed secrets exist: the
 * engine refuses to start and says how out (restore the file, or `callbench secrets reset`).
 */
export async function dataDirSecretBox(dataDir: string, store: KeyedStore): Promise<SecretBox> {
  const file = keyFile(dataDir);
  const places = await store.sealed.places();
  const check = await store.settings.get<Sealed>(KEY_CHECK_SETTING);
  const { box, problem } = readKey(file);
  const fits = box && (check ? opensCheck(box, check) : places.every((p) => box.opensAll(p.value)));
  if (box && fits) {
    if (!check) await store.settings.set(KEY_CHECK_SETTING, box.seal(KEY_CHECK_TEXT), now());
    return box;
  }
  if (places.length) throw keyRefused(file, problem ?? 'does not open the sealed secrets', places);
  if (box) return remember(box, store); // no secret depends on the old check: this key is the one
  if (problem !== 'is missing') throw keyRefused(file, problem ?? 'is unusable', places);
  writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
  return dataDirSecretBox(dataDir, store);
}

/**
 * A team server's key: CALLBENCH_SECRET_KEY, the same on every instance and never stored in the
 * database; the database keeps the salt it is stretched with. A key that does not open what the
 * database holds refuses the start: a server with another key would seal new secrets that its
 * peers cannot open.
 */
export async function teamSecretBox(
  keyText: string | undefined,
  store: TeamKeyedStore,
): Promise<SecretBox> {
  const text = teamKeyText(keyText);
  const check = await store.settings.get<TeamKeyCheck>(KEY_CHECK_SETTING);
  if (check?.scrypt) {
    const box = await stretch(text, check.scrypt);
    if (!opensCheck(box, check)) throw teamKeyRefused();
    return box;
  }
  // A new database, or one sealed before stretching: under a lock, so that instances starting
  // together agree on one salt and re-seal once.
  const params = { salt: randomBytes(16).toString('base64'), ...SCRYPT_COST };
  const box = await stretch(text, params);
  const settled = await store.transaction((tx) => settleTeamKey(tx, box, { text, params }), {
    lock: TEAM_KEY_LOCK,
  });
  // Another instance settled it first: its salt is the one.
  return settled ? box : teamSecretBox(text, store);
}

/**
 * Stores the (stretched) key's check with its salt; the secrets a check made with the old
 * derivation vouches for are sealed again with this key, in the same transaction. Answers false
 * when another instance stored a stretched check meanwhile.
 */
async function settleTeamKey(
  tx: KeyedStore,
  box: SecretBox,
  key: { text: string; params: ScryptParams },
): Promise<boolean> {
  const check = await tx.settings.get<TeamKeyCheck>(KEY_CHECK_SETTING);
  if (check?.scrypt) return false;
  const old = hashedOnce(key.text);
  const places = await tx.sealed.places();
  if (check && !opensCheck(old, check)) throw teamKeyRefused();
  // Checked before writing anything: a value that does not open would fail the re-seal midway.
  const stuck = places.find((p) => !old.opensAll(p.value));
  if (stuck) throw teamKeyRefused(`${stuck.label} holds a secret that it does not open`);
  await tx.sealed.rewrite(places, (value) => resealed(value, old, box));
  const stored: TeamKeyCheck = { ...box.seal(KEY_CHECK_TEXT), scrypt: key.params };
  await tx.settings.set(KEY_CHECK_SETTING, stored, now());
  return true;
}
