import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** What the data dir holds that no other local user may read: the store, its WAL, the key. */
const PRIVATE_FILES = ['callbench.db', 'callbench.db-wal', 'callbench.db-shm', 'secret.key'];

/** Creates the data dir for its owner only (0700); POSIX modes only, Windows has ACLs instead. */
export function createDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
}

/**
 * Gives the data dir 0700 and its private files 0600 where they are looser (a copy restored from a
 * backup, a umask, an older version). Answers the paths it tightened, for one log line.
 */
export function keepToOwner(dataDir: string): string[] {
  if (process.platform === 'win32') return [];
  const tightened: string[] = [];
  const tighten = (path: string, mode: number): void => {
    if (!existsSync(path)) return;
    if ((statSync(path).mode & 0o777 & ~mode) === 0) return;
    chmodSync(path, mode);
    tightened.push(path);
  };
  tighten(dataDir, 0o700);
  for (const file of PRIVATE_FILES) tighten(join(dataDir, file), 0o600);
  return tightened;
}
