/**
 * Background noise under the caller's speech at a set signal-to-noise ratio. Speech is brought
 * to a fixed level first (`normalizeSpeechLevel`), so the SNR is simply where the bed's level
 * sits below it.
 */
import { NOISE_BED_RATE } from './noise-beds.js';
import { resample } from './resample.js';

/** The RMS level caller speech is normalised to, measured over its speech span. */
export const SPEECH_LEVEL_DBFS = -20;

/**
 * A sample at or above this magnitude (about -50 dBFS) is speech: a clip's speech span runs from
 * the first such sample to the last (the same rule the call uses to find where speech is).
 */
export const SPEECH_SPAN_THRESHOLD = 104;

const INT16_MAX = 32767;
/** Peaks past this (-3 dBFS) are soft-limited rather than clipped. */
const LIMITER_KNEE = Math.round(INT16_MAX * 10 ** (-3 / 20));

function dbfsToAmplitude(dbfs: number): number {
  return 32768 * 10 ** (dbfs / 20);
}

/** Start (inclusive) and end (exclusive) of the speech span, or null if nothing reaches it. */
export function speechSpan(pcm: Int16Array): { start: number; end: number } | null {
  let start = 0;
  while (start < pcm.length && Math.abs(pcm[start]!) < SPEECH_SPAN_THRESHOLD) start++;
  if (start === pcm.length) return null;
  let end = pcm.length;
  while (Math.abs(pcm[end - 1]!) < SPEECH_SPAN_THRESHOLD) end--;
  return { start, end };
}

function rmsOver(samples: ArrayLike<number>, start: number, end: number): number {
  let sum = 0;
  for (let i = start; i < end; i++) sum += samples[i]! * samples[i]!;
  return Math.sqrt(sum / Math.max(1, end - start));
}

/** Above the knee, magnitude bends smoothly (tanh, slope 1 at the knee) towards full scale. */
function softLimit(value: number): number {
  const magnitude = Math.abs(value);
  if (magnitude <= LIMITER_KNEE) return value;
  const room = INT16_MAX - LIMITER_KNEE;
  const limited = LIMITER_KNEE + room * Math.tanh((magnitude - LIMITER_KNEE) / room);
  return value < 0 ? -limited : limited;
}

/** RMS of `pcm[start..end)` once scaled by `gain` and soft-limited. */
function limitedRms(pcm: Int16Array, span: { start: number; end: number }, gain: number): number {
  let sum = 0;
  for (let i = span.start; i < span.end; i++) sum += softLimit(pcm[i]! * gain) ** 2;
  return Math.sqrt(sum / (span.end - span.start));
}

/** Gain corrections for what the limiter takes off: rarely more than one is needed. */
const LIMITER_PASSES = 4;
/** The corrections never add more than this (12 dB) on top of the plain RMS gain. */
const MAX_LIMITER_MAKEUP = 4;

/**
 * A copy of `pcm` scaled so the RMS over its speech span is SPEECH_LEVEL_DBFS. It never clips:
 * a peak the gain would push past -3 dBFS is soft-limited (a tanh knee, slope 1 at -3 dBFS, to
 * full scale) rather than the gain being reduced, since the SNR depends on the speech level
 * holding. When limiting takes off enough energy to matter (spiky input), the gain is raised a
 * little to make up for it (at most 12 dB in all). espeak-ng speech (crest 17-19 dB) peaks
 * around -1 to -3 dBFS at this level, so the limiter bends only its few loudest samples.
 * All-silent input comes back unchanged (as a copy).
 */
export function normalizeSpeechLevel(pcm: Int16Array): Int16Array {
  const span = speechSpan(pcm);
  if (!span) return pcm.slice();
  const target = dbfsToAmplitude(SPEECH_LEVEL_DBFS);
  const plainGain = target / rmsOver(pcm, span.start, span.end);
  let gain = plainGain;
  for (let pass = 0; pass < LIMITER_PASSES; pass++) {
    const shortfall = target / limitedRms(pcm, span, gain);
    if (shortfall < 1.001) break;
    gain = Math.min(gain * shortfall, plainGain * MAX_LIMITER_MAKEUP);
  }
  const out = new Int16Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) out[i] = Math.round(softLimit(pcm[i]! * gain));
  return out;
}

/**
 * Each bed at each call rate, with its RMS, made once: calls often start together, and
 * resampling a 6 s loop for each of them would hold up the frames of the calls already running.
 */
const atRates = new WeakMap<Int16Array, Map<number, { loop: Int16Array; rms: number }>>();

function bedAtRate(bed: Int16Array, rate: number): { loop: Int16Array; rms: number } {
  let byRate = atRates.get(bed);
  if (!byRate) atRates.set(bed, (byRate = new Map<number, { loop: Int16Array; rms: number }>()));
  let found = byRate.get(rate);
  if (!found) {
    const loop = resampleLoop(bed, NOISE_BED_RATE, rate);
    found = { loop, rms: rmsOver(loop, 0, loop.length) };
    byRate.set(rate, found);
  }
  return found;
}

/** Resamples a loop as a loop: wrapped context on both sides, so the seam stays seamless. */
function resampleLoop(bed: Int16Array, fromRate: number, toRate: number): Int16Array {
  if (fromRate === toRate) return bed;
  const pad = Math.min(bed.length, 512);
  const padded = new Int16Array(bed.length + 2 * pad);
  padded.set(bed.subarray(bed.length - pad), 0);
  padded.set(bed, pad);
  padded.set(bed.subarray(0, pad), pad + bed.length);
  const out = resample(padded, fromRate, toRate);
  const start = Math.round((pad * toRate) / fromRate);
  return out.slice(start, start + Math.round((bed.length * toRate) / fromRate));
}

export interface NoiseMixerOptions {
  /** The bed, at NOISE_BED_RATE (as `loadNoiseBed` gives it). */
  bed: Int16Array;
  /** The call's rate, 8000 or 16000. */
  sampleRate: number;
  snrDb: number;
  random: () => number;
}

/** Level-set loops by bed, rate and SNR: calls of one persona share theirs (and what lines make of it). */
const levelSet = new WeakMap<Int16Array, Map<string, Int16Array>>();
/**
 * Loops kept per bed: SNRs are free numbers, so a long-lived app would otherwise keep one loop
 * (and its line versions) for every SNR it ever used. A mixer holds its own loop regardless.
 */
const LEVELS_KEPT = 8;

/**
 * The bed at `rate`, scaled so its RMS over the whole loop sits snrDb under SPEECH_LEVEL_DBFS and
 * rounded to int16: mixing is then one integer add per sample (the sum is int16 anyway, so
 * rounding the bed first changes nothing but where a half-LSB goes).
 */
function levelSetLoop(bed: Int16Array, rate: number, snrDb: number): Int16Array {
  let byLevel = levelSet.get(bed);
  if (!byLevel) levelSet.set(bed, (byLevel = new Map<string, Int16Array>()));
  const key = `${rate}/${snrDb}`;
  let loop = byLevel.get(key);
  if (!loop) {
    const { loop: atCallRate, rms } = bedAtRate(bed, rate);
    const gain = rms > 0 ? dbfsToAmplitude(SPEECH_LEVEL_DBFS - snrDb) / rms : 0;
    loop = new Int16Array(atCallRate.length);
    for (let i = 0; i < atCallRate.length; i++) {
      const scaled = Math.round(atCallRate[i]! * gain);
      loop[i] = scaled > INT16_MAX ? INT16_MAX : scaled < -32768 ? -32768 : scaled;
    }
    if (byLevel.size >= LEVELS_KEPT) byLevel.delete(byLevel.keys().next().value!);
    byLevel.set(key, loop);
  }
  return loop;
}

/**
 * Adds a looping noise bed to the caller's frames. The bed's level is its RMS over the whole loop
 * at the call's rate, set to SPEECH_LEVEL_DBFS - snrDb: beds with bursts (hammer blows, a PA
 * chime) are judged over everything they contain, so the SNR over any stretch of a loop or more
 * is exact, and over shorter stretches it wanders only as much as the bed itself does.
 *
 * A band-limited line adds the noise itself, already band-limited (line.ts): it reads `loop`
 * and moves the mixer on with `advance`.
 */
export class NoiseMixer {
  /** The level-set bed at the call's rate (shared: never written). */
  readonly loop: Int16Array;
  private at: number;

  constructor(opts: NoiseMixerOptions) {
    if (opts.bed.length === 0) throw new Error('the noise bed is empty');
    this.loop = levelSetLoop(opts.bed, opts.sampleRate, opts.snrDb);
    // Even, so that a line at half the call's rate takes the same samples of it on every lap.
    this.at = (Math.floor(opts.random() * this.loop.length) % this.loop.length) & ~1;
  }

  /** Where the next `count` samples of noise start in `loop`; moves on past them. */
  advance(count: number): number {
    const start = this.at;
    this.at = (start + count) % this.loop.length;
    return start;
  }

  /** Adds the next `frame.length` samples of noise to `frame`, in place, saturating to int16. */
  mixInto(frame: Int16Array): void {
    const loop = this.loop;
    let at = this.advance(frame.length);
    let i = 0;
    while (i < frame.length) {
      // Up to the loop's end in one run, so the wrap is checked once per run, not per sample.
      const run = Math.min(frame.length - i, loop.length - at);
      for (let k = 0; k < run; k++) {
        const sum = frame[i + k]! + loop[at + k]!;
        frame[i + k] = sum > INT16_MAX ? INT16_MAX : sum < -32768 ? -32768 : sum;
      }
      i += run;
      at = at + run === loop.length ? 0 : at + run;
    }
  }
}
