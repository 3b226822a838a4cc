import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  NOISE_BED_RATE,
  defaultNoiseDir,
  loadNoiseBed,
  noiseBedPath,
} from '../../src/audio/noise-beds.js';
import {
  NoiseMixer,
  SPEECH_LEVEL_DBFS,
  normalizeSpeechLevel,
  speechSpan,
} from '../../src/audio/noise-mixer.js';
import { concatPcm, rmsDbfs, samplesPerFrame, silence } from '../../src/audio/pcm.js';
import { seededRandom } from '../../src/audio/seeded-random.js';
import { encodeWav, parseWav } from '../../src/audio/wav.js';
import { BACKGROUND_NOISES } from '../../src/operations/personas.js';
import { espeakPcm, tone } from './signals.js';

/** Every background noise a persona can have, but none: each has a bed. */
const BEDS = BACKGROUND_NOISES.filter((n) => n !== 'none');

const SPEECH =
  'Hello, I would like to change the delivery address on my order. ' +
  'The order number is four five six, and it was placed last Tuesday.';

function power(pcm: Int16Array, from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += pcm[i]! * pcm[i]!;
  return sum / (to - from);
}

/** `pcm` with the mixer's noise added, 20 ms at a time as a call would. */
function mixed(pcm: Int16Array, mixer: NoiseMixer, sampleRate: number): Int16Array {
  const out = pcm.slice();
  const frame = samplesPerFrame(sampleRate);
  for (let at = 0; at < out.length; at += frame) mixer.mixInto(out.subarray(at, at + frame));
  return out;
}

/**
 * The SNR read back from the mix alone: speech-span power minus noise-only power is the speech,
 * the noise-only power is the noise.
 */
function measuredSnrDb(mix: Int16Array, span: { start: number; end: number }): number {
  const noiseEnergy =
    power(mix, 0, span.start) * span.start +
    power(mix, span.end, mix.length) * (mix.length - span.end);
  const noise = noiseEnergy / (mix.length - (span.end - span.start));
  const speech = power(mix, span.start, span.end) - noise;
  return 10 * Math.log10(speech / noise);
}

/** Normalised espeak speech with a whole bed loop (6 s) of silence on each side. */
async function speechInSilence(sampleRate: number): Promise<Int16Array> {
  const speech = normalizeSpeechLevel(await espeakPcm(SPEECH, sampleRate));
  return concatPcm([silence(6000, sampleRate), speech, silence(6000, sampleRate)]);
}

describe('noise beds', () => {
  it('are all there: 6 s of 16 kHz mono at -30 dBFS, looping without a click', async () => {
    for (const name of BEDS) {
      const wav = parseWav(await readFile(noiseBedPath(defaultNoiseDir(), name)));
      expect([wav.sampleRate, wav.channels, wav.pcm.length]).toEqual([16000, 1, 96000]);
      expect(rmsDbfs(wav.pcm)).toBeCloseTo(-30, 0);
      const steps = new Int16Array(wav.pcm.length - 1);
      for (let i = 1; i < wav.pcm.length; i++) steps[i - 1] = wav.pcm[i]! - wav.pcm[i - 1]!;
      const typicalStep = 32768 * 10 ** (rmsDbfs(steps) / 20);
      const seam = Math.abs(wav.pcm[0]! - wav.pcm[wav.pcm.length - 1]!);
      expect(seam, name).toBeLessThan(4 * typicalStep);
    }
  });

  it('loads once per path, resampled to 16 kHz, and says which file is missing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'noise-beds-'));
    try {
      const missing = noiseBedPath(dir, 'office');
      await expect(loadNoiseBed(dir, 'office')).rejects.toThrow(
        `the noise bed for "office" is missing: ${missing}`,
      );
      const bed = tone({ hz: 200, sampleRate: 8000, ms: 1000 });
      await writeFile(missing, encodeWav({ sampleRate: 8000, channels: 1, samples: bed }));
      const loaded = await loadNoiseBed(dir, 'office'); // the failure was not remembered
      expect(loaded.length).toBe(NOISE_BED_RATE);
      expect(loadNoiseBed(dir, 'office')).toBe(loadNoiseBed(dir, 'office'));
      expect(await loadNoiseBed(dir, 'office')).toBe(loaded);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('normalizeSpeechLevel', () => {
  it('brings the speech span to -20 dBFS without clipping, leaving silence as it is', async () => {
    const quiet = (await espeakPcm(SPEECH, 16000)).map((s) => Math.round(s / 8));
    const padded = concatPcm([silence(500, 16000), quiet, silence(500, 16000)]);
    const out = normalizeSpeechLevel(padded);
    const span = speechSpan(out)!;
    expect(rmsDbfs(out.subarray(span.start, span.end))).toBeCloseTo(SPEECH_LEVEL_DBFS, 1);
    expect(out.subarray(0, 8000).every((s) => s === 0)).toBe(true);
    expect(quiet.some((s, i) => s !== padded[8000 + i])).toBe(false); // input untouched
    const flat = new Int16Array(100).fill(50);
    expect(normalizeSpeechLevel(flat)).toEqual(flat);
  });

  it('soft-limits peaks the gain would clip instead of wrapping or squaring them off', () => {
    // Rare spikes over a quiet bed: the span's RMS is low, so the gain pushes spikes past full scale.
    const spiky = tone({ hz: 300, sampleRate: 16000, ms: 1000, amplitude: 300 });
    for (let i = 500; i < spiky.length; i += 4000) spiky[i] = 20000;
    const out = normalizeSpeechLevel(spiky);
    const peak = Math.max(...Array.from(out, Math.abs));
    expect(peak).toBeLessThanOrEqual(32767);
    expect(peak).toBeGreaterThan(23000);
    expect(out[500]).toBeGreaterThan(0);
    const span = speechSpan(out)!;
    expect(rmsDbfs(out.subarray(span.start, span.end))).toBeCloseTo(SPEECH_LEVEL_DBFS, 0);
  });
});

describe('NoiseMixer', () => {
  // The SNR is defined against the bed's RMS over its whole loop; the beds are levelled so any
  // few seconds carry about that power, which is what makes the SNR hold over one utterance.
  it('mixes every bed at the SNR it is set to, measured back from the mix (16 kHz)', async () => {
    const clean = await speechInSilence(16000);
    const span = speechSpan(clean)!;
    const errors: string[] = [];
    let worst = 0;
    for (const name of BEDS) {
      const bed = await loadNoiseBed(defaultNoiseDir(), name);
      for (const snrDb of [-5, 10, 25]) {
        for (const seed of [1, 2, 3, 4, 5]) {
          const mixer = new NoiseMixer({
            bed,
            sampleRate: 16000,
            snrDb,
            random: seededRandom(seed),
          });
          const error = measuredSnrDb(mixed(clean, mixer, 16000), span) - snrDb;
          worst = Math.max(worst, Math.abs(error));
          if (Math.abs(error) >= 1) errors.push(`${name} @ ${snrDb} dB seed ${seed}: ${error}`);
        }
      }
    }
    console.log(`worst SNR error over 13 beds x 3 SNRs x 5 offsets: ${worst.toFixed(3)} dB`);
    expect(errors).toEqual([]);
  });

  it('holds the SNR at an 8 kHz call too', async () => {
    const clean = await speechInSilence(8000);
    const span = speechSpan(clean)!;
    for (const name of ['construction', 'cafe', 'wind']) {
      const bed = await loadNoiseBed(defaultNoiseDir(), name);
      const mixer = new NoiseMixer({ bed, sampleRate: 8000, snrDb: 0, random: seededRandom(5) });
      expect(Math.abs(measuredSnrDb(mixed(clean, mixer, 8000), span)), name).toBeLessThan(1);
    }
  });

  it('starts at a seeded offset, loops seamlessly and saturates instead of wrapping', () => {
    const bed = tone({ hz: 100, sampleRate: 16000, ms: 100, amplitude: 10000 });
    const first = new Int16Array(320);
    const again = new Int16Array(320);
    new NoiseMixer({ bed, sampleRate: 16000, snrDb: 0, random: seededRandom(9) }).mixInto(first);
    new NoiseMixer({ bed, sampleRate: 16000, snrDb: 0, random: seededRandom(9) }).mixInto(again);
    expect(again).toEqual(first);
    const other = new Int16Array(320);
    new NoiseMixer({ bed, sampleRate: 16000, snrDb: 0, random: seededRandom(10) }).mixInto(other);
    expect(other).not.toEqual(first);
    // 100 ms bed, 1 s of frames: the loop repeats exactly every 1600 samples.
    const mixer = new NoiseMixer({ bed, sampleRate: 16000, snrDb: 0, random: () => 0 });
    const long = new Int16Array(16000);
    for (let at = 0; at < long.length; at += 320) mixer.mixInto(long.subarray(at, at + 320));
    expect(long.subarray(1600, 3200)).toEqual(long.subarray(0, 1600));
    expect(rmsDbfs(long)).toBeCloseTo(SPEECH_LEVEL_DBFS, 0);
    const loud = new Int16Array(320).fill(32000);
    new NoiseMixer({ bed, sampleRate: 16000, snrDb: 10, random: () => 0.5 }).mixInto(loud);
    expect(Math.min(...loud)).toBeGreaterThan(30000);
    expect(Math.max(...loud)).toBe(32767);
  });
});
