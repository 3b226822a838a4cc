/** Test signals: tones, clicks and espeak-ng speech. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { parseWav } from '../../src/audio/wav.js';
import { resample } from '../../src/audio/pcm.js';

const run = promisify(execFile);

export function tone(opts: {
  hz: number;
  sampleRate: number;
  ms: number;
  amplitude?: number;
}): Int16Array {
  const count = Math.round((opts.ms * opts.sampleRate) / 1000);
  const amplitude = opts.amplitude ?? 10000;
  const out = new Int16Array(count);
  for (let i = 0; i < count; i++) {
    out[i] = Math.round(amplitude * Math.sin((2 * Math.PI * opts.hz * i) / opts.sampleRate));
  }
  return out;
}

/** The raw bytes espeak-ng writes to stdout (a WAV whose sizes say "streamed"). */
export async function espeakWav(text: string): Promise<Buffer> {
  const { stdout } = await run('espeak-ng', ['--stdout', text], {
    encoding: 'buffer',
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout;
}

/** espeak-ng speech as PCM16 mono at `sampleRate`. */
export async function espeakPcm(text: string, sampleRate: number): Promise<Int16Array> {
  const wav = parseWav(await espeakWav(text));
  return resample(wav.pcm, wav.sampleRate, sampleRate);
}
