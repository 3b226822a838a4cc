import Database from 'better-sqlite3';
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSpeech, type Speech } from '../../src/speech/index.js';
import { readSqliteOffThread } from '../../src/tools/sqlite-readers.js';
import { tempDir } from '../helpers/server.js';

/** What must never reach a child process: the engine's own keys, and a model provider's. */
const SECRETS: Record<string, string> = {
  CALLBENCH_SECRET_KEY: 'secret-key-0123456789-0123456789-0123',
  CALLBENCH_API_KEY: 'cb_api_key_0123456789',
  CALLBENCH_LLM_API_KEY: 'sk-llm-0123456789',
  OPENAI_API_KEY: 'sk-openai-0123456789',
  ELEVENLABS_API_KEY: 'el-0123456789',
};

/** A process's environment as the kernel holds it (Linux): what the child really got. */
function environmentOf(pid: number): Record<string, string> {
  const raw = readFileSync(`/proc/${pid}/environ`, 'utf8');
  return Object.fromEntries(
    raw
      .split('\0')
      .filter(Boolean)
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  );
}

/** This process's children whose command line holds `marker`. */
function childrenWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return (
          ppid === process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)
        );
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

const expectMinimal = (env: Record<string, string>) => {
  for (const name of Object.keys(SECRETS)) expect(env).not.toHaveProperty(name);
  expect(Object.keys(env).filter((name) => name.startsWith('CALLBENCH_'))).toEqual([]);
  expect(Object.values(env).join('\n')).not.toMatch(/0123456789/);
  expect(env.PATH).toBe(process.env.PATH);
  expect(env.HOME).toBe(process.env.HOME);
};

describe.skipIf(process.platform !== 'linux')('child processes get a minimal environment', () => {
  const saved = { ...process.env };
  let speech: Speech | null = null;
  beforeEach(() => Object.assign(process.env, SECRETS, { LANG: 'C.UTF-8' }));
  afterEach(async () => {
    await speech?.close();
    speech = null;
    for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
    Object.assign(process.env, saved);
  });

  it('espeak-ng sees PATH, HOME and the locale, never a CALLBENCH_* variable or a model key', async () => {
    // An espeak-ng first on PATH that writes down its environment, then speaks as the real one.
    const bin = tempDir();
    const dump = join(tempDir(), 'env.txt');
    const real = process.env
      .PATH!.split(':')
      .map((dir) => join(dir, 'espeak-ng'))
      .find((file) => existsSync(file))!;
    writeFileSync(join(bin, 'espeak-ng'), `#!/bin/sh\nenv -0 > '${dump}'\nexec '${real}' "$@"\n`);
    chmodSync(join(bin, 'espeak-ng'), 0o755);
    process.env.PATH = `${bin}:${process.env.PATH}`;

    speech = createSpeech({
      connections: () => Promise.resolve({ openai: null, elevenlabs: null, stt: null }),
    });
    const spoken = await speech.synthesize('Hello there.', {
      engine: 'system',
      voiceId: null,
      speed: null,
    });
    expect(spoken.pcm.length).toBeGreaterThan(1000);
    const env = Object.fromEntries(
      readFileSync(dump, 'utf8')
        .split('\0')
        .filter(Boolean)
        .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
    );
    expectMinimal(env);
    expect(env.LANG).toBe('C.UTF-8');
  });

  it('the SQLite reader process gets the same minimal environment', async () => {
    const file = join(tempDir(), 'shop.db');
    const db = new Database(file);
    db.exec("CREATE TABLE orders (id INTEGER, status TEXT); INSERT INTO orders VALUES (1, 'sent')");
    db.close();
    const rows = await readSqliteOffThread(
      { file, query: 'SELECT status FROM orders WHERE id = :id', params: { id: 1 } },
      10_000,
    );
    expect(rows).toEqual([{ status: 'sent' }]);
    // The reader stays, idle, for the next query: its environment is there to read.
    const readers = childrenWith('--callbench-sqlite-reader');
    expect(readers.length).toBeGreaterThan(0);
    for (const pid of readers) expectMinimal(environmentOf(pid));
  });
});
