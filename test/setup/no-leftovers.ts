import { readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TEST_DIRS = /^callbench-/;
let before = new Set<string>();

const testDirs = (): string[] => readdirSync(tmpdir()).filter((name) => TEST_DIRS.test(name));

/** Global setup: notes the test dirs already in the OS temp dir (another run's, or a user's). */
export function setup(): void {
  before = new Set(testDirs());
}

/** After the whole run: every test dir the run made must be gone. */
export function teardown(): void {
  const left = testDirs().filter((name) => !before.has(name) && exists(join(tmpdir(), name)));
  if (left.length)
    throw new Error(`Tests left ${left.length} temporary dir(s) behind: ${left.join(', ')}`);
}

const exists = (path: string): boolean => {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
};
