/**
 * Deadlines of one length, oldest first, on one timer. Every tool call and model call has a
 * deadline that nearly always is cleared long before it passes; a timer of its own was made,
 * queued and unqueued on every call (about half a microsecond of each tool test). Sharing the
 * timer leaves a set insert and delete per call: the timer is armed once per length of time.
 */
class DeadlineQueue {
  /** In the order they were made, which for one length is the order they pass. */
  private readonly pending = new Set<Deadline>();
  private timer: NodeJS.Timeout | null = null;

  add(deadline: Deadline, ms: number): void {
    this.pending.add(deadline);
    if (!this.timer) this.arm(ms);
    // While a deadline waits, the timer keeps the process alive, as a timer of its own did.
    else if (this.pending.size === 1) this.timer.ref();
  }

  remove(deadline: Deadline): void {
    if (this.pending.delete(deadline) && this.pending.size === 0) this.timer?.unref();
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.expire(), ms);
  }

  /** Passes the deadlines whose time has come; the timer is armed again for the next one. */
  private expire(): void {
    this.timer = null;
    const now = performance.now();
    for (const deadline of this.pending) {
      // A timer may fire up to a millisecond early: the loop's clock is cached and whole ms.
      if (deadline.endsAt > now) return this.arm(Math.max(1, Math.ceil(deadline.endsAt - now)));
      this.pending.delete(deadline);
      deadline.pass();
    }
  }
}

const queues = new Map<number, DeadlineQueue>();

/**
 * The deadline of one exchange, as the event emitter undici accepts for a signal: its listeners
 * and when it passes. An AbortController (an EventTarget) costs more than the rest of the tool
 * runtime's own work per call; AbortSignal.timeout also kept its timer until the deadline. Not an
 * EventEmitter either: undici adds one listener and removes it, and setting up an emitter and its
 * once-wrapper for that cost every tool call more than its timer.
 */
export class Deadline {
  aborted = false;
  /** When it passes, on performance.now()'s clock. */
  readonly endsAt: number;
  private listeners: (() => void)[] | null = null;
  private readonly queue: DeadlineQueue;

  constructor(ms: number) {
    this.endsAt = performance.now() + ms;
    let queue = queues.get(ms);
    if (!queue) queues.set(ms, (queue = new DeadlineQueue()));
    this.queue = queue;
    queue.add(this, ms);
  }
  /** undici's way in (an emitter's `once`); the deadline passes once, so `on` is the same. */
  on(event: string, listener: () => void): this {
    if (event === 'abort' && !this.aborted) (this.listeners ??= []).push(listener);
    return this;
  }
  once(event: string, listener: () => void): this {
    return this.on(event, listener);
  }
  removeListener(event: string, listener: () => void): this {
    const at = event === 'abort' && this.listeners ? this.listeners.indexOf(listener) : -1;
    if (at >= 0) this.listeners!.splice(at, 1);
    return this;
  }
  clear(): void {
    this.queue.remove(this);
  }
  /** Its time has come: the listeners are told once. */
  pass(): void {
    this.aborted = true;
    const listeners = this.listeners ?? [];
    this.listeners = null;
    for (const listener of listeners) listener();
  }
}
