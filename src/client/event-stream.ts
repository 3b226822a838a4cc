import type { ApiClient } from './api-client.js';

/** An engine event as it comes over the stream (the engine's own types are the catalogue's). */
export interface EventMessage {
  type: string;
  at: string;
  data: Record<string, unknown>;
}

/** How the event stream reconnects, and when a silent one counts as dead. */
export interface StreamTiming {
  /** The longest wait for the stream to open (default: no bound). */
  connectMs?: number;
  /** This long without a byte, the link is dead (default: no bound). */
  idleMs?: number;
  retryMs: number;
  /** The retry wait doubles while the stream keeps failing, up to this. */
  maxRetryMs: number;
  /** A frame larger than this is not an engine event: the stream is dropped and reopened. */
  maxFrameChars?: number;
}

export interface FollowOptions {
  timing: StreamTiming;
  /** Told each new problem once, not once per retry. */
  onProblem?: (err: Error) => void;
}

/**
 * Forwards the event stream to `onEvent`, reopening it whenever it drops or falls silent. Answers
 * the function that stops it.
 */
export function followEvents(
  client: ApiClient,
  onEvent: (event: EventMessage) => void,
  options: FollowOptions,
): () => void {
  const { timing } = options;
  const stop = new AbortController();
  void (async () => {
    let wait = timing.retryMs;
    let lastProblem = '';
    while (!stop.signal.aborted) {
      const connected = () => {
        wait = timing.retryMs;
        lastProblem = '';
      };
      try {
        await readEvents({ client, onEvent, stop: stop.signal, timing, connected });
      } catch (err) {
        const problem = (err as Error).message;
        if (!stop.signal.aborted && problem !== lastProblem) options.onProblem?.(err as Error);
        lastProblem = problem;
      }
      await sleep(wait, stop.signal);
      wait = Math.min(wait * 2, timing.maxRetryMs);
    }
  })();
  return () => stop.abort();
}

interface Connection {
  client: ApiClient;
  onEvent: (event: EventMessage) => void;
  stop: AbortSignal;
  timing: StreamTiming;
  connected: () => void;
}

/** One connection to the stream, until it ends, falls silent or is stopped. */
async function readEvents({ client, onEvent, stop, timing, connected }: Connection): Promise<void> {
  const link = new AbortController();
  const cut = () => link.abort(new Error('no answer, or silent too long'));
  stop.addEventListener('abort', cut);
  const arm = (ms: number | undefined) => (ms === undefined ? undefined : setTimeout(cut, ms));
  let timer = arm(timing.connectMs);
  const alive = () => {
    clearTimeout(timer);
    timer = arm(timing.idleMs);
  };
  try {
    const body = await client.openEvents(link.signal);
    alive();
    connected();
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      alive();
      buffer = dispatchFrames(buffer + value, onEvent);
      if (buffer.length > (timing.maxFrameChars ?? Infinity))
        throw new Error('an event frame is too large');
    }
  } finally {
    clearTimeout(timer);
    stop.removeEventListener('abort', cut);
  }
}

/** Hands each complete `data:` frame to `onEvent`; answers what is left of an incomplete one. */
export function dispatchFrames(buffer: string, onEvent: (event: EventMessage) => void): string {
  const frames = buffer.replace(/\r\n/g, '\n').split('\n\n');
  const rest = frames.pop() ?? '';
  for (const frame of frames) {
    const data = frame
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n');
    const event = data ? engineEvent(data) : null;
    if (event) onEvent(event);
  }
  return rest;
}

/** An engine event, or null: malformed frames, and `app.*` events (the desktop's own), are dropped. */
function engineEvent(text: string): EventMessage | null {
  try {
    const e = JSON.parse(text) as Partial<EventMessage> | null;
    if (!e || typeof e.type !== 'string' || e.type.startsWith('app.')) return null;
    if (typeof e.at !== 'string' || !e.data || typeof e.data !== 'object') return null;
    return { type: e.type, at: e.at, data: e.data };
  } catch {
    return null;
  }
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
