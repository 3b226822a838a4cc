import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventBus } from '../events.js';

/**
 * How far a consumer of /v1/events may fall behind. What it has not read waits in this process's
 * memory, so one that stops reading (a suspended laptop, a hostile client) is dropped instead of
 * holding every event from then on; a browser's EventSource reconnects by itself.
 */
export const EVENT_BACKLOG = { maxEvents: 1000, maxBytes: 1024 * 1024 } as const;

/** The server writes a comment this often, so that proxies and clients see a live stream. */
const PING_MS = 15_000;

/**
 * Writes an event stream's frames to one consumer, counting those not yet handed to the socket;
 * past the backlog the response is destroyed (ending it would keep the backlog waiting) and
 * `onDrop` runs.
 */
export function eventStreamWriter(
  res: ServerResponse,
  onDrop: () => void,
): (frame: string) => void {
  let waiting = 0;
  let dropped = false;
  const flushed = () => void waiting--;
  return (frame) => {
    if (dropped || res.destroyed) return;
    waiting++;
    res.write(frame, flushed);
    if (waiting > EVENT_BACKLOG.maxEvents || res.writableLength > EVENT_BACKLOG.maxBytes) {
      dropped = true;
      res.destroy();
      onDrop();
    }
  };
}

/** Streams every engine event to one consumer (SSE) until it leaves or falls too far behind. */
export function streamEvents(req: IncomingMessage, res: ServerResponse, events: EventBus): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  let off = (): void => {};
  const keepAlive = setInterval(() => write(': ping\n\n'), PING_MS);
  const stop = () => {
    off();
    clearInterval(keepAlive);
  };
  const write = eventStreamWriter(res, stop);
  write(': connected\n\n');
  off = events.subscribe((e) => write(`data: ${JSON.stringify(e)}\n\n`));
  req.on('close', stop);
}
