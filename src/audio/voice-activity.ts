import { isSileroRate, sileroThread, type SileroStream, type SileroThread } from './silero-vad.js';
import {
  SpeechDetector,
  thresholdAmplitude,
  type SpeechDetectorOptions,
  type SpeechEvent,
} from './vad.js';

/**
 * Where the agent's speech starts and ends, frame by frame: Silero VAD decides what is speech,
 * the energy detector's hysteresis and onset search date it (to the sample, where Silero's 32 ms
 * windows alone would not). Where Silero cannot run (another rate, no ONNX runtime for the
 * platform, its thread died), energy alone decides, and the call's summary says why.
 */

export interface VoiceActivityReport {
  detector: 'silero' | 'energy';
  /** Why energy decided, where Silero was wanted; null when Silero decided throughout. */
  reason: string | null;
}

export interface VoiceActivity {
  /** Feeds the next frame (frames follow each other without a gap), first sample at `atMs`. */
  push(frame: Int16Array, atMs: number): void;
  /** Speech has started and not ended, as far as the frames judged so far say. */
  readonly speaking: boolean;
  report(): VoiceActivityReport;
  /** Resolves once every frame pushed so far has been judged (and its events sent). */
  settled(): Promise<void>;
  /** No more frames: events still to come are dropped. */
  close(): void;
}

export type OnSpeech = (event: SpeechEvent) => void;
export type VoiceActivityFactory = (rate: number, onSpeech: OnSpeech) => VoiceActivity;

/** Silero's own recommended pair: speech from 0.5, and it lasts while above 0.35. */
const POSITIVE = 0.5;
const NEGATIVE = 0.35;
/** Silero confirms a sound one or two windows in: the onset is searched back this far. */
const LOOKBACK_MS = 120;

class EnergyActivity implements VoiceActivity {
  private readonly detector: SpeechDetector;

  constructor(
    rate: number,
    options: SpeechDetectorOptions,
    private readonly onSpeech: OnSpeech,
    private readonly reason: string | null,
  ) {
    this.detector = new SpeechDetector(rate, options);
  }

  push(frame: Int16Array, atMs: number): void {
    for (const e of this.detector.feed(frame, atMs)) this.onSpeech(e);
  }
  get speaking(): boolean {
    return this.detector.speaking;
  }
  report(): VoiceActivityReport {
    return { detector: 'energy', reason: this.reason };
  }
  settled(): Promise<void> {
    return Promise.resolve();
  }
  close(): void {}
}

class SileroActivity implements VoiceActivity {
  private readonly detector: SpeechDetector;
  private readonly loud: number;
  private window: Int16Array;
  private filled = 0;
  private windowStartMs = 0;
  /** Windows are judged in order: each waits for the one before it. */
  private judged = Promise.resolve();
  private fallback: string | null = null;
  private closed = false;

  constructor(
    private readonly stream: SileroStream,
    options: SpeechDetectorOptions,
    private readonly onSpeech: OnSpeech,
  ) {
    this.detector = new SpeechDetector(stream.rate, { ...options, lookbackMs: LOOKBACK_MS });
    this.loud = thresholdAmplitude(options.thresholdDbfs);
    this.window = new Int16Array(stream.windowSamples);
  }

  push(frame: Int16Array, atMs: number): void {
    const ms = 1000 / this.stream.rate;
    if (this.filled > 0 && Math.abs(atMs - (this.windowStartMs + this.filled * ms)) > ms) {
      this.filled = 0; // a break in the stream: the partial window is not judged
    }
    let offset = 0;
    while (offset < frame.length) {
      if (this.filled === 0) this.windowStartMs = atMs + offset * ms;
      const count = Math.min(frame.length - offset, this.window.length - this.filled);
      this.window.set(frame.subarray(offset, offset + count), this.filled);
      this.filled += count;
      offset += count;
      if (this.filled === this.window.length) {
        this.judge(this.window, this.windowStartMs);
        this.window = new Int16Array(this.window.length);
        this.filled = 0;
      }
    }
  }

  private judge(samples: Int16Array, startMs: number): void {
    const quiet = !samples.some((x) => x >= this.loud || x <= -this.loud);
    const probability = this.fallback ? Promise.resolve(1) : this.stream.classify(samples, quiet);
    // Handled when its turn in the chain comes; a thread that dies fails every window at once.
    probability.catch(() => {});
    this.judged = this.judged.then(async () => {
      let p: number;
      try {
        p = await probability;
      } catch (err) {
        const why = (err as Error).message;
        this.fallback ??= `Silero VAD stopped mid-call (${why}): energy decided from then on`;
        p = 1;
      }
      if (this.closed) return;
      const likely = p >= (this.detector.speaking ? NEGATIVE : POSITIVE);
      for (const e of this.detector.feed(samples, startMs, likely)) this.onSpeech(e);
    });
  }

  get speaking(): boolean {
    return this.detector.speaking;
  }
  report(): VoiceActivityReport {
    return { detector: 'silero', reason: this.fallback };
  }
  settled(): Promise<void> {
    return this.judged;
  }
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stream.close();
  }
}

/** Energy alone decides (the detector's own tests, and where Silero is not wanted). */
export const energyVoiceActivity =
  (options: SpeechDetectorOptions = {}, reason: string | null = null): VoiceActivityFactory =>
  (rate, onSpeech) =>
    new EnergyActivity(rate, options, onSpeech, reason);

/**
 * Voice activity for the calls about to be made: Silero where it loads and the call's rate is one
 * it hears, else energy with the reason. Awaited before dialling, so the model's load is never a
 * call's time.
 */
export async function agentVoiceActivity(
  options: SpeechDetectorOptions = {},
): Promise<VoiceActivityFactory> {
  let thread: SileroThread | null = null;
  let reason: string | null = null;
  try {
    thread = await sileroThread();
  } catch (err) {
    reason = `Silero VAD could not load (${(err as Error).message}): energy decided`;
  }
  return (rate, onSpeech) => {
    if (thread && !thread.failed && isSileroRate(rate))
      return new SileroActivity(thread.open(rate), options, onSpeech);
    const why =
      reason ??
      thread?.failed ??
      `Silero VAD hears 8 and 16 kHz audio, not ${rate} Hz: energy decided`;
    return new EnergyActivity(rate, options, onSpeech, why);
  };
}
