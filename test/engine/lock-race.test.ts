import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

// One child: waits for the common start instant, takes the data dir lock, holds it for a moment.
const CHILD = `
import { acquireDataDirLock } from './src/lock.ts';
const [dir, at] = process.argv.slice(-2);
while (Date.now() < Number(at)) {}
try {
  const release = acquireDataDirLock(dir);
  console.log('held');
  setTimeout(() => { release(); }, 700);
} catch (err) {
  console.log('refused: ' + err.message);
}
`;

function contender(dir: string, at: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', CHILD, '--', dir, String(at)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', () => resolve(out.trim()));
  });
}

describe('data dir lock', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('of two engines started at the same instant, exactly one holds the lock, also over a stale one', async () => {
    for (let pair = 0; pair < 10; pair++) {
      const dir = mkdtempSync(join(tmpdir(), 'callbench-test-'));
      dirs.push(dir);
      // Every other pair races to take over a lock left by a process that is gone.
      if (pair % 2) writeFileSync(join(dir, 'callbench.lock'), '999999999');
      // Far enough ahead for both children to have loaded; then they race.
      const at = Date.now() + 1_500;
      const results = await Promise.all([contender(dir, at), contender(dir, at)]);
      expect(
        results.filter((r) => r === 'held'),
        results.join(' | '),
      ).toHaveLength(1);
      expect(results.find((r) => r !== 'held')).toMatch(
        /^refused: Another Callbench engine \(pid \d+\) is already using/,
      );
      expect(readdirSync(dir)).toEqual([]);
    }
  }, 60_000);
});
