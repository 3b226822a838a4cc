import { createReadStream, type ReadStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Store } from '../store/index.js';
import { recordingRetentionDays } from './speech-settings.js';

/** A recording's file name is the simulation's id: nothing a caller sends reaches a path. */
const NAME = /^sim_[A-Za-z0-9_-]+\.wav$/;
const DAY_MS = 86_400_000;

/**
 * The stereo recordings of audio calls, in the data dir's `recordings/` folder. A recording
 * goes with its simulation (an orphan is removed at the next sweep) and after the retention
 * setting's days.
 */
export function createRecordings(options: {
  dataDir: string;
  store: Store;
  log: (m: string) => void;
}) {
  const dir = join(options.dataDir, 'recordings');
  const pathOf = (name: string): string => {
    if (!NAME.test(name)) throw new Error(`not a recording name: ${name}`);
    return join(dir, name);
  };

  return {
    /** Stores a call's WAV (written whole, then renamed: a reader never sees half a file). */
    async save(simulationId: string, wav: Buffer): Promise<string> {
      const name = `${simulationId}.wav`;
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const partial = `${pathOf(name)}.partial`;
      await writeFile(partial, wav, { mode: 0o600 });
      await rename(partial, pathOf(name));
      return name;
    },
    /** Size of a kept recording, or null when it is gone. */
    async size(name: string): Promise<number | null> {
      try {
        return (await stat(pathOf(name))).size;
      } catch {
        return null;
      }
    },
    /** Bytes [start, end] of a recording (inclusive, as HTTP ranges count). */
    read(name: string, range?: { start: number; end: number }): ReadStream {
      return createReadStream(pathOf(name), range);
    },
    async remove(name: string): Promise<void> {
      await rm(pathOf(name), { force: true });
    },
    /**
     * Removes recordings past the retention days (their simulations forget them) and those whose
     * simulation was deleted. Answers how many it removed.
     */
    async sweep(now: number): Promise<number> {
      let names: string[];
      try {
        names = (await readdir(dir)).filter((n) => NAME.test(n));
      } catch {
        return 0;
      }
      const keepMs = (await recordingRetentionDays(options.store)) * DAY_MS;
      const kept = await options.store.simulations.withRecordings(names);
      let removed = 0;
      for (const name of names) {
        const info = await stat(pathOf(name)).catch(() => null);
        if (!info) continue;
        const expired = now - info.mtimeMs > keepMs;
        if (!expired && kept.has(name)) continue;
        await rm(pathOf(name), { force: true });
        if (kept.has(name)) await options.store.simulations.forgetRecording(name);
        removed++;
      }
      if (removed) options.log(`${removed} recording(s) removed (retention or deleted simulation)`);
      return removed;
    },
  };
}

export type Recordings = ReturnType<typeof createRecordings>;
