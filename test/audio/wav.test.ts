import { describe, expect, it } from 'vitest';
import { bytesFromPcm, pcmFromBytes, rmsDbfs } from '../../src/audio/pcm.js';
import { encodeWav, parseWav, StereoRecording } from '../../src/audio/wav.js';
import { espeakWav, tone } from './signals.js';

/** A hand-built RIFF file: `chunks` as [id, body] after the RIFF/WAVE header. */
function riff(chunks: [string, Buffer][], riffSize?: number): Buffer {
  const parts = chunks.map(([id, body]) => {
    const header = Buffer.alloc(8);
    header.write(id, 0, 'ascii');
    header.writeUInt32LE(body.length, 4);
    return Buffer.concat([header, body, Buffer.alloc(body.length % 2)]);
  });
  const head = Buffer.alloc(12);
  head.write('RIFF', 0, 'ascii');
  head.writeUInt32LE(riffSize ?? 4 + parts.reduce((n, p) => n + p.length, 0), 4);
  head.write('WAVE', 8, 'ascii');
  return Buffer.concat([head, ...parts]);
}

function fmt(opts: { tag: number; channels: number; rate: number; bits?: number }): Buffer {
  const bits = opts.bits ?? 16;
  const body = Buffer.alloc(opts.tag === 0xfffe ? 40 : 16);
  body.writeUInt16LE(opts.tag, 0);
  body.writeUInt16LE(opts.channels, 2);
  body.writeUInt32LE(opts.rate, 4);
  body.writeUInt32LE((opts.rate * opts.channels * bits) / 8, 8);
  body.writeUInt16LE((opts.channels * bits) / 8, 12);
  body.writeUInt16LE(bits, 14);
  if (opts.tag === 0xfffe) {
    body.writeUInt16LE(22, 16);
    body.writeUInt16LE(bits, 18);
    body.writeUInt32LE(3, 20);
    Buffer.from('01000000000010008000' + '00aa00389b71', 'hex').copy(body, 24);
  }
  return body;
}

describe('parseWav', () => {
  it('reads what espeak-ng writes to a pipe (streamed sizes)', async () => {
    const bytes = await espeakWav('hello');
    expect(bytes.readUInt32LE(40)).not.toBe(bytes.length - 44); // the header lies about the size
    const wav = parseWav(bytes);
    expect(wav.channels).toBe(1);
    expect(wav.sampleRate).toBe(22050);
    expect(wav.pcm).toHaveLength((bytes.length - 44) / 2);
    expect(wav.pcm.length / wav.sampleRate).toBeGreaterThan(0.3);
    expect(rmsDbfs(wav.pcm)).toBeGreaterThan(-40);
  });

  it('reads back what encodeWav writes, mono and stereo (mixed down)', () => {
    const mono = tone({ hz: 440, sampleRate: 8000, ms: 50 });
    expect(parseWav(encodeWav({ sampleRate: 8000, channels: 1, samples: mono }))).toEqual({
      sampleRate: 8000,
      channels: 1,
      pcm: mono,
    });
    const stereo = new Int16Array([100, 300, -32768, -32768, 32767, 32767, 5, -5]);
    const parsed = parseWav(encodeWav({ sampleRate: 16000, channels: 2, samples: stereo }));
    expect(parsed.channels).toBe(2);
    expect([...parsed.pcm]).toEqual([200, -32768, 32767, 0]);
  });

  it('takes the rest of the file for a data size of 0 or 0xFFFFFFFF', () => {
    const pcm = bytesFromPcm(new Int16Array([1, 2, 3]));
    for (const size of [0, 0xffffffff]) {
      const bytes = riff([
        ['fmt ', fmt({ tag: 1, channels: 1, rate: 8000 })],
        ['data', pcm],
      ]);
      bytes.writeUInt32LE(size, bytes.length - pcm.length - 4);
      expect([...parseWav(bytes).pcm]).toEqual([1, 2, 3]);
    }
  });

  it('skips unknown chunks (odd-sized ones padded) and reads WAVE_FORMAT_EXTENSIBLE PCM', () => {
    const bytes = riff([
      ['LIST', Buffer.from('INFOISFT\x03\x00\x00\x00ab\x00', 'latin1')],
      ['fmt ', fmt({ tag: 0xfffe, channels: 2, rate: 48000 })],
      ['fact', Buffer.alloc(4)],
      ['data', bytesFromPcm(new Int16Array([10, 20, 30, 40]))],
    ]);
    expect(parseWav(bytes)).toEqual({
      sampleRate: 48000,
      channels: 2,
      pcm: new Int16Array([15, 35]),
    });
  });

  it('says clearly what it cannot read', () => {
    const data: [string, Buffer] = ['data', Buffer.alloc(4)];
    expect(() => parseWav(Buffer.from('RIFF'))).toThrow(/Not a WAV file/);
    expect(() => parseWav(Buffer.from('RIFX\0\0\0\0WAVEfmt '))).toThrow(/RIFF\/WAVE header/);
    expect(() =>
      parseWav(riff([['fmt ', fmt({ tag: 3, channels: 1, rate: 8000, bits: 32 })], data])),
    ).toThrow(/format 3 is not supported/);
    expect(() =>
      parseWav(riff([['fmt ', fmt({ tag: 1, channels: 1, rate: 8000, bits: 8 })], data])),
    ).toThrow(/8-bit samples/);
    expect(() => parseWav(riff([data]))).toThrow(/data chunk comes before its fmt chunk/);
    expect(() => parseWav(riff([['fmt ', fmt({ tag: 1, channels: 1, rate: 8000 })]]))).toThrow(
      /no data chunk/,
    );
  });
});

describe('StereoRecording', () => {
  const frames = (wav: Buffer): Int16Array => pcmFromBytes(wav.subarray(44));

  it('places each side at its time, agent left and caller right, mixing overlaps', () => {
    const recording = new StereoRecording({ sampleRate: 1000, maxMs: 60_000 });
    recording.put('agent', 2, new Int16Array([1, 2, 3]));
    recording.put('caller', 3, new Int16Array([7, 8]));
    recording.put('agent', 3, new Int16Array([10, 32767]));
    expect(recording.durationMs()).toBe(5);
    const wav = recording.toWav();
    expect(parseWav(wav)).toMatchObject({ sampleRate: 1000, channels: 2 });
    expect([...frames(wav)]).toEqual([0, 0, 0, 0, 1, 0, 12, 7, 32767, 8]);
  });

  it('stays within maxMs and allocates only the seconds it recorded', () => {
    const recording = new StereoRecording({ sampleRate: 16000, maxMs: 10_000 });
    recording.put('caller', 1500, new Int16Array(16000).fill(5));
    expect(recording.allocatedBytes()).toBe(2 * 16000 * 4); // seconds 1 and 2, not 0
    recording.put('agent', 9_900, new Int16Array(16000).fill(9)); // 100 ms fit
    recording.put('agent', 60_000, new Int16Array(16000).fill(9)); // all past the end
    expect(recording.durationMs()).toBe(10_000);
    expect(recording.allocatedBytes()).toBe(3 * 16000 * 4);
    const samples = frames(recording.toWav());
    expect(samples).toHaveLength(10 * 16000 * 2);
    expect(samples[2 * (1500 * 16) + 1]).toBe(5);
    expect(samples[2 * (1500 * 16)]).toBe(0);
    expect(samples[samples.length - 2]).toBe(9);
  });

  it('records nothing before time zero and reports an empty recording as 0 ms', () => {
    const recording = new StereoRecording({ sampleRate: 8000, maxMs: 1000 });
    expect(recording.durationMs()).toBe(0);
    expect(parseWav(recording.toWav()).pcm).toHaveLength(0);
    recording.put('agent', -1, new Int16Array([4, 4, 4, 4, 4, 4, 4, 4, 4, 4]));
    expect(recording.durationMs()).toBe(0.25);
    expect([...frames(recording.toWav())]).toEqual([4, 0, 4, 0]);
  });
});
