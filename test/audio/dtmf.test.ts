import { describe, expect, it } from 'vitest';
import { DTMF_PATTERN, dtmfFrequencies, dtmfTones } from '../../src/audio/dtmf.js';
import { LINE_PRESETS, LineSimulator } from '../../src/audio/line.js';
import { rmsDbfs, samplesPerFrame, silence, concatPcm } from '../../src/audio/pcm.js';
import { seededRandom } from '../../src/audio/seeded-random.js';
import { detectDtmf } from '../helpers/dtmf-detector.js';

/** The frames `line` hands over by `nowMs`, as the call's frame loop receives them. */
function dueFrom(line: LineSimulator, nowMs: number): Int16Array[] {
  const out: Int16Array[] = [];
  line.handOver(nowMs, (frame) => out.push(frame));
  return out;
}

const ALL_KEYS = '0123456789*#ABCD';

/** `pcm` through a line at `callRate`, frame by frame, as the call would push it. */
function throughLine(pcm: Int16Array, callRate: number): Int16Array {
  const line = new LineSimulator({ spec: LINE_PRESETS.phone, callRate, random: seededRandom(7) });
  const frame = samplesPerFrame(callRate);
  const out: Int16Array[] = [];
  for (let at = 0, index = 0; at < pcm.length; at += frame, index++) {
    const chunk = new Int16Array(frame);
    chunk.set(pcm.subarray(at, at + frame));
    line.push(chunk, index * 20);
    out.push(...dueFrom(line, index * 20));
  }
  return concatPcm(out);
}

describe('dtmfTones', () => {
  it('accepts the sixteen keys and nothing else', () => {
    expect(DTMF_PATTERN.test(ALL_KEYS)).toBe(true);
    for (const bad of ['', '12E', 'a', '1 2', '#-']) expect(DTMF_PATTERN.test(bad)).toBe(false);
    expect(() => dtmfTones('12x', 8000)).toThrow(/not a DTMF/);
    expect(dtmfFrequencies('5')).toEqual({ rowHz: 770, columnHz: 1336 });
    expect(dtmfFrequencies('D')).toEqual({ rowHz: 941, columnHz: 1633 });
  });

  it('lasts tone + gap per key at about -10 dBFS per tone pair, fading in and out', () => {
    const pcm = dtmfTones('5', 8000);
    expect(pcm.length).toBe(1600);
    expect(rmsDbfs(pcm.subarray(100, 700))).toBeCloseTo(-10, 0);
    expect(Math.abs(pcm[0]!)).toBeLessThan(50);
    expect(Math.abs(pcm[799]!)).toBeLessThan(500);
    expect(pcm.subarray(800).every((s) => s === 0)).toBe(true);
    expect(dtmfTones('11', 16000, { toneMs: 60, gapMs: 40 }).length).toBe(3200);
  });

  for (const sampleRate of [8000, 16000]) {
    it(`round-trips every key at ${sampleRate} Hz`, () => {
      expect(detectDtmf(dtmfTones(ALL_KEYS, sampleRate), sampleRate)).toBe(ALL_KEYS);
    });
  }

  it('tells repeated keys apart by their gap, and short tones still register', () => {
    expect(detectDtmf(dtmfTones('1100', 8000, { toneMs: 60, gapMs: 60 }), 8000)).toBe('1100');
  });

  it('hears nothing in silence', () => {
    expect(detectDtmf(silence(500, 8000), 8000)).toBe('');
  });

  for (const callRate of [8000, 16000]) {
    it(`survives a mu-law phone line at a ${callRate} Hz call`, () => {
      const sent = concatPcm([dtmfTones(ALL_KEYS, callRate), silence(100, callRate)]);
      expect(detectDtmf(throughLine(sent, callRate), callRate)).toBe(ALL_KEYS);
    });
  }
});
