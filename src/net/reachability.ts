import { blockedBy, guardedConnection, type BlockedAddress } from './guard.js';

const DEFAULT_PORTS: Record<string, number> = {
  'http:': 80,
  'https:': 443,
  'ws:': 80,
  'wss:': 443,
};

/** Why a URL cannot be called now: its address is refused by the outbound guard, or nothing listens. */
export type Unreachable = { refused: true } | { blocked: BlockedAddress };

/**
 * Whether a URL's host refuses connections right now (nothing listens on its port), or is an
 * address the outbound guard refuses (checked before anything is sent to it). A host that does
 * not answer within the wait, or a name that does not resolve, is not called unreachable: those
 * are left to the caller's own timeouts.
 */
export function unreachable(url: string, waitMs = 1_500): Promise<Unreachable | null> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(null);
  }
  const port = Number(target.port) || DEFAULT_PORTS[target.protocol];
  if (!port) return Promise.resolve(null);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = guardedConnection({ host, port }, false);
    const done = (found: Unreachable | null) => {
      socket.destroy();
      resolve(found);
    };
    socket.setTimeout(waitMs, () => done(null));
    socket.once('connect', () => done(null));
    socket.once('error', (err: NodeJS.ErrnoException) => {
      const blocked = blockedBy(err);
      done(blocked ? { blocked } : err.code === 'ECONNREFUSED' ? { refused: true } : null);
    });
  });
}
