import { z } from 'zod';
import { encodeWav } from '../audio/wav.js';
import { DEFAULT_VOICE, PersonaVoice } from '../domain/audio.js';
import { SPEECH_SAMPLE_RATE, type Speech, type VoiceChoice } from '../speech/index.js';
import { defineOperation } from './types.js';

/**
 * Settings → Speech: "Test voice" and "Test speech-to-text", like the model roles' "Test
 * connection": one real try with the stored settings, answered in words, never an error status
 * for a failure of the engine tried (the answer says what happened).
 */

/** What a tester hears from "Test voice". */
export const VOICE_TEST_SENTENCE = 'Hello, this is the voice your simulated callers speak with.';
/** What "Test speech-to-text" says with the system voice and expects to read back. */
export const STT_TEST_SENTENCE = 'Please check the status of my order.';

const VoiceTestSchema = z.object({
  ok: z.boolean(),
  latencyMs: z.number().int().describe('Wall time of the synthesis (0 ms when it was cached)'),
  durationMs: z.number().int().describe('Length of the speech made'),
  message: z.string().describe('What was spoken and by which engine, or why not'),
  audio: z
    .string()
    .nullable()
    .describe('The speech as a data:audio/wav;base64 URL, to play; null when none was made'),
});

const SttTestSchema = z.object({
  ok: z.boolean(),
  latencyMs: z.number().int().describe('Wall time of the transcription'),
  expected: z.string().describe('The sentence spoken (by the system voice)'),
  heard: z
    .string()
    .nullable()
    .describe('What the speech-to-text engine wrote; null when it failed'),
  message: z.string().describe('What was heard, or why nothing was'),
});

const durationOf = (pcm: Int16Array, rate: number) => Math.round((pcm.length * 1000) / rate);

const wavDataUrl = (pcm: Int16Array, sampleRate: number) =>
  `data:audio/wav;base64,${encodeWav({ sampleRate, channels: 1, samples: pcm }).toString('base64')}`;

const failure = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Words only, lower case: how an engine's punctuation and capitals are compared. */
const words = (text: string) => text.toLowerCase().match(/[a-z0-9']+/g) ?? [];

/** Share of the expected words the engine wrote: 1 when every one was heard. */
export function wordsHeard(expected: string, heard: string): number {
  const got = new Set(words(heard));
  const want = words(expected);
  return want.length ? want.filter((w) => got.has(w)).length / want.length : 1;
}

async function testVoice(speech: Speech, voice: VoiceChoice) {
  const problem = await speech.voiceProblem(voice);
  if (problem) return { ok: false, latencyMs: 0, durationMs: 0, message: problem, audio: null };
  const started = Date.now();
  try {
    const made = await speech.synthesize(VOICE_TEST_SENTENCE, voice);
    const durationMs = durationOf(made.pcm, made.sampleRate);
    return {
      ok: true,
      latencyMs: made.cached ? 0 : Date.now() - started,
      durationMs,
      message: `The ${voice.engine} voice spoke ${(durationMs / 1000).toFixed(1)} s${made.cached ? ' (from the cache)' : ''}`,
      audio: wavDataUrl(made.pcm, made.sampleRate),
    };
  } catch (err) {
    return {
      ok: false,
      latencyMs: Date.now() - started,
      durationMs: 0,
      message: failure(err),
      audio: null,
    };
  }
}

async function testSpeechToText(speech: Speech) {
  const base = { expected: STT_TEST_SENTENCE, heard: null, latencyMs: 0 };
  if (!(await speech.canTranscribe()))
    return {
      ...base,
      ok: false,
      message:
        'No speech-to-text is configured: fill Speech-to-text (base URL, model and API key) and save',
    };
  let spoken;
  try {
    spoken = await speech.synthesize(STT_TEST_SENTENCE, DEFAULT_VOICE);
  } catch (err) {
    return {
      ...base,
      ok: false,
      message: `The system voice could not say the test sentence: ${failure(err)}`,
    };
  }
  const started = Date.now();
  try {
    const heard = (await speech.transcribe(spoken.pcm, SPEECH_SAMPLE_RATE)).trim();
    const share = wordsHeard(STT_TEST_SENTENCE, heard);
    const message = heard
      ? `Heard "${heard}" (${Math.round(share * 100)}% of the words said)`
      : 'The engine answered, but heard no words';
    return { ...base, ok: heard !== '', heard, latencyMs: Date.now() - started, message };
  } catch (err) {
    return { ...base, ok: false, latencyMs: Date.now() - started, message: failure(err) };
  }
}

export const speechTestOperations = [
  defineOperation({
    name: 'settings.testVoice',
    summary:
      'Say a short sentence with a voice (default: the system voice) and answer how long it took, its length and the audio',
    http: { method: 'POST', path: '/v1/settings/speech/test-voice' },
    body: {
      voice: PersonaVoice.optional().describe('The voice to try; absent: the system voice'),
    },
    output: VoiceTestSchema,
    async handler({ voice }, ctx) {
      return testVoice(ctx.speech, voice ?? DEFAULT_VOICE);
    },
  }),
  defineOperation({
    name: 'settings.testSpeechToText',
    summary:
      'Say a known sentence with the system voice and transcribe it with the configured speech-to-text; answers what it heard',
    http: { method: 'POST', path: '/v1/settings/speech/test-stt' },
    output: SttTestSchema,
    async handler(_input, ctx) {
      return testSpeechToText(ctx.speech);
    },
  }),
];
