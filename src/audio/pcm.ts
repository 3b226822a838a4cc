/**
 * PCM16 mono primitives. Every audio path in the engine speaks `Int16Array` samples at a known
 * rate; the wire formats (little-endian bytes, G.711 mu-law) are converted here and nowhere else.
 */
import { endianness } from 'node:os';

export { resample, Resampler } from './resample.js';
import { Resampler } from './resample.js';

/** The frame length every transport streams: 20 ms is what telephony and the providers use. */
export const FRAME_MS = 20;

const HOST_IS_LITTLE_ENDIAN = endianness() === 'LE';

/** Samples in one `FRAME_MS` frame at `sampleRate` (320 at 16 kHz, 160 at 8 kHz). */
export function samplesPerFrame(sampleRate: number): number {
  return Math.round((sampleRate * FRAME_MS) / 1000);
}

/**
 * Reads little-endian PCM16. The result is a view over `bytes` when they are aligned (so it
 * shares their memory); an odd byte offset forces a copy, and an odd trailing byte is dropped.
 */
export function pcmFromBytes(bytes: Uint8Array): Int16Array {
  const count = bytes.byteLength >> 1;
  if (HOST_IS_LITTLE_ENDIAN && bytes.byteOffset % 2 === 0) {
    return new Int16Array(bytes.buffer, bytes.byteOffset, count);
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, count * 2);
  const pcm = new Int16Array(count);
  for (let i = 0; i < count; i++) pcm[i] = view.getInt16(i * 2, true);
  return pcm;
}

/** Writes little-endian PCM16 into a new Buffer (a copy: the caller may reuse `pcm`). */
export function bytesFromPcm(pcm: Int16Array): Buffer {
  const out = Buffer.allocUnsafe(pcm.length * 2);
  if (HOST_IS_LITTLE_ENDIAN) {
    out.set(new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength));
    return out;
  }
  for (let i = 0; i < pcm.length; i++) out.writeInt16LE(pcm[i]!, i * 2);
  return out;
}

// G.711 mu-law, the classic bias-and-clip formulation. Both directions are table lookups built
// once, since mu-law transports and lines carry every frame of every call. The encoder's (and
// the round trip's) tables are indexed by biased magnitude, (min(|x|, clip) + bias) >> 3: every
// bit the codec keeps lies at bit 3 or above of it, so 4 Ki entries say what a table of all
// 64 Ki int16 values would, and they stay in the L1 cache between frames (a 64 KiB table did
// not: noisy audio, which reaches many entries, cost several times what silence did).
const MULAW_BIAS = 0x84;
const MULAW_CLIP = 32635;

function mulawEncodeSample(sample: number): number {
  const sign = sample < 0 ? 0x80 : 0;
  let magnitude = Math.min(sign ? -sample : sample, MULAW_CLIP) + MULAW_BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (magnitude & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (magnitude >> (exponent + 3)) & 0x0f;
  magnitude = sign | (exponent << 4) | mantissa;
  return ~magnitude & 0xff;
}

function mulawDecodeByte(byte: number): number {
  const u = ~byte & 0xff;
  const exponent = (u >> 4) & 0x07;
  const magnitude = ((((u & 0x0f) << 3) + MULAW_BIAS) << exponent) - MULAW_BIAS;
  return u & 0x80 ? -magnitude : magnitude;
}

/** The table index of a sample's magnitude (see above). */
const magnitudeIndex = (sample: number) =>
  (Math.min(sample < 0 ? -sample : sample, MULAW_CLIP) + MULAW_BIAS) >> 3;

/** Codes of non-negative samples by magnitude index; a negative one's is the same without bit 7. */
const MULAW_ENCODE_TABLE = (() => {
  const table = new Uint8Array(magnitudeIndex(MULAW_CLIP) + 1);
  for (let m = 0; m <= MULAW_CLIP; m++) table[magnitudeIndex(m)] = mulawEncodeSample(m);
  return table;
})();

const MULAW_DECODE_TABLE = (() => {
  const table = new Int16Array(256);
  for (let b = 0; b < 256; b++) table[b] = mulawDecodeByte(b);
  return table;
})();

/** What encode + decode leaves of a non-negative sample, by magnitude index. */
const MULAW_ROUND_TRIP = (() => {
  const table = new Int16Array(MULAW_ENCODE_TABLE.length);
  for (let i = 0; i < table.length; i++) table[i] = MULAW_DECODE_TABLE[MULAW_ENCODE_TABLE[i]!]!;
  return table;
})();

/** An int16 sample as it comes out of a mu-law codec (encoded and decoded again). */
export function mulawRoundTrip(sample: number): number {
  const kept = MULAW_ROUND_TRIP[magnitudeIndex(sample)]!;
  return sample < 0 ? -kept : kept;
}

/** PCM16 to G.711 mu-law, one byte per sample. */
export function mulawEncode(pcm: Int16Array): Buffer {
  const out = Buffer.allocUnsafe(pcm.length);
  for (let i = 0; i < pcm.length; i++) {
    const sample = pcm[i]!;
    const code = MULAW_ENCODE_TABLE[magnitudeIndex(sample)]!;
    out[i] = sample < 0 ? code & 0x7f : code;
  }
  return out;
}

/** G.711 mu-law to PCM16. */
export function mulawDecode(bytes: Uint8Array): Int16Array {
  const out = new Int16Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = MULAW_DECODE_TABLE[bytes[i]!]!;
  return out;
}

/** `ms` of digital silence at `sampleRate`. */
export function silence(ms: number, sampleRate: number): Int16Array {
  return new Int16Array(Math.max(0, Math.round((ms * sampleRate) / 1000)));
}

/** The floor `rmsDbfs` reports for digital silence, well below any real signal. */
export const SILENCE_DBFS = -120;

function sumOfSquares(pcm: Int16Array, from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += pcm[i]! * pcm[i]!;
  return sum;
}

/** RMS level in dB relative to full scale (a full-scale square wave is 0); silence is -120. */
export function rmsDbfs(pcm: Int16Array): number {
  if (pcm.length === 0) return SILENCE_DBFS;
  const rms = Math.sqrt(sumOfSquares(pcm, 0, pcm.length) / pcm.length);
  if (rms === 0) return SILENCE_DBFS;
  return Math.max(SILENCE_DBFS, 20 * Math.log10(rms / 32768));
}

/** How long `sampleCount` samples play at `sampleRate`, in (fractional) milliseconds. */
export function durationMs(sampleCount: number, sampleRate: number): number {
  return (sampleCount * 1000) / sampleRate;
}

/** The parts, one after another, in a new array. */
export function concatPcm(parts: Int16Array[]): Int16Array {
  let total = 0;
  for (const part of parts) total += part.length;
  const out = new Int16Array(total);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * Drops leading and trailing near-silence (10 ms windows whose RMS is under `thresholdDbfs`),
 * keeping a 10 ms margin on each side so onsets and decays are not clipped. All-silent input
 * gives an empty array. The result is a copy.
 */
export function trimSilence(pcm: Int16Array, sampleRate: number, thresholdDbfs = -50): Int16Array {
  const window = Math.max(1, Math.round(sampleRate / 100));
  const minSumSq = (32768 * 10 ** (thresholdDbfs / 20)) ** 2;
  const loud = (start: number): boolean => {
    const end = Math.min(pcm.length, start + window);
    return sumOfSquares(pcm, start, end) / (end - start) >= minSumSq;
  };
  let first = -1;
  for (let start = 0; start < pcm.length; start += window) {
    if (loud(start)) {
      first = start;
      break;
    }
  }
  if (first < 0) return new Int16Array(0);
  let lastEnd = first + window;
  const lastStart = Math.floor((pcm.length - 1) / window) * window;
  for (let start = lastStart; start > first; start -= window) {
    if (loud(start)) {
      lastEnd = start + window;
      break;
    }
  }
  return pcm.slice(Math.max(0, first - window), Math.min(pcm.length, lastEnd + window));
}

/**
 * `resample` a slice at a time, yielding to the event loop between slices: a long utterance
 * never holds up the 20 ms frames of live calls (30 s in one go takes ~60 ms).
 */
export async function resampleInSlices(
  pcm: Int16Array,
  fromRate: number,
  toRate: number,
  signal?: AbortSignal,
): Promise<Int16Array> {
  if (fromRate === toRate) return pcm;
  const resampler = new Resampler(fromRate, toRate);
  const slice = Math.max(1, Math.round(fromRate / 4));
  const parts: Int16Array[] = [];
  for (let at = 0; at < pcm.length; at += slice) {
    parts.push(resampler.push(pcm.subarray(at, at + slice)));
    await new Promise<void>((resolve) => setImmediate(resolve));
    signal?.throwIfAborted();
  }
  parts.push(resampler.end());
  return concatPcm(parts);
}
