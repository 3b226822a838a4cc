import { FRAME_MS } from '../audio/pcm.js';

/**
 * Where the agent's audio sounds, 20 ms at a time, and when the provider voided it (a clear or an
 * interruption): finer than speech spans, whose 700 ms of hangover would join a stop and a quick
 * restart into one. Yield times after a barge-in or a backchannel are read from it.
 */

/** Window RMS at which the agent's audio counts as sounding (about -42 dBFS, as the detector). */
const SOUNDING_RMS = 32768 * 10 ** (-42 / 20);
/** Quiet this long after the caller cut in: the agent stopped (longer than a pause between words). */
export const STOPPED_AFTER_MS = 300;
/**
 * The most clears kept for a call: a real agent clears once per barge-in, a flood of them must
 * not grow the list (later ones still flush the audio, they are just not dated).
 */
export const MAX_CLEARS = 10_000;

export class AgentActivity {
  private sounding: Uint8Array;
  private frames = 0;
  /** When the provider voided the agent's unplayed audio (ms from connect), in order. */
  readonly clears: number[] = [];

  constructor(maxMs: number) {
    this.sounding = new Uint8Array(Math.ceil(maxMs / FRAME_MS) + 1);
  }

  /** Its frames and clears as plain data, to cross to another thread (`fromParts`). */
  parts(): { sounding: Uint8Array; clears: number[] } {
    return { sounding: this.sounding.slice(0, this.frames), clears: [...this.clears] };
  }

  /** An activity made from another's `parts()`. */
  static fromParts(parts: { sounding: Uint8Array; clears: number[] }): AgentActivity {
    const activity = new AgentActivity(0);
    activity.sounding = parts.sounding;
    activity.frames = parts.sounding.length;
    activity.clears.push(...parts.clears);
    return activity;
  }

  /** The window that plays at `atMs` (a multiple of 20 ms, in order). */
  add(atMs: number, window: Int16Array): void {
    const index = Math.round(atMs / FRAME_MS);
    if (index >= this.sounding.length) return;
    let sum = 0;
    for (let i = 0; i < window.length; i++) sum += window[i]! * window[i]!;
    const rms = window.length ? Math.sqrt(sum / window.length) : 0;
    this.sounding[index] = rms >= SOUNDING_RMS ? 1 : 0;
    this.frames = Math.max(this.frames, index + 1);
  }

  /** The provider voided the agent's unplayed audio at `atMs`. */
  noteClear(atMs: number): void {
    if (this.clears.length < MAX_CLEARS) this.clears.push(atMs);
  }

  /**
   * When the agent's audio stopped after `fromMs`: the first of STOPPED_AFTER_MS of quiet, or a
   * clear of its audio, whichever came first; null when it sounded to the end of what was heard.
   */
  stoppedAfter(fromMs: number): number | null {
    const quiet = STOPPED_AFTER_MS / FRAME_MS;
    let run = 0;
    let found: number | null = null;
    for (let i = Math.max(0, Math.floor(fromMs / FRAME_MS)); i < this.frames; i++) {
      run = this.sounding[i] ? 0 : run + 1;
      if (run === quiet) {
        found = (i - quiet + 1) * FRAME_MS;
        break;
      }
    }
    const cleared = this.clears.find((t) => t >= fromMs);
    if (cleared !== undefined && (found === null || cleared < found)) return cleared;
    return found;
  }
}
