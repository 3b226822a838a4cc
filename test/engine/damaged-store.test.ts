import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine.js';

describe('a damaged store', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['a zero-byte file', ''],
    ['a file that is not SQLite', 'these are not the pages of a database\n'.repeat(200)],
  ])('is refused, never replaced: %s', async (_what, content) => {
    dir = mkdtempSync(join(tmpdir(), 'callbench-test-'));
    const file = join(dir, 'callbench.db');
    writeFileSync(file, content);
    const engine = createEngine({ dataDir: dir });
    await expect(engine.start()).rejects.toThrow(
      new RegExp(`${file.replace(/[/\\.]/g, '\\$&')} is not a Callbench store`),
    );
    await engine.stop();
    // Nothing was written over it.
    expect((await import('node:fs')).readFileSync(file, 'utf8')).toBe(content);
  });
});
