import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import { unauthorized } from '../errors.js';
import type { Caller } from '../operations/types.js';

/** One-time login links stay valid this long: long enough to click, too short to matter in a log. */
export const LOGIN_LINK_TTL_MS = 15 * 60_000;
/** A session nobody used for this long ends: a browser left open overnight asks again. */
export const SESSION_IDLE_MS = 12 * 3_600_000;
/** A session ends this long after its login, however busy: a stolen cookie is not forever. */
export const SESSION_MAX_MS = 7 * 24 * 3_600_000;

/**
 * The session cookie's name for a Host: cookies ignore the port, so two engines on one machine
 * (ports 4100 and 4101) would overwrite each other's session under one name.
 */
export const sessionCookie = (host: string): string =>
  `callbench_session_${/:(\d+)$/.exec(host)?.[1] ?? 'default'}`;

const secret = (): string => randomBytes(32).toString('base64url');

const ended = () => unauthorized('The session ended: open a new login link');

const expired = (s: Session, now: number): boolean =>
  now - s.lastSeenAt > SESSION_IDLE_MS || now - s.startedAt > SESSION_MAX_MS;

export interface SessionOptions {
  clock: Clock;
  /**
   * The caller an API key acts as while it is valid, null once revoked: asked on every request of
   * a session, so that revoking the key that made its login link ends the session at once.
   */
  callerOfKey(this: void, keyId: string): Promise<Caller | null>;
}

interface Session {
  host: string;
  keyId: string;
  startedAt: number;
  lastSeenAt: number;
}

/**
 * Browser sessions, the way Jupyter does it: `serve` prints a one-time login link; following it
 * once sets an HttpOnly, SameSite=Strict cookie naming a session that lives in this process only.
 * A session acts for the API key that made its link, and ends with it, after 12 hours idle, 7 days
 * after its login, or at logout. The page itself is served without credentials and holds no secret.
 */
export function createBrowserSessions({ clock, callerOfKey }: SessionOptions) {
  const links = new Map<string, { expiry: number; keyId: string }>();
  const sessions = new Map<string, Session>();
  const idOf = (cookieHeader: string | undefined, host: string) =>
    cookieValue(cookieHeader, sessionCookie(host));

  return {
    /** A fresh one-time token for a login link, acting for this API key once followed. */
    issue(keyId: string): string {
      for (const [token, link] of links) if (link.expiry < clock.now()) links.delete(token);
      const token = secret();
      links.set(token, { expiry: clock.now() + LOGIN_LINK_TTL_MS, keyId });
      return token;
    },
    /** Spends a login token; answers the new session's id, bound to the Host it was used on. */
    redeem(token: string, host: string): string | null {
      const link = links.get(token);
      links.delete(token);
      const now = clock.now();
      if (link === undefined || link.expiry < now) return null;
      // Sessions nobody comes back to would otherwise stay in memory for as long as the process.
      for (const [id, s] of sessions) if (expired(s, now)) sessions.delete(id);
      const id = secret();
      sessions.set(id, { host, keyId: link.keyId, startedAt: now, lastSeenAt: now });
      return id;
    },
    /**
     * Null when the request names no session of ours (it may carry another credential); else its
     * caller, or a 401 when the session ended (its key revoked, idle too long, too old).
     */
    callerOf(cookieHeader: string | undefined, host: string): Promise<Caller> | null {
      const id = idOf(cookieHeader, host);
      const session = id ? sessions.get(id) : undefined;
      if (!id || !session || session.host !== host) return null;
      const now = clock.now();
      if (expired(session, now)) {
        sessions.delete(id);
        return Promise.reject(ended());
      }
      session.lastSeenAt = now;
      return callerOfKey(session.keyId).then((caller) => {
        if (caller) return caller;
        sessions.delete(id);
        throw ended();
      });
    },
    /** Logout: ends the session the request names, if any. */
    end(cookieHeader: string | undefined, host: string): void {
      const id = idOf(cookieHeader, host);
      if (id && sessions.get(id)?.host === host) sessions.delete(id);
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
