import { randomBytes } from 'node:crypto';
import type { Caller } from '../operations/types.js';

/** One-time login links stay valid this long: long enough to click, too short to matter in a log. */
export const LOGIN_LINK_TTL_MS = 15 * 60_000;
/**
 * The session cookie's name for a Host: cookies ignore the port, so two engines on one machine
 * (ports 4100 and 4101) would overwrite each other's session under one name.
 */
export const sessionCookie = (host: string): string =>
  `callbench_session_${/:(\d+)$/.exec(host)?.[1] ?? 'default'}`;

const secret = (): string => randomBytes(32).toString('base64url');

/**
 * Browser sessions, the way Jupyter does it: `serve` prints a one-time login link; following it
 * once sets an HttpOnly, SameSite=Strict cookie naming a session that lives in this process only.
 * The page itself is served without credentials and holds no secret.
 */
export function createBrowserSessions(caller: Caller, now: () => number = Date.now) {
  const links = new Map<string, number>(); // token -> expiry
  const sessions = new Map<string, { host: string }>();

  return {
    /** A fresh one-time token for a login link. */
    issue(): string {
      for (const [token, expiry] of links) if (expiry < now()) links.delete(token);
      const token = secret();
      links.set(token, now() + LOGIN_LINK_TTL_MS);
      return token;
    },
    /** Spends a login token; answers the new session's id, bound to the Host it was used on. */
    redeem(token: string, host: string): string | null {
      const expiry = links.get(token);
      links.delete(token);
      if (expiry === undefined || expiry < now()) return null;
      const id = secret();
      sessions.set(id, { host });
      return id;
    },
    /** The caller of a request carrying a session cookie, or null. */
    callerOf(cookieHeader: string | undefined, host: string): Caller | null {
      const id = cookieValue(cookieHeader, sessionCookie(host));
      const session = id ? sessions.get(id) : undefined;
      return session && session.host === host ? caller : null;
    },
  };
}

export type BrowserSessions = ReturnType<typeof createBrowserSessions>;

function cookieValue(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return null;
}
