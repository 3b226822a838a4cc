import { connect, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../helpers/server.js';

/** A consumer of /v1/events that reads every event as it comes. */
async function follower(s: TestServer) {
  const abort = new AbortController();
  const res = await fetch(`${s.url}/v1/events`, {
    headers: { authorization: `Bearer ${s.key}` },
    signal: abort.signal,
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  return {
    /** Reads until the event titled `title` has come; what came before it is let go. */
    async receives(title: string): Promise<void> {
      const marker = `"title":"${title}"`;
      while (!text.includes(marker)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended before ${title}`);
        text += value;
      }
      text = text.slice(text.indexOf(marker) + marker.length);
    },
    stop: () => abort.abort(),
  };
}

/** A consumer that opens the stream, sees it start, then never reads again (paused). */
async function stalled(s: TestServer): Promise<Socket> {
  const socket = connect(s.port, '127.0.0.1');
  socket.write(
    `GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1:${s.port}\r\nAuthorization: Bearer ${s.key}\r\n\r\n`,
  );
  let head = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes(': connected')) return;
      socket.off('data', onData);
      resolve();
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
  expect(head).toMatch(/^HTTP\/1.1 200/);
  socket.pause();
  return socket;
}

/**
 * Reads what the stalled socket was sent, to its end: whether the server hung up on it, or every
 * event up to `last` came through (the stream still open).
 */
function drain(socket: Socket, last: string): Promise<'dropped' | 'all came'> {
  const marker = `"title":"${last}"`;
  let tail = '';
  return new Promise((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      tail += chunk.toString('latin1');
      if (tail.includes(marker)) resolve('all came');
      tail = tail.slice(-marker.length);
    });
    socket.once('end', () => resolve('dropped'));
    socket.once('close', () => resolve('dropped'));
    socket.resume();
  });
}

/**
 * Emits `count` notifications of `bodyBytes` each, in steps that the reading consumer keeps up
 * with: only a consumer that does not read falls behind.
 */
async function emitAlongside(
  s: TestServer,
  reading: Awaited<ReturnType<typeof follower>>,
  run: { count: number; bodyBytes: number; step: number; prefix: string },
) {
  const body = 'x'.repeat(run.bodyBytes);
  for (let i = 1; i <= run.count; i++) {
    const title = `${run.prefix}-${i}`;
    s.engine.events.emit('notification', { alertId: 'alr_1', title, body });
    if (i % run.step === 0 || i === run.count) await reading.receives(title);
  }
}

describe('the event stream and a consumer that stops reading', () => {
  let s: TestServer;
  beforeEach(async () => {
    s = await startServer({ ui: {} });
  });
  afterEach(() => s.stop());

  it('drops it once more than 1 MiB waits for it; a reading consumer gets every event', async () => {
    const reading = await follower(s);
    const stuck = await stalled(s);
    try {
      // 16 MiB in all: more than the kernel's socket buffers hold, and then 1 MiB more.
      const run = { count: 256, bodyBytes: 64 * 1024, step: 4, prefix: 'big' };
      await emitAlongside(s, reading, run);
      expect(await drain(stuck, 'big-256')).toBe('dropped');
      // The reading consumer is still there, and still gets what comes next.
      s.engine.events.emit('notification', { alertId: 'alr_1', title: 'after', body: 'b' });
      await reading.receives('after');
    } finally {
      reading.stop();
      stuck.destroy();
    }
  });

  it('drops it once more than 1,000 events wait for it, however small', async () => {
    const reading = await follower(s);
    const stuck = await stalled(s);
    try {
      // 40,000 events of 200 bytes: more than the kernel's buffers hold, never 1 MiB waiting.
      const run = { count: 40_000, bodyBytes: 100, step: 200, prefix: 'small' };
      await emitAlongside(s, reading, run);
      expect(await drain(stuck, 'small-40000')).toBe('dropped');
      s.engine.events.emit('notification', { alertId: 'alr_1', title: 'after', body: 'b' });
      await reading.receives('after');
    } finally {
      reading.stop();
      stuck.destroy();
    }
  });
});
