import type { CallerBehaviours } from '../domain/callers.js';

/** What the caller does over one agent turn, when the dice say so. */
export type OverAgent =
  | { kind: 'barge_in'; afterMs: number }
  | { kind: 'backchannel'; afterMs: number }
  | { kind: 'hangup'; afterMs: number };

/** A backchannel comes this far into the agent's speech: long enough to be mid-sentence. */
const BACKCHANNEL_AFTER_MS = 1_200;
/** A hang-up comes this far into the agent's speech. */
const HANGUP_AFTER_MS = 1_000;

/**
 * A persona's behaviours, rolled on the simulation's seeded random source: the same seed replays
 * the same barge-ins, silences, backchannels and hang-ups (and the same line losses).
 */
export class CallerDice {
  constructor(
    private readonly behaviours: CallerBehaviours | null,
    private readonly random: () => number,
  ) {}

  private roll(probability: number | undefined): boolean {
    return probability !== undefined && probability > 0 && this.random() < probability;
  }

  /** At the start of an agent turn: whether the caller hangs up, barges in or backchannels in it. */
  overAgentTurn(): OverAgent | null {
    const b = this.behaviours;
    if (!b) return null;
    if (this.roll(b.hangup?.probability)) return { kind: 'hangup', afterMs: HANGUP_AFTER_MS };
    if (b.bargeIn && this.roll(b.bargeIn.probability))
      return { kind: 'barge_in', afterMs: b.bargeIn.afterMs };
    if (this.roll(b.backchannel?.probability))
      return { kind: 'backchannel', afterMs: BACKCHANNEL_AFTER_MS };
    return null;
  }

  /** When the caller should answer: how long it stays silent first, or null. */
  silenceBeforeAnswer(): number | null {
    const s = this.behaviours?.silence;
    return s && this.roll(s.probability) ? s.ms : null;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.min(items.length - 1, Math.floor(this.random() * items.length))]!;
  }
}
