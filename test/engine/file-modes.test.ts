import { chmodSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine.js';

const modeOf = (path: string): number => statSync(path).mode & 0o777;

describe.skipIf(process.platform === 'win32')('data dir file modes', () => {
  let parent = '';
  afterEach(() => rmSync(parent, { recursive: true, force: true }));

  it('creates the data dir 0700 and the database, its WAL and the key 0600', async () => {
    parent = mkdtempSync(join(tmpdir(), 'callbench-test-'));
    const dir = join(parent, 'data');
    const lines: string[] = [];
    const log = { info: (m: string) => lines.push(m), error: (m: string) => lines.push(m) };
    const engine = createEngine({ dataDir: dir, log });
    await engine.start();
    expect(lines).toEqual([]);
    expect(modeOf(dir)).toBe(0o700);
    for (const file of ['callbench.db', 'callbench.db-wal', 'callbench.db-shm', 'secret.key'])
      expect(modeOf(join(dir, file)), file).toBe(0o600);
    await engine.stop();
  });

  it('tightens looser modes found at start, saying so in one log line', async () => {
    parent = mkdtempSync(join(tmpdir(), 'callbench-test-'));
    const dir = join(parent, 'data');
    const first = createEngine({ dataDir: dir });
    await first.start();
    await first.stop();
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'callbench.db'), 0o644);
    chmodSync(join(dir, 'secret.key'), 0o644);
    const lines: string[] = [];
    const log = { info: (m: string) => lines.push(m), error: (m: string) => lines.push(m) };
    const second = createEngine({ dataDir: dir, log });
    await second.start();
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(join(dir, 'callbench.db'))).toBe(0o600);
    expect(modeOf(join(dir, 'secret.key'))).toBe(0o600);
    const said = lines.filter((l) => /only its owner/.test(l));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain('callbench.db');
    await second.stop();
  });
});
