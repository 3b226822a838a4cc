import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

/** A TCP proxy in front of a test PostgreSQL that can cut one connection at a chosen query. */
export interface PgProxy {
  /** The database URL with the proxy's port in place of the server's. */
  url: string;
  /** How many connections were cut so far. */
  cut(): number;
  stop(): Promise<void>;
}

/**
 * Passes every byte through, except that the first `times` connections to send a query whose text
 * holds `cutAt` are closed right then, as a database that drops a connection does: the query
 * fails with the connection, and the next connection works. Plain-text protocol on loopback (no
 * TLS), so the query's text is in the bytes.
 */
export async function startPgProxy(
  databaseUrl: string,
  { cutAt, times = 1 }: { cutAt: string; times?: number },
): Promise<PgProxy> {
  const target = new URL(databaseUrl);
  const sockets = new Set<Socket>();
  let cuts = 0;
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.on('data', (chunk: Buffer) => {
      if (cuts < times && chunk.includes(cutAt)) {
        cuts++;
        client.destroy();
        upstream.destroy();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    cut: () => cuts,
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
