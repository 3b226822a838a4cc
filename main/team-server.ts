import { z } from 'zod';
import { AppError } from '../src/errors.js';
import type { DesktopOperationName, EngineEventMessage, TeamServerView } from '../preload/api.js';
import type { DesktopOperation } from './ipc.js';
import { NO_TEAM, type PrefsStore, type TeamPrefs } from './prefs.js';
import {
  TEAM_TIMEOUT_MS,
  callTeamServer,
  checkEventStream,
  forwardTeamEvents,
  type TeamTarget,
} from './team-http.js';

/** Electron's safeStorage as main uses it: strings sealed by the OS keychain (a fake in tests). */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

export interface TeamServerDeps {
  prefs: PrefsStore;
  safeStorage: SafeStorageLike;
  log(this: void, message: string): void;
  /** Hands an event of the team server to the window (only while the team server is in use). */
  onEvent(this: void, event: EngineEventMessage): void;
  /** Reloads the window's page, so that every screen reads from the engine now in use. */
  reload(this: void): void;
  timeoutMs?: number;
}

type TeamOperationName = Extract<DesktopOperationName, `desktop.team.${string}`>;

export interface TeamServer {
  inUse(): 'local' | 'team';
  /** An operation of the catalogue, on the team server. */
  invoke(name: string, input: unknown): Promise<{ status: number; data: unknown }>;
  operations: { [N in TeamOperationName]: DesktopOperation<N> };
  /** Forwards the team server's events when it is in use (at start, and after each change). */
  follow(): void;
  stop(): void;
}

/** Names of this computer: plain HTTP to them crosses no network. */
const isLoopback = (hostname: string): boolean =>
  hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);

/**
 * An http(s) base URL, without a trailing slash, credentials, query or fragment; http:// only to
 * this computer.
 */
const TeamUrl = z
  .string()
  .trim()
  .min(1, 'is required')
  .max(2_048)
  .transform((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a URL such as https://callbench.example' });
      return z.NEVER;
    }
    const problem = !['http:', 'https:'].includes(url.protocol)
      ? 'must start with http:// or https://'
      : url.username || url.password
        ? 'must not hold a user name or password (the API key goes in its own field)'
        : url.search || url.hash
          ? 'must not have a query or a fragment'
          : url.protocol === 'http:' && !isLoopback(url.hostname)
            ? 'use https://: the API key would cross the network in clear'
            : null;
    if (problem) {
      ctx.addIssue({ code: 'custom', message: problem });
      return z.NEVER;
    }
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  });

export const TeamSave = z.strictObject({
  url: TeamUrl,
  apiKey: z
    .string()
    .trim()
    .min(1, 'is required')
    .max(1_000)
    .regex(/^\S*$/, 'must be one word, without spaces'),
});
export const TeamUse = z.strictObject({ target: z.enum(['local', 'team']) });

/**
 * The team server: where it is, its sealed key, whether the window uses it; its operations for
 * Settings; routing of the renderer's operations and forwarding of its events while in use.
 */
export function createTeamServer(deps: TeamServerDeps): TeamServer {
  const timeoutMs = deps.timeoutMs ?? TEAM_TIMEOUT_MS;
  const core = teamCore(deps);
  return {
    inUse: core.inUse,
    invoke: (name, input) => callTeamServer(core.target(), name, input, timeoutMs),
    operations: teamOperations(core, deps, timeoutMs),
    follow: core.follow,
    stop: core.unfollow,
  };
}

type TeamCore = ReturnType<typeof teamCore>;

/** What is saved, what is in use, the key unsealed once, and the event stream that follows it. */
function teamCore(deps: TeamServerDeps) {
  const saved = (): TeamPrefs => deps.prefs.get('team') ?? NO_TEAM;
  const inUse = (): 'local' | 'team' => {
    const t = saved();
    return t.inUse === 'team' && t.url && t.sealedKey ? 'team' : 'local';
  };
  let opened: { sealed: string; key: string } | null = null;
  const target = (): TeamTarget => {
    const { url, sealedKey } = saved();
    if (!url || !sealedKey)
      throw new AppError(
        'team_server_not_saved',
        409,
        'No team server is saved: enter its URL and API key in Settings first',
      );
    if (opened?.sealed !== sealedKey) opened = { sealed: sealedKey, key: unseal(deps, sealedKey) };
    return { url, key: opened.key };
  };
  let stream: (() => void) | null = null;
  const unfollow = () => {
    stream?.();
    stream = null;
  };
  const follow = () => {
    unfollow();
    if (inUse() !== 'team') return;
    try {
      stream = forwardTeamEvents(target(), deps.onEvent, deps.log);
    } catch (err) {
      deps.log(`the team server's events cannot be followed: ${(err as Error).message}`);
    }
  };
  const save = (next: TeamPrefs) => {
    deps.prefs.set('team', next);
    // A forgotten key leaves main's memory too.
    if (!next.sealedKey) opened = null;
    follow();
  };
  const view = (): TeamServerView => {
    const t = saved();
    return { url: t.url, keySaved: Boolean(t.sealedKey), inUse: inUse() };
  };
  return { saved, inUse, target, follow, unfollow, save, view };
}

/** desktop.team.*: what Settings and the app bar ask of main. */
function teamOperations(
  core: TeamCore,
  deps: TeamServerDeps,
  timeoutMs: number,
): TeamServer['operations'] {
  const empty = z.strictObject({});
  const switchTo = (next: TeamPrefs) => {
    core.save(next);
    deps.reload();
    return core.view();
  };
  return {
    'desktop.team.get': { input: empty, handler: core.view },
    'desktop.team.save': {
      input: TeamSave,
      async handler({ url, apiKey }) {
        // Refused before anything is sent: a key that cannot be sealed is never kept.
        assertSealable(deps.safeStorage);
        await checkServer({ url, key: apiKey }, timeoutMs);
        const sealedKey = deps.safeStorage.encryptString(apiKey).toString('base64');
        core.save({ ...core.saved(), url, sealedKey });
        return core.view();
      },
    },
    'desktop.team.use': {
      input: TeamUse,
      async handler({ target }) {
        if (target === 'local') return switchTo({ ...core.saved(), inUse: 'local' });
        // Checked first: a window switched to a server that does not answer would show nothing.
        await checkServer(core.target(), timeoutMs);
        return switchTo({ ...core.saved(), inUse: 'team' });
      },
    },
    'desktop.team.forget': {
      input: empty,
      handler() {
        const wasInUse = core.inUse() === 'team';
        core.save(NO_TEAM);
        if (wasInUse) deps.reload();
        return core.view();
      },
    },
  };
}

function assertSealable(safeStorage: SafeStorageLike): void {
  if (!safeStorage.isEncryptionAvailable())
    throw new AppError(
      'keychain_unavailable',
      409,
      'The API key cannot be stored safely: no OS keychain is available to Callbench (on Linux, ' +
        'a secret store such as GNOME Keyring or KWallet must be running). Nothing was saved.',
    );
}

function unseal(deps: TeamServerDeps, sealed: string): string {
  try {
    return deps.safeStorage.decryptString(Buffer.from(sealed, 'base64'));
  } catch (err) {
    deps.log(`the team server's API key cannot be unsealed: ${(err as Error).message}`);
    throw new AppError(
      'team_key_unreadable',
      409,
      "The team server's saved API key cannot be opened with this computer's keychain: save it again in Settings",
    );
  }
}

/**
 * The server answers as a Callbench engine with this key (`workspaces.list`), and the key may read
 * its events; otherwise a 400 naming the cause, at the field it concerns.
 */
async function checkServer(target: TeamTarget, timeoutMs: number): Promise<void> {
  try {
    const { data } = await callTeamServer(target, 'workspaces.list', {}, timeoutMs);
    if (!Array.isArray((data as { workspaces?: unknown } | null)?.workspaces))
      throw new AppError(
        'team_server_error',
        502,
        `${target.url} answered, but not as a Callbench server does: is it the team server's address?`,
      );
    await checkEventStream(target, timeoutMs);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    throw checkFailed(err);
  }
}

/** Why the check failed, as a 400 at the field to change. */
function checkFailed(err: AppError): AppError {
  const fail = (path: 'url' | 'apiKey', detail: string, message = err.message) =>
    new AppError('team_server_check_failed', 400, message, [{ path, message: detail }]);
  // The server refuses names it was not told about (DNS rebinding): the fix is on the server.
  if (err.status === 403 && /^Host /.test(err.message))
    return fail(
      'url',
      'is not a name the team server accepts',
      `The team server does not accept the name in this URL: add it (name:port) to its CALLBENCH_PUBLIC_HOSTS`,
    );
  if (err.status === 401 || err.status === 403)
    return fail('apiKey', 'was refused by the team server');
  if (err.code === 'team_server_unreachable') return fail('url', 'does not answer');
  if (err.code === 'team_server_untrusted')
    return fail('url', 'has a certificate this computer does not trust');
  return fail('url', 'does not answer as a Callbench team server');
}
