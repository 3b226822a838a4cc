/**
 * Real-time frame pacing: frame i of a call is handed over at startedAt + i * frameMs on the
 * monotonic clock, so a two-minute call streams for two minutes with no gaps.
 *
 * Every live pacer in the process shares one timer loop: twenty calls mean one timer that wakes
 * at the earliest due frame, not twenty timers competing for the event loop, and each wake only
 * walks the live pacers. Waits are timers, never a spin. A frame is handed over only once it is
 * due; a late wake (a blocked event loop) hands over every frame that has come due at once:
 * frames are never skipped, so the audio has no gaps.
 */
import { performance } from 'node:perf_hooks';
import { LatenessHistogram } from './lateness-histogram.js';

export interface PacingStats {
  frames: number;
  /** Lateness: when a frame was handed over minus when it was due, in ms. */
  lateP50Ms: number;
  lateP99Ms: number;
  lateMaxMs: number;
}

export interface PacerOptions {
  frameMs: number;
  /** Hands over frame `index`, due at `dueMs` on the pacer's clock. */
  onFrame: (index: number, dueMs: number) => void;
  /** The monotonic clock, in ms; `performance.now()` unless a test supplies one. */
  now?: () => number;
  /**
   * Called when `onFrame` throws; the pacer has already stopped. Without it, the error is
   * rethrown outside the shared loop (an uncaught exception), never swallowed.
   */
  onError?: (error: unknown) => void;
}

export interface Pacer {
  readonly startedAt: number;
  stop(): void;
  stats(): PacingStats;
}

interface LivePacer {
  nextIndex: number;
  nextDue: number;
  readonly startedAt: number;
  readonly frameMs: number;
  readonly now: () => number;
  readonly deliver: (index: number, due: number) => void;
  readonly fail: (error: unknown) => void;
}

const live = new Set<LivePacer>();
let timer: NodeJS.Timeout | null = null;

function disarm(): void {
  if (timer) clearTimeout(timer);
  timer = null;
}

/** Hands over each pacer's due frames; returns the ms until the earliest next due frame. */
function deliverDue(): number {
  let soonest = Infinity;
  for (const pacer of live) {
    try {
      let now = pacer.now();
      while (live.has(pacer) && now >= pacer.nextDue) {
        const index = pacer.nextIndex++;
        const due = pacer.nextDue;
        pacer.nextDue = pacer.startedAt + pacer.nextIndex * pacer.frameMs; // no drift from sums
        pacer.deliver(index, due);
        now = pacer.now();
      }
      if (live.has(pacer)) soonest = Math.min(soonest, pacer.nextDue - now);
    } catch (error) {
      live.delete(pacer);
      pacer.fail(error);
    }
  }
  return soonest;
}

function wake(): void {
  timer = null;
  arm(deliverDue());
}

function arm(untilDueMs: number): void {
  disarm();
  if (live.size === 0 || untilDueMs === Infinity) return;
  // Node timers fire once libuv's whole-millisecond loop clock (which trails the monotonic
  // clock a little) has advanced by the delay: rounding the wait up lands most wakes within a
  // millisecond after the due time. Asking for an earlier wake measured worse here: a frame not
  // yet due then needs one more timer, and no timer is shorter than 1 ms.
  timer = setTimeout(wake, Math.max(1, Math.ceil(untilDueMs)));
}

/** Re-plans the shared loop after a pacer joined or left. */
function replan(): void {
  let soonest = Infinity;
  for (const pacer of live) soonest = Math.min(soonest, pacer.nextDue - pacer.now());
  arm(Math.max(0, soonest));
}

/** Starts pacing frames now: frame 0 is due immediately, frame i at startedAt + i * frameMs. */
export function startPacer(opts: PacerOptions): Pacer {
  if (!(opts.frameMs > 0)) throw new RangeError(`frameMs must be positive, got ${opts.frameMs}`);
  const now = opts.now ?? (() => performance.now());
  const histogram = new LatenessHistogram();
  const startedAt = now();
  const state: LivePacer = {
    nextIndex: 0,
    nextDue: startedAt,
    startedAt,
    frameMs: opts.frameMs,
    now,
    deliver: (index, due) => {
      histogram.add(now() - due);
      opts.onFrame(index, due);
    },
    fail: (error) => {
      if (opts.onError) opts.onError(error);
      else
        setImmediate(() => {
          throw error;
        });
    },
  };
  live.add(state);
  replan();
  return {
    startedAt,
    stop: () => {
      if (live.delete(state)) replan();
    },
    stats: () => histogram.stats(),
  };
}
