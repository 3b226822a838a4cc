import { mkdtempSync, readdirSync, chmodSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const TEST_DIRS = /^callbench-/;
let runDir: string | null = null;
let outerTmp: string | undefined;

/**
 * Global setup: this run's temp dirs go in a parent of its own (TMPDIR, which os.tmpdir() reads
 * and the test workers inherit), so that the check at the end sees only what the run made, not
 * another program's or another run's `callbench-*` dirs in the OS temp dir.
 */
export function setup(): void {
  outerTmp = process.env.TMPDIR;
  runDir = mkdtempSync(join(tmpdir(), 'callbench-run-'));
  // As root, the test PostgreSQL runs as the `postgres` user, which must reach its dir in here.
  chmodSync(runDir, 0o711);
  process.env.TMPDIR = runDir;
}

/** After the whole run: every test dir the run made must be gone. */
export function teardown(): void {
  if (!runDir) return;
  const dir = runDir;
  if (outerTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = outerTmp;
  // Tools' own caches (tsx's, say) may sit beside the test dirs: only ours are counted.
  const left = readdirSync(dir).filter((name) => TEST_DIRS.test(name));
  if (left.length)
    throw new Error(
      `Tests left ${left.length} temporary dir(s) behind in ${dir}: ${left.join(', ')}`,
    );
  rmSync(dir, { recursive: true, force: true });
  runDir = null;
}
