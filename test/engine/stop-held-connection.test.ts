import { connect } from 'node:net';
import { expect, it } from 'vitest';
import { startServer } from '../helpers/server.js';

/**
 * A client holding a connection open (a request whose headers never end, as a stalled browser or
 * proxy leaves one) must not keep the engine from stopping: its connection is dropped after a
 * short grace, long before the server's own request timeouts.
 */
it('stops while a client holds a half-sent request open', async () => {
  const s = await startServer();
  const socket = connect(s.port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write('GET /v1/agents HTTP/1.1\r\nHost: 127.0.0.1\r\n');
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => {});
  const stopped = s.stop().then(() => 'stopped' as const);
  // Without the grace the stop waits for the server's request timeout (a minute or more).
  const timeout = new Promise<'timed out'>((resolve) =>
    setTimeout(() => resolve('timed out'), 20_000).unref(),
  );
  expect(await Promise.race([stopped, timeout])).toBe('stopped');
  await closed;
}, 30_000);
