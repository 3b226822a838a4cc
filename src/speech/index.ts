import { availableParallelism } from 'node:os';
import { VOICE_SPEEDS } from '../domain/audio.js';
import { ChildProcesses } from './child-processes.js';
import { createPcmCache } from './pcm-cache.js';
import { createSlots } from './slots.js';
import { Synthesis, type Line } from './synthesis.js';
import { systemVoiceProblem } from './system-voice-check.js';
import { transcribeWithOpenAI } from './transcribe.js';
import {
  SPEECH_ENGINES,
  SpeechError,
  type SpeechConnection,
  type SpeechConnections,
  type Synthesized,
  type VoiceChoice,
} from './types.js';

export * from './types.js';

export interface SpeechOptions {
  /** Read on every use, so a settings change applies to the next line spoken. */
  connections: () => Promise<SpeechConnections>;
  /** The synthesised-speech cache's budget; 64 MiB (about 35 minutes of speech) by default. */
  cacheBytes?: number;
  /** System-voice processes at once; the core count by default. */
  maxProcesses?: number;
}

export interface Speech {
  /**
   * 16 kHz mono PCM16 of `text` in `voice`, leading/trailing silence trimmed; cached by
   * engine+voice+speed+text (LRU by bytes). Never blocks the event loop (child process or HTTP).
   */
  synthesize(text: string, voice: VoiceChoice, signal?: AbortSignal): Promise<Synthesized>;
  /**
   * `text` as a simulated caller says it: at `rate`, and at one speech level (so the noise under
   * it sits at the persona's SNR, see normalizeSpeechLevel); cached by voice, text and rate.
   */
  synthesizeForCall(
    text: string,
    voice: VoiceChoice,
    rate: number,
    signal?: AbortSignal,
  ): Promise<Int16Array>;
  /** Text of `pcm` (at sampleRate) through the configured STT engine. */
  transcribe(pcm: Int16Array, sampleRate: number, signal?: AbortSignal): Promise<string>;
  /**
   * Why this voice cannot be used now (engine without key, system voice unavailable on this OS),
   * or null. Fast; a system voice found working is remembered.
   */
  voiceProblem(voice: VoiceChoice): Promise<string | null>;
  /** Whether an STT engine is configured. */
  canTranscribe(): Promise<boolean>;
  /** Kills running child processes and fails whatever is still waiting. */
  close(): Promise<void>;
}

const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;

type CloudService = 'openai' | 'elevenlabs' | 'stt';

const usable = (connection: SpeechConnection | null): connection is SpeechConnection =>
  connection !== null && connection.baseUrl.trim() !== '' && connection.apiKey !== '';

const noConnection = (service: CloudService): string =>
  `the ${service} speech engine has no connection: fill settings.speech.${service} (base URL, API key and model)`;

/** Problems with the choice itself, before any engine is asked. */
function choiceProblem(voice: VoiceChoice): string | null {
  if (!SPEECH_ENGINES.includes(voice.engine))
    return `unknown speech engine "${String(voice.engine)}": use one of ${SPEECH_ENGINES.join(', ')}`;
  const { speed } = voice;
  const { min, max } = VOICE_SPEEDS;
  if (speed !== null && !(Number.isFinite(speed) && speed >= min && speed <= max))
    return `voice speed ${speed} is outside ${min}..${max}`;
  if (voice.engine === 'elevenlabs' && !voice.voiceId)
    return 'an elevenlabs voice needs a voiceId (the ElevenLabs voice id)';
  return null;
}

export function createSpeech(options: SpeechOptions): Speech {
  const platform = process.platform;
  const processes = new ChildProcesses();
  const slots = createSlots(options.maxProcesses ?? availableParallelism());
  const cache = createPcmCache(options.cacheBytes ?? DEFAULT_CACHE_BYTES);
  // Only a system voice that works is remembered: one installed later is found on the next check.
  const workingSystemVoices = new Set<string>();
  let closed = false;

  const connectionFor = async (engine: 'openai' | 'elevenlabs'): Promise<SpeechConnection> => {
    const connection = (await options.connections())[engine];
    if (!usable(connection)) throw new SpeechError(engine, noConnection(engine));
    return connection;
  };
  const synthesis = new Synthesis({ processes, slots, platform, cache, connectionFor });

  const systemProblem = async (voiceId: string | null): Promise<string | null> => {
    if (workingSystemVoices.has(voiceId ?? '')) return null;
    const problem = await systemVoiceProblem(voiceId, { processes, platform });
    if (problem === null) workingSystemVoices.add(voiceId ?? '');
    return problem;
  };

  /** The line to speak, its voice checked and settled; throws what is wrong with the request. */
  const lineOf = (text: string, voice: VoiceChoice): Line => {
    const problem = choiceProblem(voice);
    if (problem) throw new SpeechError(String(voice.engine), problem);
    if (text.trim() === '') throw new SpeechError(voice.engine, 'there is no text to speak');
    if (closed) throw new SpeechError(voice.engine, 'speech has been closed');
    const speed = voice.speed ?? 1;
    const pitch = voice.pitch ?? 1;
    return { engine: voice.engine, text, voiceId: voice.voiceId, speed, pitch };
  };

  return {
    async synthesize(text, voice, signal) {
      return synthesis.speak(lineOf(text, voice), signal);
    },
    async synthesizeForCall(text, voice, rate, signal) {
      return synthesis.speakForCall(lineOf(text, voice), rate, signal);
    },
    async transcribe(pcm, sampleRate, signal) {
      const { stt } = await options.connections();
      if (!usable(stt)) throw new SpeechError('stt', noConnection('stt'));
      if (pcm.length === 0) return '';
      return transcribeWithOpenAI({ pcm, sampleRate }, stt, signal);
    },
    async voiceProblem(voice) {
      const problem = choiceProblem(voice);
      if (problem) return problem;
      if (voice.engine === 'system') return systemProblem(voice.voiceId);
      return usable((await options.connections())[voice.engine])
        ? null
        : noConnection(voice.engine);
    },
    async canTranscribe() {
      return usable((await options.connections()).stt);
    },
    close() {
      closed = true;
      const reason = new SpeechError('system', 'speech has been closed');
      slots.close(reason);
      synthesis.abortAll(reason);
      processes.killAll(reason);
      return Promise.resolve();
    },
  };
}
