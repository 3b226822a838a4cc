import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
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

const ownerOf = (file: string): number | null => {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
    return Number.isInteger(pid) ? pid : null;
  } catch {
    return null;
  }
};

/**
 * Creates `file` holding our pid in one step: the pid is written to a file of our own, which is
 * then hard-linked to the lock's name. A link never replaces an existing file, so of two processes
 * exactly one succeeds, and no one ever reads a lock file that exists but is still empty.
 */
function createWithPid(file: string): boolean {
  const mine = `${file}.${process.pid}`;
  writeFileSync(mine, String(process.pid));
  try {
    linkSync(mine, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return false;
  } finally {
    unlinkSync(mine);
  }
}

/**
 * Removes a lock left by `deadPid`, and only that one: the file is first renamed to a name of our
 * own (one process wins the rename), then checked. Had another process taken the lock in between,
 * its file is linked back under the lock's name.
 */
function removeStale(file: string, deadPid: number): void {
  const aside = `${file}.stale.${process.pid}`;
  try {
    renameSync(file, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // someone else removed it
    throw err;
  }
  if (ownerOf(aside) !== deadPid) {
    try {
      linkSync(aside, file);
    } catch {
      // A third process took the lock meanwhile; the one we moved aside is no longer the lock.
    }
  }
  unlinkSync(aside);
}

const lockedBy = (dataDir: string, owner: number) =>
  new AppError(
    'data_dir_locked',
    409,
    `Another Callbench engine (pid ${owner}) is already using ${dataDir}. ` +
      'Stop it first, or start this one with another --data-dir.',
  );

/**
 * One engine per data dir: the desktop app and `serve` share a store, and two schedulers or two
 * sync loops on it would run everything twice. A lock left by a dead process is taken over.
 */
export function acquireDataDirLock(dataDir: string): () => void {
  const file = join(dataDir, 'callbench.lock');
  for (let attempt = 0; attempt < 5; attempt++) {
    if (createWithPid(file)) {
      held.add(file);
      return () => {
        held.delete(file);
        if (ownerOf(file) === process.pid) unlinkSync(file);
      };
    }
    const owner = ownerOf(file);
    if (owner === null) continue; // removed between our attempt and our read: try again
    const ours = owner === process.pid;
    if ((ours && held.has(file)) || (!ours && isAlive(owner))) throw lockedBy(dataDir, owner);
    removeStale(file, owner);
  }
  throw new AppError('data_dir_locked', 409, `Could not lock ${dataDir}`);
}
