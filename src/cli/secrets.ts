import { existsSync, renameSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { AppError } from '../errors.js';
import { acquireDataDirLock } from '../lock.js';
import { KEY_CHECK_SETTING, keyFile } from '../secrets.js';
import type { Store } from '../store/index.js';
import { openStore } from '../store/open.js';

type Out = (line: string) => void;

async function ask(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

/**
 * `callbench secrets reset`: the way out when the secret key is lost. Deletes every sealed secret
 * (after confirmation), lists what must be entered again, and sets the unusable key aside so the
 * next start makes a new one. It holds the data dir's lock: never while an engine runs on it.
 */
export async function secrets(
  args: string[],
  out: Out,
  dataDirOf: (values: { 'data-dir'?: string }) => string,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { yes: { type: 'boolean' }, 'data-dir': { type: 'string' } },
  });
  if (positionals[0] !== 'reset')
    throw new AppError('usage', 2, 'Usage: callbench secrets reset [--yes] [--data-dir DIR]');
  const dataDir = dataDirOf(values);
  const release = acquireDataDirLock(dataDir);
  let store: Store | null = null;
  try {
    store = await openStore({ dataDir });
    const places = await store.sealed.places();
    const toEnter = [...new Set(places.map((p) => p.label))].filter(
      (label) => !label.startsWith('tool version '),
    );
    if (!places.length) out('The store holds no sealed secrets: nothing to delete.');
    else {
      out('These secrets will be deleted; enter them again afterwards:');
      for (const label of toEnter) out(`  ${label}`);
      if (!values.yes && !(await ask('Delete them? [y/N] '))) {
        out('Nothing changed.');
        return 1;
      }
      await store.sealed.forget(places);
      out(`Deleted sealed secrets from ${places.length} stored values.`);
    }
    await store.settings.set(KEY_CHECK_SETTING, null, new Date().toISOString());
    const file = keyFile(dataDir);
    if (existsSync(file)) {
      const aside = `${file}.unusable-${Date.now()}`;
      renameSync(file, aside);
      out(`Set the old key aside as ${aside}.`);
    }
    out('A new secret key is made at the next start.');
    return 0;
  } finally {
    await store?.close();
    release();
  }
}
