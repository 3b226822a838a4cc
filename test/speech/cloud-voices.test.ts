import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeSpeechLevel } from '../../src/audio/noise-mixer.js';
import { durationMs, resample, rmsDbfs } from '../../src/audio/pcm.js';
import {
  createSpeech,
  SpeechError,
  type Speech,
  type SpeechConnections,
} from '../../src/speech/index.js';
import { startFakeSpeech, type FakeSpeech } from '../helpers/fake-speech.js';

const KEY = 'sk-fake-speech-secret-4242';
const LINE = 'Hello, I would like to check the status of my order please.';
const seconds = (pcm: Int16Array): number => durationMs(pcm.length, 16000) / 1000;

let fake: FakeSpeech;
beforeAll(async () => {
  fake = await startFakeSpeech({ key: KEY });
});
afterAll(() => fake.stop());

const connections = (apiKey = KEY): SpeechConnections => ({
  openai: { baseUrl: `${fake.url}/v1`, apiKey, model: 'tts-1' },
  elevenlabs: { baseUrl: fake.url, apiKey, model: 'eleven_flash_v2_5' },
  stt: { baseUrl: `${fake.url}/v1`, apiKey, model: 'whisper-1' },
});

/** A Speech on `settings`, closed when the test's body ends. */
async function using<T>(
  settings: SpeechConnections,
  body: (speech: Speech) => Promise<T>,
): Promise<T> {
  const speech = createSpeech({ connections: () => Promise.resolve(settings) });
  try {
    return await body(speech);
  } finally {
    await speech.close();
  }
}

const requestsSince = (count: number) => fake.requests.slice(count);

describe('openai speech', () => {
  it('asks for raw PCM and resamples the 24 kHz answer to 16 kHz', () =>
    using(connections(), async (speech) => {
      const before = fake.requests.length;
      const result = await speech.synthesize(LINE, {
        engine: 'openai',
        voiceId: null,
        speed: 1.25,
      });
      expect(requestsSince(before)).toEqual([
        {
          path: '/v1/audio/speech',
          body: {
            model: 'tts-1',
            voice: 'alloy',
            input: LINE,
            response_format: 'pcm',
            speed: 1.25,
          },
        },
      ]);
      expect(result).toMatchObject({ sampleRate: 16000, cached: false });
      // The same words through the system voice at the same speed last as long: a 24 kHz answer
      // read at the wrong rate would be 1.5 times longer.
      const system = await speech.synthesize(LINE, {
        engine: 'system',
        voiceId: null,
        speed: 1.25,
      });
      expect(seconds(result.pcm)).toBeGreaterThan(seconds(system.pcm) * 0.95);
      expect(seconds(result.pcm)).toBeLessThan(seconds(system.pcm) * 1.05);
      expect(rmsDbfs(result.pcm.subarray(0, 480))).toBeGreaterThan(-50);
    }));

  it('synthesises a line once however many ask for it at once', () =>
    using(connections(), async (speech) => {
      const before = fake.requests.length;
      const voice = { engine: 'openai', voiceId: 'nova', speed: null } as const;
      const [a, b] = await Promise.all([
        speech.synthesize('Just one request, please.', voice),
        speech.synthesize('Just one request, please.', voice),
      ]);
      expect(requestsSince(before)).toHaveLength(1);
      expect(a.pcm).toEqual(b.pcm);
      expect(a.pcm).not.toBe(b.pcm);
      expect((await speech.synthesize('Just one request, please.', voice)).cached).toBe(true);
    }));

  it('makes a caller line at the call rate and level once, each call its own copy', () =>
    using(connections(), async (speech) => {
      const before = fake.requests.length;
      const voice = { engine: 'openai', voiceId: 'echo', speed: null } as const;
      const text = 'Calls say the same line many times.';
      const lines = await Promise.all(
        [1, 2, 3].map(() => speech.synthesizeForCall(text, voice, 8000)),
      );
      expect(requestsSince(before)).toHaveLength(1);
      const base = await speech.synthesize(text, voice);
      expect(base.cached).toBe(true);
      const expected = normalizeSpeechLevel(resample(base.pcm, 16000, 8000));
      for (const pcm of lines) expect(pcm).toEqual(expected);
      lines[0]!.fill(0); // a call's copy is its own
      expect(await speech.synthesizeForCall(text, voice, 8000)).toEqual(expected);
      expect(requestsSince(before)).toHaveLength(1);
      // Another rate is another line.
      expect((await speech.synthesizeForCall(text, voice, 16000)).length).toBe(base.pcm.length);
    }));

  it('turns a rejected key into an error naming the engine, never the key', () =>
    using(connections('sk-wrong-secret-9999'), async (speech) => {
      const failed = speech.synthesize(LINE, { engine: 'openai', voiceId: null, speed: null });
      await expect(failed).rejects.toBeInstanceOf(SpeechError);
      const err = (await failed.catch((e: unknown) => e)) as SpeechError;
      expect(err.engine).toBe('openai');
      expect(err.message).toBe('openai answered 401: Incorrect API key provided');
      expect(err.message).not.toContain('sk-wrong');
    }));

  it("quotes the provider's own message for other failures", () =>
    using(connections(), async (speech) => {
      fake.failNext(503, 'The engine is currently overloaded');
      await expect(
        speech.synthesize('A line nobody has asked for yet.', {
          engine: 'openai',
          voiceId: null,
          speed: null,
        }),
      ).rejects.toThrow('openai answered 503: The engine is currently overloaded');
    }));

  it('gives up on the request when the caller aborts', () =>
    using(connections(), async (speech) => {
      const controller = new AbortController();
      const voice = { engine: 'openai', voiceId: 'echo', speed: null } as const;
      const pending = speech.synthesize('A line to abandon.', voice, controller.signal);
      controller.abort();
      await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
      // Nothing half-done was cached: the next ask goes to the server.
      expect((await speech.synthesize('A line to abandon.', voice)).cached).toBe(false);
    }));

  it('says the server cannot be reached', () =>
    using(
      { ...connections(), openai: { baseUrl: 'http://127.0.0.1:1/v1', apiKey: KEY, model: 'm' } },
      async (speech) => {
        await expect(
          speech.synthesize(LINE, { engine: 'openai', voiceId: null, speed: null }),
        ).rejects.toThrow(/openai request failed: .*ECONNREFUSED/);
      },
    ));
});

describe('elevenlabs speech', () => {
  it('asks for 16 kHz PCM with the voice in the path and the key in xi-api-key', () =>
    using(connections(), async (speech) => {
      const before = fake.requests.length;
      const voice = { engine: 'elevenlabs', voiceId: 'JBFqnCBsd6RMkjVDRZzb', speed: 1.1 } as const;
      const result = await speech.synthesize(LINE, voice);
      expect(requestsSince(before)).toEqual([
        {
          path: '/v1/text-to-speech/JBFqnCBsd6RMkjVDRZzb?output_format=pcm_16000',
          body: { text: LINE, model_id: 'eleven_flash_v2_5', voice_settings: { speed: 1.1 } },
        },
      ]);
      const system = await speech.synthesize(LINE, { engine: 'system', voiceId: null, speed: 1.1 });
      expect(result.sampleRate).toBe(16000);
      expect(seconds(result.pcm)).toBeGreaterThan(seconds(system.pcm) * 0.95);
      expect(seconds(result.pcm)).toBeLessThan(seconds(system.pcm) * 1.05);
    }));

  it('turns a rejected key into an error naming the engine, never the key', () =>
    using(connections('sk-wrong-secret-9999'), async (speech) => {
      const failed = speech.synthesize(LINE, { engine: 'elevenlabs', voiceId: 'v1', speed: null });
      const err = (await failed.catch((e: unknown) => e)) as SpeechError;
      expect(err).toBeInstanceOf(SpeechError);
      expect(err.engine).toBe('elevenlabs');
      expect(err.message).toBe('elevenlabs answered 401: Invalid API key');
      expect(err.message).not.toContain('sk-wrong');
    }));
});

describe('speech to text', () => {
  it('sends the audio as a WAV file part and returns the text', () =>
    using(connections(), async (speech) => {
      const spoken = await speech.synthesize('I need help with my order.', {
        engine: 'system',
        voiceId: null,
        speed: null,
      });
      fake.transcripts.push('I need help with my order.');
      const before = fake.requests.length;
      expect(await speech.canTranscribe()).toBe(true);
      expect(await speech.transcribe(spoken.pcm, 16000)).toBe('I need help with my order.');
      expect(requestsSince(before)).toEqual([
        {
          path: '/v1/audio/transcriptions',
          body: {
            fields: { model: 'whisper-1', response_format: 'json' },
            file: {
              filename: 'speech.wav',
              contentType: 'audio/wav',
              sampleRate: 16000,
              samples: spoken.pcm.length,
            },
          },
        },
      ]);
      // Nothing queued: the fake hears nothing, as a real engine does on silence.
      expect(await speech.transcribe(new Int16Array(800).fill(3), 8000)).toBe('');
    }));

  it('refuses to transcribe without an STT engine, naming the setting', () =>
    using({ ...connections(), stt: null }, async (speech) => {
      expect(await speech.canTranscribe()).toBe(false);
      await expect(speech.transcribe(new Int16Array(1600), 16000)).rejects.toThrow(
        /settings\.speech\.stt/,
      );
    }));
});

describe('voice problems', () => {
  it('names the engine and the setting a cloud voice is missing', () =>
    using({ openai: null, elevenlabs: null, stt: null }, async (speech) => {
      const openai = await speech.voiceProblem({ engine: 'openai', voiceId: 'alloy', speed: 1 });
      expect(openai).toMatch(/openai/);
      expect(openai).toMatch(/settings\.speech\.openai/);
      const eleven = await speech.voiceProblem({ engine: 'elevenlabs', voiceId: 'v', speed: 1 });
      expect(eleven).toMatch(/elevenlabs/);
      expect(eleven).toMatch(/settings\.speech\.elevenlabs/);
      await expect(
        speech.synthesize(LINE, { engine: 'elevenlabs', voiceId: 'v', speed: null }),
      ).rejects.toMatchObject({
        engine: 'elevenlabs',
        message: expect.stringMatching(/settings\.speech\.elevenlabs/),
      });
    }));

  it('finds nothing wrong with a configured cloud voice, but wants an ElevenLabs voice id', () =>
    using(connections(), async (speech) => {
      expect(
        await speech.voiceProblem({ engine: 'openai', voiceId: null, speed: null }),
      ).toBeNull();
      expect(
        await speech.voiceProblem({ engine: 'elevenlabs', voiceId: 'v', speed: 2 }),
      ).toBeNull();
      expect(await speech.voiceProblem({ engine: 'elevenlabs', voiceId: null, speed: 1 })).toMatch(
        /elevenlabs voice needs a voiceId/,
      );
    }));
});
