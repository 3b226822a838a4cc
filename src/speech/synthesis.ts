import { normalizeSpeechLevel } from '../audio/noise-mixer.js';
import { resampleInSlices } from '../audio/pcm.js';
import type { ChildProcesses } from './child-processes.js';
import { speakWithElevenLabs, speakWithOpenAI } from './cloud-voices.js';
import type { PcmCache } from './pcm-cache.js';
import { SharedRuns } from './shared-runs.js';
import type { Slots } from './slots.js';
import { toSpeechRate } from './speech-rate.js';
import { speakWithSystemVoice, type SpokenAudio } from './system-voice.js';
import {
  SPEECH_SAMPLE_RATE,
  SpeechError,
  type SpeechConnection,
  type SpeechEngineName,
  type Synthesized,
} from './types.js';

/** One line to speak, its voice settled (speed in range, defaults applied). */
export interface Line {
  engine: SpeechEngineName;
  text: string;
  voiceId: string | null;
  speed: number;
  /** 1 is the voice's own pitch; only the system voice on Linux (espeak-ng) can change it. */
  pitch: number;
}

/** The cache key of a line's speech: every setting that changes its sound, and its text. */
const lineKey = (line: Line): string =>
  JSON.stringify([line.engine, line.voiceId, line.speed, line.pitch, line.text]);

export interface SynthesisContext {
  processes: ChildProcesses;
  slots: Slots;
  platform: NodeJS.Platform;
  cache: PcmCache;
  /** The cloud engine's usable connection, or a SpeechError saying which setting to fill. */
  connectionFor: (engine: 'openai' | 'elevenlabs') => Promise<SpeechConnection>;
}

/**
 * Speech for lines, from the cache when it has them, else from the engine (one run per line
 * however many ask at once), always delivered as a private copy so no caller can change another's.
 */
export class Synthesis {
  private readonly runs = new SharedRuns<Int16Array>();
  private readonly callRuns = new SharedRuns<Int16Array>();

  constructor(private readonly context: SynthesisContext) {}

  async speak(line: Line, signal?: AbortSignal): Promise<Synthesized> {
    const started = performance.now();
    const key = lineKey(line);
    const hit = this.context.cache.get(key);
    if (hit) return { pcm: hit.slice(), sampleRate: SPEECH_SAMPLE_RATE, synthMs: 0, cached: true };
    const pcm = await this.runs.join(key, (shared) => this.produce(key, line, shared), signal);
    const synthMs = performance.now() - started;
    return { pcm: pcm.slice(), sampleRate: SPEECH_SAMPLE_RATE, synthMs, cached: false };
  }

  /**
   * The line as a call says it: at the call's `rate` and at one speech level. Made once per
   * voice, text and rate, since a batch of simulations says the same lines on every call, and
   * resampling and levelling each call's copy would cost more than the frames of its call.
   */
  async speakForCall(line: Line, rate: number, signal?: AbortSignal): Promise<Int16Array> {
    const key = `${lineKey(line)}@${rate}`;
    const hit = this.context.cache.get(key);
    if (hit) return hit.slice();
    const made = await this.callRuns.join(
      key,
      async (shared) => {
        const { pcm } = await this.speak(line, shared);
        const atRate = await resampleInSlices(pcm, SPEECH_SAMPLE_RATE, rate, shared);
        const levelled = normalizeSpeechLevel(atRate);
        this.context.cache.set(key, levelled);
        return levelled;
      },
      signal,
    );
    return made.slice();
  }

  /** Fails every line in progress with `reason`. */
  abortAll(reason: Error): void {
    this.runs.abortAll(reason);
    this.callRuns.abortAll(reason);
  }

  private async produce(key: string, line: Line, signal: AbortSignal): Promise<Int16Array> {
    const speech = await toSpeechRate(await this.fromEngine(line, signal), signal);
    if (speech.length === 0) {
      const quoted = line.text.length > 80 ? `${line.text.slice(0, 80)}...` : line.text;
      throw new SpeechError(
        line.engine,
        `${line.engine} produced no audible speech for "${quoted}"`,
      );
    }
    this.context.cache.set(key, speech);
    return speech;
  }

  private async fromEngine(line: Line, signal: AbortSignal): Promise<SpokenAudio> {
    const { context } = this;
    if (line.engine === 'openai')
      return speakWithOpenAI(line, await context.connectionFor('openai'), signal);
    if (line.engine === 'elevenlabs')
      return speakWithElevenLabs(line, await context.connectionFor('elevenlabs'), signal);
    return speakWithSystemVoice(line, context, signal);
  }
}
