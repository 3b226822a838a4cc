import { setImmediate as nextTurn } from 'node:timers/promises';
import { concatPcm, trimSilence } from '../audio/pcm.js';
import { Resampler } from '../audio/resample.js';
import type { SpokenAudio } from './system-voice.js';
import { SPEECH_SAMPLE_RATE } from './types.js';

/**
 * Input per resampling slice: a quarter second costs well under a millisecond, so live calls'
 * 20 ms frame pacing never waits behind a long utterance being converted (a 30 s paragraph in one
 * go holds the event loop for ~60 ms).
 */
const SLICE_SECONDS = 0.25;

/** The engine's audio at 16 kHz with its leading and trailing silence trimmed. */
export async function toSpeechRate(audio: SpokenAudio, signal?: AbortSignal): Promise<Int16Array> {
  const { pcm, sampleRate } = audio;
  if (sampleRate === SPEECH_SAMPLE_RATE) return trimSilence(pcm, sampleRate);
  const resampler = new Resampler(sampleRate, SPEECH_SAMPLE_RATE);
  const slice = Math.max(1, Math.round(sampleRate * SLICE_SECONDS));
  const parts: Int16Array[] = [];
  for (let at = 0; at < pcm.length; at += slice) {
    parts.push(resampler.push(pcm.subarray(at, at + slice)));
    await nextTurn();
    signal?.throwIfAborted();
  }
  parts.push(resampler.end());
  return trimSilence(concatPcm(parts), SPEECH_SAMPLE_RATE);
}
