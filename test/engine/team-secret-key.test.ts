import { createHash, scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretBox, type Sealed } from '../../src/kernel/secret-box.js';
import { KEY_CHECK_SETTING, teamSecretBox } from '../../src/secrets.js';
import type { Store } from '../../src/store/index.js';
import { openStore } from '../../src/store/open.js';
import { tempDir } from '../helpers/server.js';
import { dropStore, storeOptions } from '../helpers/store-under-test.js';

/** A passphrase anyone could guess, but long enough to be taken: it is stretched, never used as is. */
const WEAK = 'callbench callbench callbench callbench';

interface StoredCheck extends Sealed {
  scrypt?: { salt: string; N: number; r: number; p: number };
}

/** A store of the kind this run tests (SQLite, or a PostgreSQL database of its own), opened twice. */
async function withStore(run: (stores: [Store, Store]) => Promise<void>): Promise<void> {
  const dataDir = tempDir();
  const { databaseUrl } = await storeOptions(dataDir);
  const stores = [
    await openStore({ dataDir, databaseUrl }),
    await openStore({ dataDir, databaseUrl }),
  ] as [Store, Store];
  try {
    await run(stores);
  } finally {
    for (const store of stores) await store.close();
    await dropStore(dataDir);
  }
}

/** The key the stored check's salt and cost make of `passphrase`, computed here on its own. */
async function stretchedBy(store: Store, passphrase: string): Promise<SecretBox> {
  const check = await store.settings.get<StoredCheck>(KEY_CHECK_SETTING);
  const params = check?.scrypt;
  expect(params?.salt).toMatch(/^[A-Za-z0-9+/]{22}==$/); // 16 random bytes
  expect(params!.N).toBeGreaterThanOrEqual(2 ** 15);
  const { salt, N, r, p } = params!;
  const key = scryptSync(passphrase, Buffer.from(salt, 'base64'), 32, {
    N,
    r,
    p,
    maxmem: 256 * 1024 * 1024,
  });
  return SecretBox.withKey(key);
}

/** Today's key before stretching: one SHA-256 of the text. */
const hashedOnce = (passphrase: string) =>
  SecretBox.withKey(createHash('sha256').update(passphrase, 'utf8').digest());

const opens = (box: SecretBox, sealed: Sealed): boolean => {
  try {
    box.open(sealed);
    return true;
  } catch {
    return false;
  }
};

const smtpPassword = async (store: Store): Promise<Sealed> =>
  (await store.settings.get<{ password: Sealed }>('smtp'))!.password;

describe("a team server's CALLBENCH_SECRET_KEY", () => {
  it('a weak passphrase still works, stretched with scrypt and a salt stored beside the key check', async () => {
    await withStore(async ([store]) => {
      const box = await teamSecretBox(WEAK, store);
      await store.settings.set('smtp', { password: box.seal('smtp-pw') }, 'now');
      const sealed = await smtpPassword(store);
      expect(opens(await stretchedBy(store, WEAK), sealed)).toBe(true);
      expect(opens(hashedOnce(WEAK), sealed)).toBe(false);
      // The next start derives the same key from the stored salt, and another key is refused.
      expect((await teamSecretBox(WEAK, store)).open(sealed)).toBe('smtp-pw');
      await expect(teamSecretBox(`${WEAK} but another`, store)).rejects.toMatchObject({
        code: 'secret_key_unusable',
      });
    });
  });

  it('a store sealed with the old derivation opens, and is re-sealed at first start', async () => {
    await withStore(async ([store]) => {
      // What a team server started before this change left: the check and secrets, hashed once.
      const old = hashedOnce(WEAK);
      await store.settings.set(KEY_CHECK_SETTING, old.seal('callbench secret key check'), 'then');
      await store.settings.set('smtp', { host: 'mail', password: old.seal('smtp-pw') }, 'then');
      await store.settings.set('llm', { keys: [{ apiKey: old.seal('sk-llm') }] }, 'then');

      const box = await teamSecretBox(WEAK, store);
      const sealed = await smtpPassword(store);
      expect(box.open(sealed)).toBe('smtp-pw');
      expect(opens(old, sealed)).toBe(false);
      const stretched = await stretchedBy(store, WEAK);
      expect(stretched.open(sealed)).toBe('smtp-pw');
      const llm = await store.settings.get<{ keys: { apiKey: Sealed }[] }>('llm');
      expect(stretched.open(llm!.keys[0]!.apiKey)).toBe('sk-llm');
      expect((await store.settings.get<{ host: string }>('smtp'))!.host).toBe('mail');

      // Once: the next start keeps the salt and the sealed values as they are.
      const salt = (await store.settings.get<StoredCheck>(KEY_CHECK_SETTING))!.scrypt!.salt;
      expect((await teamSecretBox(WEAK, store)).open(sealed)).toBe('smtp-pw');
      expect((await store.settings.get<StoredCheck>(KEY_CHECK_SETTING))!.scrypt!.salt).toBe(salt);
      expect(await smtpPassword(store)).toEqual(sealed);
    });
  });

  it('a store sealed with the old derivation of another key is refused, and left as it was', async () => {
    await withStore(async ([store]) => {
      const old = hashedOnce(`${WEAK} of before`);
      const check = old.seal('callbench secret key check');
      await store.settings.set(KEY_CHECK_SETTING, check, 'then');
      await expect(teamSecretBox(WEAK, store)).rejects.toMatchObject({
        code: 'secret_key_unusable',
      });
      expect(await store.settings.get(KEY_CHECK_SETTING)).toEqual(check);
    });
  });

  it('a secret the old key does not open stops the re-seal before anything is written', async () => {
    await withStore(async ([store]) => {
      const check = hashedOnce(WEAK).seal('callbench secret key check');
      const foreign = hashedOnce(`${WEAK} of before`).seal('smtp-pw');
      await store.settings.set(KEY_CHECK_SETTING, check, 'then');
      await store.settings.set('smtp', { password: foreign }, 'then');
      await expect(teamSecretBox(WEAK, store)).rejects.toMatchObject({
        code: 'secret_key_unusable',
        message: expect.stringContaining('setting smtp holds a secret that it does not open'),
      });
      expect(await store.settings.get(KEY_CHECK_SETTING)).toEqual(check);
      expect(await smtpPassword(store)).toEqual(foreign);
    });
  });

  it('instances starting together on a new database agree on one salt', async () => {
    await withStore(async ([one, two]) => {
      const [a, b] = await Promise.all([teamSecretBox(WEAK, one), teamSecretBox(WEAK, two)]);
      expect(b.open(a.seal('from a'))).toBe('from a');
      expect(a.open(b.seal('from b'))).toBe('from b');
    });
  });
});
