/**
 * The most marks waiting at once. Each waits on a timer; an agent sending marks in a loop while
 * its audio is queued would otherwise hold one per message. Marks past it are never echoed.
 */
export const MAX_PENDING_MARKS = 1000;

/**
 * Marks answered the way a telephone line answers them. An agent on the Twilio protocol (and
 * Bland's web socket) sends a `mark` after its audio to learn when that audio has been heard;
 * the line echoes it once everything before it has played. Callbench plays nothing aloud, so it
 * keeps the playout clock instead: each chunk starts at the later of its arrival and the end of
 * the previous one, and a mark is echoed when that clock passes it. A `clear` drops the unplayed
 * audio and echoes the pending marks at once, as Twilio does.
 */
export class PlayoutMarks {
  private playedUntil = 0;
  private readonly pending = new Map<NodeJS.Timeout, string>();

  constructor(
    private readonly echo: (name: string) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Audio of `durationMs` arrived now. */
  played(durationMs: number): void {
    this.playedUntil = Math.max(this.playedUntil, this.now()) + durationMs;
  }

  /** A mark arrived now: echoed when the audio received before it has finished playing. */
  mark(name: string): void {
    const wait = this.playedUntil - this.now();
    if (wait <= 0) return this.echo(name);
    if (this.pending.size >= MAX_PENDING_MARKS) return;
    const timer = setTimeout(() => {
      this.pending.delete(timer);
      this.echo(name);
    }, wait);
    this.pending.set(timer, name);
  }

  /** The agent voided its unplayed audio: the playout clock stops now, pending marks answer at once. */
  clear(): void {
    this.playedUntil = this.now();
    const names = [...this.pending.entries()];
    this.pending.clear();
    for (const [timer, name] of names) {
      clearTimeout(timer);
      this.echo(name);
    }
  }

  /** The call is over: nothing more is echoed. */
  stop(): void {
    for (const timer of this.pending.keys()) clearTimeout(timer);
    this.pending.clear();
  }
}
