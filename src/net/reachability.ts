import { connect } from 'node:net';

const DEFAULT_PORTS: Record<string, number> = {
  'http:': 80,
  'https:': 443,
  'ws:': 80,
  'wss:': 443,
};

/**
 * Whether a URL's host refuses connections right now (nothing listens on its port). A host that
 * does not answer within the wait, or a name that does not resolve, is not called refusing: those
 * are left to the caller's own timeouts.
 */
export function refusesConnections(url: string, waitMs = 1_500): Promise<boolean> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(false);
  }
  const port = Number(target.port) || DEFAULT_PORTS[target.protocol];
  if (!port) return Promise.resolve(false);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (refused: boolean) => {
      socket.destroy();
      resolve(refused);
    };
    socket.setTimeout(waitMs, () => done(false));
    socket.once('connect', () => done(false));
    socket.once('error', (err: NodeJS.ErrnoException) => done(err.code === 'ECONNREFUSED'));
  });
}
