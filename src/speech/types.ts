import { VOICE_ENGINES, type PersonaVoice } from '../domain/audio.js';

/** The engines a persona's voice can speak through (one list, in the domain's persona voice). */
export const SPEECH_ENGINES = VOICE_ENGINES;
export type SpeechEngineName = (typeof SPEECH_ENGINES)[number];

/**
 * A persona's voice, as the domain defines it, with the pitch its delivery asks for (1 is the
 * voice's own; engines without a pitch control ignore it).
 */
export type VoiceChoice = PersonaVoice & { pitch?: number };

/** Where one cloud engine is reached. */
export interface SpeechConnection {
  baseUrl: string;
  apiKey: string;
  model: string;
}

/** Cloud engines' connections, from settings (keys already decrypted by the caller). */
export interface SpeechConnections {
  /** OpenAI-compatible `/audio/speech`; baseUrl like https://api.openai.com/v1. */
  openai: SpeechConnection | null;
  /** ElevenLabs text-to-speech; baseUrl like https://api.elevenlabs.io. */
  elevenlabs: SpeechConnection | null;
  /** OpenAI-compatible `/audio/transcriptions`; baseUrl like https://api.openai.com/v1. */
  stt: SpeechConnection | null;
}

/** The rate every engine's speech is delivered at. */
export const SPEECH_SAMPLE_RATE = 16000;

export interface Synthesized {
  /** Mono PCM16 at `sampleRate`, silence trimmed at both ends. Shared with no one: safe to modify. */
  pcm: Int16Array;
  /** Always 16000. */
  sampleRate: number;
  /** Wall time the call took (queueing included); 0 on a cache hit. */
  synthMs: number;
  cached: boolean;
}

/** A speech engine failed; the message says which engine and what it answered (never a key). */
export class SpeechError extends Error {
  constructor(
    readonly engine: string,
    message: string,
  ) {
    super(message);
    this.name = 'SpeechError';
  }
}
