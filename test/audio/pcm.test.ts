import { describe, expect, it } from 'vitest';
import {
  bytesFromPcm,
  concatPcm,
  durationMs,
  FRAME_MS,
  mulawDecode,
  mulawEncode,
  mulawRoundTrip,
  pcmFromBytes,
  resample,
  Resampler,
  rmsDbfs,
  samplesPerFrame,
  silence,
  trimSilence,
} from '../../src/audio/pcm.js';
import { tone } from './signals.js';

/** Level of `pcm` away from its edges (where the resampler has only half its window). */
const innerDbfs = (pcm: Int16Array): number =>
  rmsDbfs(pcm.subarray(Math.floor(pcm.length / 10), Math.floor((pcm.length * 9) / 10)));

describe('PCM bytes and frames', () => {
  it('sizes 20 ms frames', () => {
    expect(FRAME_MS).toBe(20);
    expect(samplesPerFrame(16000)).toBe(320);
    expect(samplesPerFrame(8000)).toBe(160);
    expect(durationMs(320, 16000)).toBe(20);
    expect(silence(20, 16000)).toEqual(new Int16Array(320));
  });

  it('reads little-endian PCM16 at any byte offset and drops an odd trailing byte', () => {
    const bytes = Buffer.from([0x99, 0x01, 0x00, 0xff, 0x7f, 0x00, 0x80, 0x42]);
    expect([...pcmFromBytes(bytes.subarray(1))]).toEqual([1, 32767, -32768]);
    expect([...pcmFromBytes(new Uint8Array([0x34, 0x12, 0xfe, 0xff]))]).toEqual([0x1234, -2]);
  });

  it('writes little-endian PCM16 that reads back the same', () => {
    const pcm = new Int16Array([0, 1, -1, 32767, -32768, 1234]);
    const bytes = bytesFromPcm(pcm);
    expect([...bytes.subarray(0, 6)]).toEqual([0, 0, 1, 0, 0xff, 0xff]);
    expect(pcmFromBytes(bytes)).toEqual(pcm);
    expect(bytesFromPcm(pcm.subarray(4))).toEqual(Buffer.from([0x00, 0x80, 0xd2, 0x04]));
  });

  it('concatenates parts in order', () => {
    const out = concatPcm([new Int16Array([1, 2]), new Int16Array(0), new Int16Array([3])]);
    expect([...out]).toEqual([1, 2, 3]);
  });
});

describe('G.711 mu-law', () => {
  it('matches the standard code points', () => {
    expect([...mulawEncode(new Int16Array([0, 32767, -32768]))]).toEqual([0xff, 0x80, 0x00]);
    expect([...mulawDecode(new Uint8Array([0xff, 0x7f, 0x80, 0x00]))]).toEqual([
      0, 0, 32124, -32124,
    ]);
  });

  it('encodes every int16 sample as the G.711 reference does', () => {
    // ITU-T G.711's mu-law for 16-bit input: bias 0x84, clip 32635, segment by the highest bit.
    const reference = (sample: number) => {
      const sign = sample < 0 ? 0x80 : 0;
      const biased = Math.min(Math.abs(sample), 32635) + 0x84;
      const segment = Math.max(0, 31 - Math.clz32(biased) - 7);
      return ~(sign | (segment << 4) | ((biased >> (segment + 3)) & 0x0f)) & 0xff;
    };
    const all = new Int16Array(65536);
    for (let i = 0; i < all.length; i++) all[i] = i - 32768;
    const coded = mulawEncode(all);
    const differing = [...all].filter((sample, i) => coded[i] !== reference(sample));
    expect(differing).toEqual([]);
  });

  it('gives what encoding and decoding give, for every int16 sample, from its small table', () => {
    const all = new Int16Array(65536);
    for (let i = 0; i < all.length; i++) all[i] = i - 32768;
    const back = mulawDecode(mulawEncode(all));
    const differing = [...all].filter((sample, i) => (mulawRoundTrip(sample) | 0) !== back[i]);
    expect(differing).toEqual([]);
  });

  it('round-trips every sample within half a quantisation step', () => {
    const all = new Int16Array(65536);
    for (let i = 0; i < all.length; i++) all[i] = i - 32768;
    const back = mulawDecode(mulawEncode(all));
    let worstExcess = -Infinity;
    let signFlips = 0;
    for (let i = 0; i < all.length; i++) {
      const magnitude = Math.abs(all[i]!);
      const error = Math.abs(back[i]! - all[i]!);
      // A segment's step is 1/16 of its lower edge (magnitude + bias): half of it bounds the error.
      const bound = magnitude <= 32635 ? (magnitude + 0x84) / 32 : magnitude - 32124;
      worstExcess = Math.max(worstExcess, error - bound);
      if (back[i]! * all[i]! < 0) signFlips++;
    }
    expect(worstExcess).toBeLessThanOrEqual(0);
    expect(signFlips).toBe(0);
  });
});

describe('resample', () => {
  it('returns round(length * to / from) samples, and the input itself at the same rate', () => {
    const pcm = tone({ hz: 440, sampleRate: 16000, ms: 20.8125 }); // 333 samples
    expect(resample(pcm, 16000, 8000)).toHaveLength(167);
    expect(resample(pcm, 16000, 24000)).toHaveLength(500);
    expect(resample(pcm, 16000, 22050)).toHaveLength(459);
    expect(resample(new Int16Array(0), 8000, 16000)).toHaveLength(0);
    expect(resample(pcm, 16000, 16000)).toBe(pcm);
  });

  it('keeps a 3 kHz tone and removes a 6 kHz one going 16k -> 8k', () => {
    const pass = tone({ hz: 3000, sampleRate: 16000, ms: 500 });
    const stop = tone({ hz: 6000, sampleRate: 16000, ms: 500 });
    expect(Math.abs(innerDbfs(resample(pass, 16000, 8000)) - rmsDbfs(pass))).toBeLessThan(0.5);
    expect(rmsDbfs(stop) - innerDbfs(resample(stop, 16000, 8000))).toBeGreaterThan(30);
  });

  it('upsamples 8k -> 16k close to the ideal tone (no images)', () => {
    const out = resample(tone({ hz: 1000, sampleRate: 8000, ms: 300 }), 8000, 16000);
    const ideal = tone({ hz: 1000, sampleRate: 16000, ms: 300 });
    const residual = out.map((sample, i) => sample - ideal[i]!);
    expect(innerDbfs(ideal) - innerDbfs(residual)).toBeGreaterThan(40);
  });

  it('streams frame by frame to exactly what the one-shot conversion gives', () => {
    const input = tone({ hz: 700, sampleRate: 16000, ms: 400 });
    for (const [from, to] of [
      [16000, 8000],
      [8000, 16000],
      [16000, 22050],
    ] as const) {
      const source = from === 16000 ? input : resample(input, 16000, from);
      const stream = new Resampler(from, to);
      const parts: Int16Array[] = [];
      const frame = samplesPerFrame(from);
      for (let i = 0; i < source.length; i += frame) {
        parts.push(stream.push(source.subarray(i, i + frame)));
      }
      parts.push(stream.end());
      expect(concatPcm(parts)).toEqual(resample(source, from, to));
    }
  });
});

describe('levels and trimming', () => {
  it('measures RMS in dBFS, with -120 for silence', () => {
    expect(rmsDbfs(tone({ hz: 1000, sampleRate: 16000, ms: 100, amplitude: 32767 }))).toBeCloseTo(
      -3.01,
      1,
    );
    expect(rmsDbfs(tone({ hz: 1000, sampleRate: 16000, ms: 100, amplitude: 328 }))).toBeCloseTo(
      -43.0,
      0,
    );
    expect(rmsDbfs(new Int16Array(160))).toBe(-120);
    expect(rmsDbfs(new Int16Array(0))).toBe(-120);
  });

  it('trims leading and trailing near-silence, keeping a 10 ms margin', () => {
    const sound = tone({ hz: 500, sampleRate: 16000, ms: 200 });
    const hiss = tone({ hz: 3000, sampleRate: 16000, ms: 300, amplitude: 20 }); // ~-67 dBFS
    const padded = concatPcm([hiss, sound, silence(250, 16000)]);
    const trimmed = trimSilence(padded, 16000);
    expect(trimmed).toHaveLength(sound.length + 2 * 160);
    expect(trimmed.subarray(160, 160 + sound.length)).toEqual(sound);
    expect(trimSilence(silence(500, 16000), 16000)).toHaveLength(0);
    expect(trimSilence(hiss, 16000, -70)).toHaveLength(hiss.length);
  });
});
