import { createReadStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Store } from '../store/index.js';
import { recordingRetentionDays } from './speech-settings.js';

/** A recording's name is the simulation's id: nothing a caller sends reaches a path or a row. */
const NAME = /^sim_[A-Za-z0-9_-]+\.wav$/;
const DAY_MS = 86_400_000;
/** An unclaimed recording younger than this may still be about to get its simulation. */
const ORPHAN_GRACE_MS = 10 * 60_000;
/** A recording is read from the database this many bytes at a time. */
const ROW_CHUNK_BYTES = 1 << 20;

/** Where recordings are kept: files in the data dir, or rows in the database. */
interface RecordingShelf {
  put(name: string, wav: Buffer): Promise<void>;
  size(name: string): Promise<number | null>;
  read(name: string, range?: { start: number; end: number }): Readable;
  remove(name: string): Promise<void>;
  /** Every recording kept, and when it was saved (ms). */
  list(): Promise<{ name: string; savedAtMs: number }[]>;
}

/** The desktop's recordings: WAV files in the data dir's `recordings/` folder. */
function fileShelf(dataDir: string): RecordingShelf {
  const dir = join(dataDir, 'recordings');
  const pathOf = (name: string) => join(dir, name);
  return {
    // Written whole, then renamed: a reader never sees half a file.
    async put(name, wav) {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const partial = `${pathOf(name)}.partial`;
      await writeFile(partial, wav, { mode: 0o600 });
      await rename(partial, pathOf(name));
    },
    async size(name) {
      return (await stat(pathOf(name)).catch(() => null))?.size ?? null;
    },
    read: (name, range) => createReadStream(pathOf(name), range),
    async remove(name) {
      await rm(pathOf(name), { force: true });
    },
    async list() {
      const names = await readdir(dir).catch(() => [] as string[]);
      const kept = [];
      for (const name of names.filter((n) => NAME.test(n))) {
        const info = await stat(pathOf(name)).catch(() => null);
        if (info) kept.push({ name, savedAtMs: info.mtimeMs });
      }
      return kept;
    },
  };
}

/**
 * A team server's recordings: rows in its PostgreSQL database, since its instances share no
 * disk (a recording a worker made plays from any instance). Read in chunks, never whole.
 */
function databaseShelf(store: Store, clock: () => number): RecordingShelf {
  const blobs = store.recordingBlobs;
  // No size query first: a short (or empty) chunk is the end, and the answer's size was known
  // to whoever asked for the range.
  async function* chunks(name: string, range?: { start: number; end: number }) {
    const end = range?.end ?? Infinity;
    for (let at = range?.start ?? 0; at <= end; at += ROW_CHUNK_BYTES) {
      const want = Math.min(ROW_CHUNK_BYTES, end - at + 1);
      const part = await blobs.slice(name, at, at + want - 1);
      if (!part) throw new Error(`the recording ${name} is gone`);
      if (part.length > 0) yield part;
      if (part.length < want) return;
    }
  }
  return {
    put: (name, wav) => blobs.put(name, wav, new Date(clock()).toISOString()),
    size: (name) => blobs.size(name),
    read: (name, range) => Readable.from(chunks(name, range)),
    remove: (name) => blobs.remove(name),
    async list() {
      return (await blobs.list()).map((r) => ({ name: r.name, savedAtMs: Date.parse(r.savedAt) }));
    },
  };
}

/**
 * The stereo recordings of audio calls: files in the data dir on SQLite, rows in the database on
 * PostgreSQL (a team server). A recording goes with its simulation (an orphan is removed at the
 * next sweep) and after the retention setting's days.
 */
export function createRecordings(options: {
  dataDir: string;
  store: Store;
  log: (m: string) => void;
  /** Epoch ms; the database shelf stamps a recording's save time with it. */
  now?: () => number;
}) {
  const { store } = options;
  const shelf =
    store.dialect === 'postgres'
      ? databaseShelf(store, options.now ?? Date.now)
      : fileShelf(options.dataDir);
  const checked = (name: string): string => {
    if (!NAME.test(name)) throw new Error(`not a recording name: ${name}`);
    return name;
  };

  return {
    /** Stores a call's WAV; answers the name its simulation keeps. */
    async save(simulationId: string, wav: Buffer): Promise<string> {
      const name = checked(`${simulationId}.wav`);
      await shelf.put(name, wav);
      return name;
    },
    /** Size of a kept recording, or null when it is gone. */
    size: (name: string): Promise<number | null> => shelf.size(checked(name)),
    /** Bytes [start, end] of a recording (inclusive, as HTTP ranges count). */
    read: (name: string, range?: { start: number; end: number }): Readable =>
      shelf.read(checked(name), range),
    remove: (name: string): Promise<void> => shelf.remove(checked(name)),
    /**
     * Removes recordings past the retention days (their simulations forget them) and, once past a
     * grace of minutes, those no simulation keeps (deleted with it). Answers how many it removed.
     */
    async sweep(now: number): Promise<number> {
      const all = await shelf.list();
      if (all.length === 0) return 0;
      const keepMs = (await recordingRetentionDays(store)) * DAY_MS;
      const kept = await store.simulations.withRecordings(all.map((r) => r.name));
      let removed = 0;
      for (const { name, savedAtMs } of all) {
        const expired = now - savedAtMs > keepMs;
        // A call's recording is saved just before its simulation records it: a sweep in between
        // (on any instance of a team server) must not take it for an orphan.
        const orphan = !kept.has(name) && now - savedAtMs > ORPHAN_GRACE_MS;
        if (!expired && !orphan) continue;
        await shelf.remove(name);
        if (kept.has(name)) await store.simulations.forgetRecording(name);
        removed++;
      }
      if (removed) options.log(`${removed} recording(s) removed (retention or deleted simulation)`);
      return removed;
    },
  };
}

export type Recordings = ReturnType<typeof createRecordings>;
