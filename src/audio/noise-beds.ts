/**
 * Background-noise beds: 6 s loops of 16 kHz mono PCM16 in `resources/noise/<noise>.wav`, made
 * by scripts/make-noise-beds.ts. A call mixes its bed under the caller's speech (noise-mixer.ts).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resample } from './resample.js';
import { parseWav } from './wav.js';

/** The rate every bed is stored at (mixers resample to the call's rate once). */
export const NOISE_BED_RATE = 16_000;

/** The repository's `resources/noise`, wherever the checkout (or the packaged app) lives. */
export function defaultNoiseDir(): string {
  return fileURLToPath(new URL('../../resources/noise', import.meta.url));
}

export function noiseBedPath(dir: string, noise: string): string {
  return join(dir, `${noise}.wav`);
}

const beds = new Map<string, Promise<Int16Array>>();

async function readBed(path: string, noise: string): Promise<Int16Array> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error(`the noise bed for "${noise}" is missing: ${path}`, { cause: error });
    }
    throw error;
  }
  const wav = parseWav(bytes);
  return resample(wav.pcm, wav.sampleRate, NOISE_BED_RATE);
}

/**
 * The bed for `noise` at NOISE_BED_RATE. Loaded once per path and shared (callers must not
 * modify it); a load that fails is forgotten, so a bed added later is found on the next call.
 */
export function loadNoiseBed(dir: string, noise: string): Promise<Int16Array> {
  const path = noiseBedPath(dir, noise);
  let bed = beds.get(path);
  if (!bed) {
    const loading = readBed(path, noise);
    beds.set(path, loading);
    loading.catch(() => {
      if (beds.get(path) === loading) beds.delete(path);
    });
    bed = loading;
  }
  return bed;
}
