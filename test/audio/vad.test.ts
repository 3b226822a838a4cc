import { describe, expect, it } from 'vitest';
import { concatPcm, samplesPerFrame, silence, trimSilence } from '../../src/audio/pcm.js';
import { SpeechDetector, type SpeechEvent } from '../../src/audio/vad.js';
import { espeakPcm, tone } from './signals.js';

const RATE = 16000;
/** What the tests count as "not silent": well under the detector's -42 dBFS, over TTS dither. */
const AUDIBLE = 32;

/** Feeds `pcm` in 20 ms frames, the first playing at `startMs`; collects every event. */
function detect(
  pcm: Int16Array,
  startMs: number,
  detector = new SpeechDetector(RATE),
): SpeechEvent[] {
  const frame = samplesPerFrame(RATE);
  const events: SpeechEvent[] = [];
  for (let i = 0; i < pcm.length; i += frame) {
    events.push(...detector.feed(pcm.subarray(i, i + frame), startMs + (i * 1000) / RATE));
  }
  return events;
}

const atMs = (sample: number, startMs: number): number => startMs + (sample * 1000) / RATE;

function firstAudible(pcm: Int16Array): number {
  return pcm.findIndex((x) => Math.abs(x) >= AUDIBLE);
}

function lastAudible(pcm: Int16Array): number {
  for (let i = pcm.length - 1; i >= 0; i--) if (Math.abs(pcm[i]!) >= AUDIBLE) return i;
  return -1;
}

describe('SpeechDetector', () => {
  it('dates the start of espeak-ng speech to its first sound and its end to where it stops', async () => {
    const speech = trimSilence(await espeakPcm('hello there, how are you today', RATE), RATE);
    const lead = Math.round(1.23456 * RATE); // deliberately off the 10 ms window grid
    const pcm = concatPcm([silence(0, RATE), new Int16Array(lead), speech, silence(1500, RATE)]);
    const streamStartMs = 5000;
    const events = detect(pcm, streamStartMs);
    expect(events.map((e) => e.type)).toEqual(['start', 'end']);
    const trueStart = atMs(lead + firstAudible(speech), streamStartMs);
    const trueEnd = atMs(lead + lastAudible(speech) + 1, streamStartMs);
    expect(Math.abs(events[0]!.atMs - trueStart)).toBeLessThanOrEqual(10);
    expect(Math.abs(events[1]!.atMs - trueEnd)).toBeLessThanOrEqual(25);
  });

  it('reports speaking while speech lasts and decides the end only after endMs of silence', async () => {
    const speech = trimSilence(await espeakPcm('good morning', RATE), RATE);
    const detector = new SpeechDetector(RATE, { endMs: 600 });
    const frame = samplesPerFrame(RATE);
    const pcm = concatPcm([silence(200, RATE), speech, silence(1000, RATE)]);
    let endDecidedAt = -1;
    let wasSpeaking = false;
    for (let i = 0; i < pcm.length; i += frame) {
      const events = detector.feed(pcm.subarray(i, i + frame), (i * 1000) / RATE);
      wasSpeaking ||= detector.speaking;
      const end = events.find((e) => e.type === 'end');
      if (end) endDecidedAt = ((i + frame) * 1000) / RATE - end.atMs;
    }
    expect(wasSpeaking).toBe(true);
    expect(detector.speaking).toBe(false);
    expect(endDecidedAt).toBeGreaterThanOrEqual(600);
    expect(endDecidedAt).toBeLessThan(600 + 30);
  });

  it('does not end speech at a 300 ms pause between words', async () => {
    const hello = trimSilence(await espeakPcm('hello', RATE), RATE);
    const world = trimSilence(await espeakPcm('world', RATE), RATE);
    const pcm = concatPcm([
      silence(500, RATE),
      hello,
      silence(300, RATE),
      world,
      silence(1200, RATE),
    ]);
    const events = detect(pcm, 0);
    expect(events.map((e) => e.type)).toEqual(['start', 'end']);
    const worldStartMs = 500 + (hello.length * 1000) / RATE + 300;
    const worldEnd = worldStartMs + ((lastAudible(world) + 1) * 1000) / RATE;
    expect(Math.abs(events[1]!.atMs - worldEnd)).toBeLessThanOrEqual(25);
  });

  it('never starts speech on short clicks', () => {
    const parts: Int16Array[] = [silence(300, RATE)];
    for (const clickMs of [2, 5, 20, 50, 90, 99]) {
      parts.push(tone({ hz: 1500, sampleRate: RATE, ms: clickMs, amplitude: 20000 }));
      parts.push(silence(400, RATE));
    }
    const detector = new SpeechDetector(RATE);
    expect(detect(concatPcm(parts), 0, detector)).toEqual([]);
    expect(detector.speaking).toBe(false);
  });

  it('locates the onset of a tone to the millisecond, at 8 kHz and with odd frame sizes', () => {
    const rate = 8000;
    const detector = new SpeechDetector(rate, { startMs: 100, endMs: 200 });
    const pcm = concatPcm([
      new Int16Array(1234),
      tone({ hz: 300, sampleRate: rate, ms: 400, amplitude: 3000 }),
      silence(500, rate),
    ]);
    const events: SpeechEvent[] = [];
    for (let i = 0; i < pcm.length; i += 77) {
      events.push(...detector.feed(pcm.subarray(i, i + 77), 100 + (i * 1000) / rate));
    }
    expect(events.map((e) => e.type)).toEqual(['start', 'end']);
    expect(Math.abs(events[0]!.atMs - (100 + 1234 / 8))).toBeLessThanOrEqual(1);
    expect(Math.abs(events[1]!.atMs - (100 + 1234 / 8 + 400))).toBeLessThanOrEqual(10);
  });

  it('ignores speech below the threshold', () => {
    const quiet = tone({ hz: 300, sampleRate: RATE, ms: 1000, amplitude: 100 }); // ~-53 dBFS
    expect(detect(quiet, 0)).toEqual([]);
    expect(detect(quiet, 0, new SpeechDetector(RATE, { thresholdDbfs: -60 }))).toHaveLength(1);
  });
});
