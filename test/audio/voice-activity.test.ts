import { describe, expect, it } from 'vitest';
import { defaultNoiseDir, loadNoiseBed } from '../../src/audio/noise-beds.js';
import { concatPcm, samplesPerFrame, trimSilence } from '../../src/audio/pcm.js';
import type { SpeechEvent } from '../../src/audio/vad.js';
import {
  agentVoiceActivity,
  energyVoiceActivity,
  type VoiceActivityFactory,
} from '../../src/audio/voice-activity.js';
import { espeakPcm, tone } from './signals.js';

const TURNS = { startMs: 250, endMs: 700 };
/** What counts as "not silent" when finding the truth: under the -42 dBFS threshold, over dither. */
const AUDIBLE = 32;

/** Feeds `pcm` in 20 ms frames from 0 ms, waits for every judgement, and returns the events. */
async function detect(pcm: Int16Array, rate: number, factory: VoiceActivityFactory) {
  const events: SpeechEvent[] = [];
  const activity = factory(rate, (e) => events.push(e));
  const frame = samplesPerFrame(rate);
  for (let i = 0; i < pcm.length; i += frame)
    activity.push(pcm.subarray(i, i + frame), (i * 1000) / rate);
  await activity.settled();
  const report = activity.report();
  activity.close();
  return { events, report };
}

const ms = (samples: number, rate: number) => (samples * 1000) / rate;
const gap = (rate: number, msLong: number) => new Int16Array(Math.round((rate * msLong) / 1000));

/** Adds `bed` (looped) under `pcm`, scaled by `gain`. */
function withBed(pcm: Int16Array, bed: Int16Array, gain: number): Int16Array {
  const out = new Int16Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) {
    const x = pcm[i]! + gain * bed[i % bed.length]!;
    out[i] = Math.max(-32768, Math.min(32767, Math.round(x)));
  }
  return out;
}

function audibleSpan(pcm: Int16Array): [number, number] {
  const first = pcm.findIndex((x) => Math.abs(x) >= AUDIBLE);
  let last = pcm.length - 1;
  while (last > first && Math.abs(pcm[last]!) < AUDIBLE) last--;
  return [first, last + 1];
}

describe('agent voice activity (Silero VAD, dated by energy)', () => {
  for (const rate of [16000, 8000]) {
    it(`dates espeak-ng speech at ${rate} Hz as energy alone does, near its first sound`, async () => {
      const speech = trimSilence(await espeakPcm('thanks for calling, how can I help', rate), rate);
      const lead = Math.round(0.61234 * rate); // off both detectors' window grids
      const pcm = concatPcm([new Int16Array(lead), speech, gap(rate, 1500)]);
      const [first, last] = audibleSpan(speech);
      const energy = await detect(pcm, rate, energyVoiceActivity(TURNS));
      const { events, report } = await detect(pcm, rate, await agentVoiceActivity(TURNS));
      expect(report).toEqual({ detector: 'silero', reason: null });
      expect(events.map((e) => e.type)).toEqual(['start', 'end']);
      // Silero decides; the onset search dates: to the same sample as energy alone.
      expect(Math.abs(events[0]!.atMs - energy.events[0]!.atMs)).toBeLessThanOrEqual(1);
      expect(Math.abs(events[1]!.atMs - energy.events[1]!.atMs)).toBeLessThanOrEqual(35);
      expect(Math.abs(events[0]!.atMs - ms(lead + first, rate))).toBeLessThanOrEqual(20);
      expect(Math.abs(events[1]!.atMs - ms(lead + last, rate))).toBeLessThanOrEqual(35);
    });
  }

  it("ends turns under the agent's own background ambience, where energy never does", async () => {
    const rate = 16000;
    const bed = await loadNoiseBed(defaultNoiseDir(), 'office');
    const one = trimSilence(await espeakPcm('your order ships on monday', rate), rate);
    const two = trimSilence(await espeakPcm('is there anything else', rate), rate);
    const clean = concatPcm([gap(rate, 500), one, gap(rate, 1500), two, gap(rate, 1500)]);
    // The ambience sits well over the -42 dBFS threshold: about -30 dBFS RMS.
    let sumSq = 0;
    for (const x of bed) sumSq += x * x;
    const gain = (32768 * 10 ** (-30 / 20)) / Math.sqrt(sumSq / bed.length);
    const pcm = withBed(clean, bed, gain);

    const energy = await detect(pcm, rate, energyVoiceActivity(TURNS));
    expect(energy.events.filter((e) => e.type === 'end')).toEqual([]);

    const { events } = await detect(pcm, rate, await agentVoiceActivity(TURNS));
    expect(events.map((e) => e.type)).toEqual(['start', 'end', 'start', 'end']);
    const oneAt = ms(Math.round(0.5 * rate), rate);
    const twoAt = oneAt + ms(one.length, rate) + 1500;
    // Under the ambience the onset search meets noise: dated within Silero's lag, not to the sample.
    expect(Math.abs(events[0]!.atMs - oneAt)).toBeLessThanOrEqual(130);
    expect(Math.abs(events[2]!.atMs - twoAt)).toBeLessThanOrEqual(130);
    // Silero's probability falls a few windows after the words stop.
    expect(Math.abs(events[1]!.atMs - (oneAt + ms(one.length, rate)))).toBeLessThanOrEqual(200);
  });

  it('hears no speech in hold music or a beep, where energy hears a turn', async () => {
    const rate = 16000;
    const chord = tone({ hz: 440, sampleRate: rate, ms: 2500, amplitude: 4000 });
    const fifth = tone({ hz: 660, sampleRate: rate, ms: 2500, amplitude: 3000 });
    const music = chord.map((x, i) => x + fifth[i]!);
    const pcm = concatPcm([gap(rate, 300), music, gap(rate, 1000)]);
    expect((await detect(pcm, rate, energyVoiceActivity(TURNS))).events).toHaveLength(2);
    expect((await detect(pcm, rate, await agentVoiceActivity(TURNS))).events).toEqual([]);
  });

  it('says why energy decided at a rate Silero does not hear', async () => {
    const rate = 24000;
    const speech = await espeakPcm('hello there', rate);
    const { events, report } = await detect(
      concatPcm([gap(rate, 200), speech, gap(rate, 1000)]),
      rate,
      await agentVoiceActivity(TURNS),
    );
    expect(report.detector).toBe('energy');
    expect(report.reason).toMatch(/8 and 16 kHz.*24000 Hz/);
    expect(events.map((e) => e.type)).toEqual(['start', 'end']);
  });

  it('judges calls side by side (one model run) exactly as each alone', async () => {
    const factory = await agentVoiceActivity(TURNS);
    const lines = ['one moment please', 'your balance is forty two dollars', 'goodbye now'];
    const calls = await Promise.all(
      [16000, 16000, 16000, 8000].map(async (rate, i) => {
        const speech = trimSilence(await espeakPcm(lines[i % lines.length]!, rate), rate);
        return { rate, pcm: concatPcm([gap(rate, 300 + 70 * i), speech, gap(rate, 1200)]) };
      }),
    );
    const alone = [];
    for (const c of calls) alone.push((await detect(c.pcm, c.rate, factory)).events);
    const together = await Promise.all(calls.map((c) => detect(c.pcm, c.rate, factory)));
    expect(together.map((t) => t.events)).toEqual(alone);
    for (const events of alone) expect(events.map((e) => e.type)).toEqual(['start', 'end']);
  });
});
