import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from './errors.js';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Lock files this process holds: our own pid in a lock file is only stale when we do not hold it. */
const held = new Set<string>();

/**
 * One engine per data dir: the desktop app and `serve` share a store, and two schedulers or two
 * sync loops on it would run everything twice. A lock left by a dead process is taken over.
 */
export function acquireDataDirLock(dataDir: string): () => void {
  const file = join(dataDir, 'callbench.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      held.add(file);
      return () => {
        held.delete(file);
        try {
          if (readFileSync(file, 'utf8').trim() === String(process.pid)) unlinkSync(file);
        } catch {
          // Already gone: nothing to release.
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
      const ours = owner === process.pid;
      if (Number.isInteger(owner) && ((ours && held.has(file)) || (!ours && isAlive(owner)))) {
        throw new AppError(
          'data_dir_locked',
          409,
          `Another Callbench engine (pid ${owner}) is already using ${dataDir}. ` +
            'Stop it first, or start this one with another --data-dir.',
        );
      }
      unlinkSync(file); // stale: its owner is gone
    }
  }
  throw new AppError('data_dir_locked', 409, `Could not lock ${dataDir}`);
}
