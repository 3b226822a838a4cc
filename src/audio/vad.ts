/**
 * Voice activity detection on audio whose play times are known (the agent's playout timeline,
 * the caller's own frames), for turn-taking and latency.
 *
 * Energy-based: a 10 ms window is voiced when its RMS reaches `thresholdDbfs`. That suits clean
 * signals, synthetic speech and telephone audio with a quiet floor; it is not a noise-robust
 * classifier (background chatter or music would count as speech). It costs one multiply-add per
 * sample, so twenty calls at 50 frames a second are nothing.
 *
 * Hysteresis keeps a word from splitting into turns and a click from becoming one: speech must
 * sustain `startMs` of voiced windows (short dips between syllables allowed) before `start`, and
 * `endMs` of silence (longer than any pause between words) before `end`. Both events are dated
 * to the audio itself, not to when they could be decided: `start` to the first voiced sample of
 * the stretch (located to within a sample or so, not just its window), `end` to the end of the
 * last voiced window.
 */

export interface SpeechDetectorOptions {
  /** Voiced time needed before speech starts (default 250 ms). */
  startMs?: number;
  /** Silence needed before speech ends (default 700 ms). */
  endMs?: number;
  /** Window RMS at or above which a window is voiced (default -42 dBFS). */
  thresholdDbfs?: number;
  /** Longest dip allowed inside a stretch still counting towards `startMs` (default 150 ms). */
  maxDipMs?: number;
  /**
   * How far before the window that made a stretch voiced its onset is searched, through audio
   * loud without a break (default 10 ms, one window). A classifier that confirms speech a little
   * late (Silero, see silero-vad.ts) needs more, so its onset is still dated to the first sound.
   */
  lookbackMs?: number;
}

export type SpeechEvent = { type: 'start'; atMs: number } | { type: 'end'; atMs: number };

/** A stretch of voiced windows that may yet become speech. */
interface Candidate {
  onsetMs: number;
  voicedMs: number;
  dipMs: number;
}

const WINDOW_MS = 10;
const DEFAULT_THRESHOLD_DBFS = -42;

/** The sample amplitude of a window RMS of `dbfs` (the detector's default threshold if absent). */
export const thresholdAmplitude = (dbfs = DEFAULT_THRESHOLD_DBFS): number =>
  32768 * 10 ** (dbfs / 20);
/** The onset is searched in sub-windows this long: shorter than a pitch period's quiet part. */
const ONSET_STEP_MS = 2;
const ONSET_GAP_STEPS = 2;

export class SpeechDetector {
  private readonly startMs: number;
  private readonly endMs: number;
  private readonly maxDipMs: number;
  private readonly thresholdAmplitude: number;
  private readonly windowSize: number;
  /** The window being filled. */
  private readonly window: Int16Array;
  private filled = 0;
  private windowStartMs = 0;
  /**
   * The closed windows before it, without a break between them (kept to find an onset that
   * began before the window that made its stretch voiced): a ring, its newest sample just before
   * `historyNext`, and where they end.
   */
  private readonly history: Int16Array;
  private historyNext = 0;
  private historyFilled = 0;
  private historyEndMs = Number.NaN;
  private candidate: Candidate | null = null;
  private lastVoicedEndMs = 0;
  private isSpeaking = false;
  private likely = true;

  constructor(
    readonly sampleRate: number,
    options: SpeechDetectorOptions = {},
  ) {
    if (!(sampleRate > 0)) throw new RangeError('sampleRate must be positive');
    this.startMs = options.startMs ?? 250;
    this.endMs = options.endMs ?? 700;
    this.maxDipMs = options.maxDipMs ?? 150;
    this.thresholdAmplitude = thresholdAmplitude(options.thresholdDbfs);
    this.windowSize = Math.max(1, Math.round((sampleRate * WINDOW_MS) / 1000));
    this.window = new Int16Array(this.windowSize);
    const lookbackWindows = Math.max(1, Math.ceil((options.lookbackMs ?? WINDOW_MS) / WINDOW_MS));
    this.history = new Int16Array(this.windowSize * lookbackWindows);
  }

  /** Whether speech has started and not yet ended. */
  get speaking(): boolean {
    return this.isSpeaking;
  }

  /**
   * Feeds a frame whose first sample plays at `atMs`; returns the events it decided. `likely`
   * says whether a classifier heard speech in it: where it did not, loud windows are not voiced
   * (they close with the frame's verdict, so one straddling two frames takes the later's).
   */
  feed(frame: Int16Array, atMs: number, likely = true): SpeechEvent[] {
    const events: SpeechEvent[] = [];
    this.likely = likely;
    if (this.filled > 0 && Math.abs(atMs - this.timeOf(this.filled)) > 1000 / this.sampleRate) {
      this.closeWindow(events); // the stream jumped: judge what we have rather than splice
    }
    let offset = 0;
    while (offset < frame.length) {
      if (this.filled === 0) this.windowStartMs = atMs + (offset * 1000) / this.sampleRate;
      const count = Math.min(frame.length - offset, this.windowSize - this.filled);
      this.window.set(frame.subarray(offset, offset + count), this.filled);
      this.filled += count;
      offset += count;
      if (this.filled === this.windowSize) this.closeWindow(events);
    }
    return events;
  }

  private timeOf(sampleInWindow: number): number {
    return this.windowStartMs + (sampleInWindow * 1000) / this.sampleRate;
  }

  private closeWindow(events: SpeechEvent[]): void {
    const samples = this.window.subarray(0, this.filled);
    let sumSq = 0;
    for (let i = 0; i < samples.length; i++) sumSq += samples[i]! * samples[i]!;
    const voiced = this.likely && sumSq >= samples.length * this.thresholdAmplitude ** 2;
    const startMs = this.windowStartMs;
    const endMs = this.timeOf(this.filled);
    if (this.isSpeaking) this.whileSpeaking(voiced, endMs, events);
    else this.whileSilent({ voiced, startMs, endMs }, events);
    this.remember(samples, startMs, endMs);
    this.filled = 0;
  }

  /** Appends a closed window to the history (which starts afresh after a break in the stream). */
  private remember(samples: Int16Array, startMs: number, endMs: number): void {
    const h = this.history;
    if (!(Math.abs(this.historyEndMs - startMs) < 0.5)) this.historyFilled = 0;
    for (let i = 0; i < samples.length; i++) {
      h[this.historyNext] = samples[i]!;
      this.historyNext = this.historyNext + 1 === h.length ? 0 : this.historyNext + 1;
    }
    this.historyFilled = Math.min(h.length, this.historyFilled + samples.length);
    this.historyEndMs = endMs;
  }

  private whileSpeaking(voiced: boolean, endMs: number, events: SpeechEvent[]): void {
    if (voiced) {
      this.lastVoicedEndMs = endMs;
    } else if (endMs - this.lastVoicedEndMs >= this.endMs) {
      this.isSpeaking = false;
      events.push({ type: 'end', atMs: this.lastVoicedEndMs });
    }
  }

  private whileSilent(
    window: { voiced: boolean; startMs: number; endMs: number },
    events: SpeechEvent[],
  ): void {
    const lengthMs = window.endMs - window.startMs;
    if (!window.voiced) {
      if (!this.candidate) return;
      this.candidate.dipMs += lengthMs;
      if (this.candidate.dipMs > this.maxDipMs) this.candidate = null;
      return;
    }
    this.candidate ??= { onsetMs: this.locateOnset(), voicedMs: 0, dipMs: 0 };
    this.candidate.voicedMs += lengthMs;
    this.candidate.dipMs = 0;
    this.lastVoicedEndMs = window.endMs;
    if (this.candidate.voicedMs >= this.startMs - 1e-6) {
      this.isSpeaking = true;
      events.push({ type: 'start', atMs: this.candidate.onsetMs });
      this.candidate = null;
    }
  }

  /**
   * The first loud sample of the sound that made the current window voiced. From the first short
   * sub-window of the current window holding a sample above the threshold amplitude, it walks
   * back through contiguous loud sub-windows (into the history when it directly precedes), so a
   * rise that began before the window was judged voiced is not dated late.
   */
  private locateOnset(): number {
    const step = Math.max(1, Math.round((this.sampleRate * ONSET_STEP_MS) / 1000));
    const contiguous = Math.abs(this.historyEndMs - this.windowStartMs) < 0.5;
    const before = contiguous ? this.historyFilled : 0;
    // History sample i (oldest first) sits `before - i` places behind the ring's next slot.
    const h = this.history;
    const sampleAt = (i: number): number =>
      i < before
        ? h[(this.historyNext - before + i + h.length) % h.length]!
        : this.window[i - before]!;
    const firstLoud = (from: number, to: number): number => {
      for (let i = Math.max(0, from); i < to; i++) {
        if (Math.abs(sampleAt(i)) >= this.thresholdAmplitude) return i;
      }
      return -1;
    };
    const total = before + this.filled;
    let onset = firstLoud(before, total);
    if (onset < 0) onset = before; // cannot happen for a voiced window; stay safe
    // Back through loud sub-windows; a quiet gap of up to ONSET_GAP_STEPS (the quiet part of a
    // low voice's pitch period) does not end the sound.
    let subStart = onset - step;
    let quietSteps = 0;
    while (subStart + step > 0 && quietSteps <= ONSET_GAP_STEPS) {
      const loud = firstLoud(subStart, subStart + step);
      if (loud < 0) quietSteps++;
      else {
        onset = loud;
        quietSteps = 0;
      }
      subStart -= step;
    }
    return this.windowStartMs + ((onset - before) * 1000) / this.sampleRate;
  }
}
