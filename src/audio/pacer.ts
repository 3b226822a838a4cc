/**
 * Real-time frame pacing: frame i of a call is handed over at startedAt + i * frameMs on the
 * monotonic clock, so a two-minute call streams for two minutes with no gaps.
 *
 * Every live pacer in the process shares one timer loop: twenty calls mean one timer that wakes
 * at the earliest due frame, not twenty timers competing for the event loop, and each wake only
 * walks the live pacers. Waits are timers, never a spin. A frame is handed over only once it is
 * due; a late wake (a blocked event loop) hands over every frame that has come due at once:
 * frames are never skipped, so the audio has no gaps.
 *
 * Pacers that join the shared phases (live calls do) start on one of PHASES evenly spaced slots of
 * the frame period, the least taken one. Calls that start at scattered moments would otherwise
 * each wake the loop at a moment of their own: twenty calls, a thousand wakes a second, each
 * costing a context switch and a turn of the event loop, measured at about a quarter of the
 * engine's CPU while calls only stream. On slots, the loop wakes at most PHASES times a frame and
 * each wake serves a few calls, so no call waits behind all the others' work.
 */
import { performance } from 'node:perf_hooks';
import { LatenessHistogram, type PacingStats } from './lateness-histogram.js';

export type { PacingStats };

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
  /**
   * Start on the least taken of the shared phase slots rather than now: frame 0 is then due up
   * to one frame later. Off: frame 0 is due at once.
   */
  joinPhases?: boolean;
}

/** Phase slots per frame period for pacers that join them. */
export const PHASES = 4;

export interface Pacer {
  readonly startedAt: number;
  stop(): void;
  stats(): PacingStats;
}

interface LivePacer {
  /** The slot it joined (0 to PHASES - 1), or null. */
  readonly phase: number | null;
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

/**
 * Where a pacer joining the phases starts: the next moment on the least taken slot among pacers
 * of the same frame length (the sooner one on a tie). Slot p holds the times that are p / PHASES
 * of a frame past a whole number of frames on the clock.
 */
function phaseStart(frameMs: number, nowMs: number): { phase: number; startedAt: number } {
  const taken = new Array<number>(PHASES).fill(0);
  for (const pacer of live)
    if (pacer.phase !== null && pacer.frameMs === frameMs) taken[pacer.phase]!++;
  const slotMs = frameMs / PHASES;
  const firstSlot = Math.ceil(nowMs / slotMs);
  let best = { phase: 0, startedAt: Infinity, taken: Infinity };
  for (let k = 0; k < PHASES; k++) {
    const slot = firstSlot + k;
    const phase = slot % PHASES;
    if (taken[phase]! < best.taken)
      best = { phase, startedAt: slot * slotMs, taken: taken[phase]! };
  }
  return best;
}

/**
 * Starts pacing frames: frame 0 is due now (or, joining the phases, on the slot it took), frame i
 * at startedAt + i * frameMs.
 */
export function startPacer(opts: PacerOptions): Pacer {
  if (!(opts.frameMs > 0)) throw new RangeError(`frameMs must be positive, got ${opts.frameMs}`);
  const now = opts.now ?? (() => performance.now());
  const histogram = new LatenessHistogram();
  const { phase, startedAt } = opts.joinPhases
    ? phaseStart(opts.frameMs, now())
    : { phase: null, startedAt: now() };
  const state: LivePacer = {
    phase,
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
