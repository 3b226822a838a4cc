import { trimSilence } from '../audio/pcm.js';
import { resampleInSlices } from '../audio/pcm.js';
import type { SpokenAudio } from './system-voice.js';
import { SPEECH_SAMPLE_RATE } from './types.js';

/** The engine's audio at 16 kHz with its leading and trailing silence trimmed. */
export async function toSpeechRate(audio: SpokenAudio, signal?: AbortSignal): Promise<Int16Array> {
  const { pcm, sampleRate } = audio;
  const at16k = await resampleInSlices(pcm, sampleRate, SPEECH_SAMPLE_RATE, signal);
  return trimSilence(at16k, SPEECH_SAMPLE_RATE);
}
