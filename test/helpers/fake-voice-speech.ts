/**
 * Real speech for the fake voice agents and the callers of transport tests: espeak-ng in a child
 * process, resampled to the line's rate and cut so that its first sample is speech (a fake that
 * answers "500 ms after the caller" must start making sound exactly then). Cached per text and
 * rate for the whole test file.
 */
import { spawn } from 'node:child_process';
import { resample } from '../../src/audio/pcm.js';
import { parseWav } from '../../src/audio/wav.js';

/** A sample this loud or louder is speech (-50 dBFS, the level `trimSilence` uses). */
export const SPEECH_LEVEL = 104;

const cache = new Map<string, Promise<Int16Array>>();

function espeak(text: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('espeak-ng', ['--stdout', '-v', 'en-us', '-s', '190', text]);
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`espeak-ng failed: ${err}`)),
    );
  });
}

/** Index of the first and one past the last sample at speech level; [0, 0] for silence. */
export function speechBounds(pcm: Int16Array, level = SPEECH_LEVEL): [number, number] {
  let first = 0;
  while (first < pcm.length && Math.abs(pcm[first]!) < level) first++;
  let end = pcm.length;
  while (end > first && Math.abs(pcm[end - 1]!) < level) end--;
  return first < end ? [first, end] : [0, 0];
}

/** `text` spoken at `rate`, from its first to its last sample of speech. */
export function speak(text: string, rate: number): Promise<Int16Array> {
  const key = `${rate}:${text}`;
  let spoken = cache.get(key);
  if (!spoken) {
    spoken = espeak(text).then((wav) => {
      const { pcm, sampleRate } = parseWav(wav);
      const atRate = resample(pcm, sampleRate, rate);
      const [first, end] = speechBounds(atRate);
      return atRate.slice(first, end);
    });
    cache.set(key, spoken);
  }
  return spoken;
}
