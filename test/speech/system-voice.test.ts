import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { durationMs, rmsDbfs } from '../../src/audio/pcm.js';
import {
  createSpeech,
  SpeechError,
  type Speech,
  type VoiceChoice,
} from '../../src/speech/index.js';
import { tempDir } from '../helpers/server.js';

const noClouds = () => Promise.resolve({ openai: null, elevenlabs: null, stt: null });
const system = (speed: number | null = null, voiceId: string | null = null): VoiceChoice => ({
  engine: 'system',
  voiceId,
  speed,
});
const seconds = (pcm: Int16Array): number => durationMs(pcm.length, 16000) / 1000;

/** The espeak-ng processes this test process has started and that still run. */
const runningSynthesisers = (): number => {
  try {
    const out = execFileSync('ps', ['-o', 'comm=', '--ppid', String(process.pid)], {
      encoding: 'utf8',
    });
    return out.split('\n').filter((name) => name.trim() === 'espeak-ng').length;
  } catch {
    return 0; // ps exits 1 when the process has no children
  }
};

const SENTENCE = 'The quick brown fox jumps over the lazy dog near the river bank.';
const PARAGRAPH = [
  'Hello, I am calling about an order I placed last week.',
  'The order number is four five seven two nine.',
  'It was supposed to arrive on Monday, but nothing came.',
  'I checked the tracking page and it says the parcel is in transit.',
  'That status has not changed for five days now.',
  'I would like to know where the parcel actually is.',
  'If it is lost, please send a replacement as soon as possible.',
  'I also want to be sure I am not charged twice.',
  'My email address is the one on the account.',
  'Thank you for your help, and have a good day.',
].join(' ');

describe('system voice (espeak-ng)', () => {
  let speech: Speech | null = null;
  const open = (maxProcesses?: number): Speech =>
    (speech = createSpeech({ connections: noClouds, maxProcesses }));
  afterEach(async () => {
    await speech?.close();
    speech = null;
  });

  it('speaks a sentence as trimmed 16 kHz speech of a plausible length', async () => {
    const result = await open().synthesize(SENTENCE, system());
    expect(result.sampleRate).toBe(16000);
    expect(result.cached).toBe(false);
    expect(result.synthMs).toBeGreaterThan(0);
    // 13 words at 175 words a minute is about 4.5 s; espeak-ng runs a little fast.
    expect(seconds(result.pcm)).toBeGreaterThan(2.5);
    expect(seconds(result.pcm)).toBeLessThan(6);
    expect(rmsDbfs(result.pcm)).toBeGreaterThan(-40);
    // Trimmed: speech starts and ends within the first and last 30 ms.
    expect(rmsDbfs(result.pcm.subarray(0, 480))).toBeGreaterThan(-50);
    expect(rmsDbfs(result.pcm.subarray(result.pcm.length - 480))).toBeGreaterThan(-50);
  });

  it('answers a repeated line from its cache, as a private copy', async () => {
    const voices = open();
    const first = await voices.synthesize('Can you check my order?', system(null, 'en-us'));
    first.pcm.fill(0);
    const again = await voices.synthesize('Can you check my order?', system(null, 'en-us'));
    expect(again).toMatchObject({ cached: true, synthMs: 0, sampleRate: 16000 });
    expect(again.pcm.length).toBe(first.pcm.length);
    expect(rmsDbfs(again.pcm)).toBeGreaterThan(-40);
    const otherSpeed = await voices.synthesize('Can you check my order?', system(1.2, 'en-us'));
    expect(otherSpeed.cached).toBe(false);
  });

  it('speaks faster at speed 1.5 than at 1', async () => {
    const voices = open();
    const normal = await voices.synthesize(SENTENCE, system(1));
    const fast = await voices.synthesize(SENTENCE, system(1.5));
    expect(seconds(fast.pcm)).toBeLessThan(seconds(normal.pcm) * 0.8);
  });

  it('runs more lines than process slots, queued', async () => {
    const voices = open(1);
    const lines = ['One moment please.', 'I am still here.', 'Could you repeat that?'];
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, runningSynthesisers())), 5);
    const results = await Promise.all(lines.map((line) => voices.synthesize(line, system())));
    clearInterval(watch);
    for (const result of results) expect(result.pcm.length).toBeGreaterThan(8000);
    expect(most).toBeLessThanOrEqual(1);
  });

  it('kills the synthesiser when the caller aborts', async () => {
    const long = Array.from({ length: 200 }, (_, i) => `This is sentence ${i}.`).join(' ');
    const controller = new AbortController();
    const pending = open().synthesize(long, system(), controller.signal);
    pending.catch(() => undefined);
    const started = Date.now();
    while (runningSynthesisers() === 0 && Date.now() - started < 5000)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(runningSynthesisers()).toBe(1);
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(runningSynthesisers()).toBe(0);
  });

  it('kills running synthesisers on close', async () => {
    const long = Array.from({ length: 200 }, (_, i) => `This is sentence ${i}.`).join(' ');
    const voices = open();
    const pending = voices.synthesize(long, system());
    pending.catch(() => undefined);
    while (runningSynthesisers() === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await voices.close();
    await expect(pending).rejects.toThrow(/closed/);
    expect(runningSynthesisers()).toBe(0);
    await expect(voices.synthesize('Hello.', system())).rejects.toThrow(/closed/);
  });

  it('fails a line with what espeak-ng said about an unknown voice', async () => {
    const failed = open().synthesize('Hello there.', system(null, 'xx-nonexistent'));
    await expect(failed).rejects.toBeInstanceOf(SpeechError);
    await expect(failed).rejects.toThrow(/espeak-ng failed.*voice does not exist/);
  });

  it('reports the voice problems it can see before speaking', async () => {
    const voices = open();
    expect(await voices.voiceProblem(system())).toBeNull();
    expect(await voices.voiceProblem(system(1.3, 'en-gb+f3'))).toBeNull();
    expect(await voices.voiceProblem(system(null, 'xx-nonexistent'))).toMatch(
      /espeak-ng voice "xx-nonexistent" is not installed/,
    );
    expect(await voices.voiceProblem(system(3))).toMatch(/speed 3 is outside 0.5..2/);
    await expect(voices.synthesize('Hi.', system(3))).rejects.toThrow(/outside 0.5..2/);
    await expect(voices.synthesize('   ', system())).rejects.toThrow(/no text/);
  });

  it('says what to install when espeak-ng is missing', async () => {
    const path = process.env.PATH;
    process.env.PATH = tempDir();
    try {
      const voices = open();
      expect(await voices.voiceProblem(system())).toMatch(/apt-get install espeak-ng/);
      const failed = voices.synthesize('Hello there.', system());
      await expect(failed).rejects.toMatchObject({ engine: 'system' });
      await expect(failed).rejects.toThrow(/espeak-ng is not installed.*apt-get install espeak-ng/);
    } finally {
      process.env.PATH = path;
    }
  });

  it('speaks a ten-sentence paragraph faster than real time', async () => {
    const result = await open().synthesize(PARAGRAPH, system());
    const speechSeconds = seconds(result.pcm);
    const realTimeFactor = result.synthMs / 1000 / speechSeconds;
    console.log(
      `system voice real-time factor: ${realTimeFactor.toFixed(4)} ` +
        `(${result.synthMs.toFixed(0)} ms of synthesis for ${speechSeconds.toFixed(1)} s of speech)`,
    );
    expect(speechSeconds).toBeGreaterThan(20);
    expect(realTimeFactor).toBeLessThan(1);
  });
});
