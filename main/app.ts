import { join } from 'node:path';
import { z } from 'zod';
import { catalogue } from '../src/operations/catalogue.js';
import { createEngine, type Engine } from '../src/engine.js';
import { AppError } from '../src/errors.js';
import { IPC_EVENT, IPC_INVOKE } from '../preload/api.js';
import { createIpcHandler, type DesktopOperation, type IpcSenderInfo } from './ipc.js';
import { notifyFromEvents, type NotificationFactory } from './notifications.js';
import { PrefsPatch, type PrefsStore } from './prefs.js';
import { createTeamServer, type SafeStorageLike, type TeamServer } from './team-server.js';
import { guardContents, windowOptions, type GuardedContents } from './window.js';

/** The window as main uses it. */
export interface AppWindow {
  webContents: GuardedContents & {
    id: number;
    send(channel: string, payload: unknown): void;
    reload(): void;
  };
  loadFile(path: string): Promise<void>;
  getBounds(): { x: number; y: number; width: number; height: number };
  on(event: 'close' | 'closed', listener: () => void): unknown;
  once(event: 'ready-to-show', listener: () => void): unknown;
  show(): void;
  focus(): void;
  restore(): void;
  isMinimized(): boolean;
  isDestroyed(): boolean;
}

/** Every Electron API main uses, passed in: the real ones in index.ts, fakes in tests. */
export interface DesktopDeps {
  app: {
    requestSingleInstanceLock(): boolean;
    getPath(name: 'userData'): string;
    /** The app's folder (its archive when packaged), where resources/noise ships. */
    getAppPath(): string;
    on(
      event: 'second-instance' | 'window-all-closed' | 'before-quit',
      listener: (event: { preventDefault(): void }) => void,
    ): unknown;
    whenReady(): Promise<unknown>;
    quit(): void;
    exit(code?: number): void;
  };
  createWindow(options: ReturnType<typeof windowOptions>): AppWindow;
  ipcMain: {
    handle(
      channel: string,
      listener: (event: IpcSenderInfo, ...args: unknown[]) => Promise<unknown>,
    ): void;
  };
  createNotification: NotificationFactory;
  openExternal(this: void, url: string): Promise<unknown>;
  prefs: PrefsStore;
  /** The OS keychain, which seals the team server's API key. */
  safeStorage: SafeStorageLike;
  /** The built renderer's index.html and the preload bundle. */
  rendererFile: string;
  preloadFile: string;
  log(this: void, message: string): void;
}

export interface DesktopApp {
  engine: Engine;
  window: AppWindow;
  team: TeamServer;
  serverUrl(): string | null;
  stop(): Promise<void>;
}

/**
 * The desktop app: one instance, the engine on the user's data dir, the local API when the setting
 * says so, one secure window bridged to the engine over one invoke and one event channel.
 * Answers null when another instance already runs (that one is focused instead).
 */
export async function startDesktop(deps: DesktopDeps): Promise<DesktopApp | null> {
  const { app, prefs } = deps;
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return null;
  }
  let window: AppWindow | null = null;
  const focus = () => {
    if (!window || window.isDestroyed()) return;
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
  };
  app.on('second-instance', focus);
  await app.whenReady();

  const engine = createEngine({
    dataDir: app.getPath('userData'),
    // Packaged, the beds ride in the app archive beside dist/ (electron-builder.yml `files`).
    noiseDir: join(app.getAppPath(), 'resources', 'noise'),
    log: { info: deps.log, error: (m) => deps.log(m) },
  });
  await engine.start();
  let serverUrl: string | null = null;
  const applyServer = async (): Promise<void> => {
    await engine.closeServer();
    serverUrl = null;
    const { enabled, port } = prefs.get('server');
    if (!enabled) return;
    try {
      serverUrl = await engine.listen(port, '127.0.0.1');
    } catch (err) {
      deps.log(`the local API could not listen on 127.0.0.1:${port}: ${(err as Error).message}`);
      throw new AppError(
        'port_unavailable',
        409,
        `Port ${port} is in use on 127.0.0.1: choose another one`,
        [{ path: 'server.port', message: 'is in use' }],
      );
    }
  };
  await applyServer().catch(() => {});

  const appUrl = `file://${deps.rendererFile.replace(/\\/g, '/').replace(/^(?!\/)/, '/')}`;
  window = deps.createWindow(windowOptions(deps.preloadFile, prefs.get('windowBounds')));
  guardContents(window.webContents, appUrl, deps.openExternal);
  window.once('ready-to-show', () => window?.show());
  window.on('close', () => {
    if (window && !window.isDestroyed()) prefs.set('windowBounds', window.getBounds());
  });

  const toWindow = (message: unknown) => {
    if (window && !window.isDestroyed()) window.webContents.send(IPC_EVENT, message);
  };
  const team = createTeamServer({
    prefs,
    safeStorage: deps.safeStorage,
    log: deps.log,
    onEvent: toWindow,
    // After the answer has gone back: the page that asked for the switch reads it, then reloads.
    reload: () =>
      void setTimeout(() => {
        if (window && !window.isDestroyed()) window.webContents.reload();
      }, 0),
  });

  deps.ipcMain.handle(
    IPC_INVOKE,
    createIpcHandler({
      operations: new Set(catalogue.map((op) => op.name)),
      // The catalogue's operations go to the engine in use: this computer's, or the team server.
      invoke: (name, input) =>
        team.inUse() === 'team' ? team.invoke(name, input) : engine.invoke(name, input),
      trusted: () =>
        window && !window.isDestroyed()
          ? { webContentsId: window.webContents.id, url: appUrl }
          : null,
      log: deps.log,
      desktop: {
        ...preferenceOperations(prefs, applyServer, () => serverUrl),
        ...team.operations,
      },
    }),
  );

  // The window hears the engine in use: this computer's events, or the team server's stream.
  const offEvents = engine.events.subscribe((e) => {
    if (team.inUse() === 'local') toWindow(e);
  });
  team.follow();
  const offNotifications = notifyFromEvents(
    (l) => engine.events.subscribeDesktop(l),
    deps.createNotification,
    (alertId) => {
      focus();
      toWindow({
        type: 'app.navigate',
        at: new Date().toISOString(),
        data: { path: alertId ? `alerts/${alertId}` : 'alerts' },
      });
    },
  );
  await window.loadFile(deps.rendererFile);

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      offEvents();
      team.stop();
      offNotifications();
      await engine.stop();
    })());
  app.on('window-all-closed', () => app.quit());
  app.on('before-quit', (event) => {
    if (!stopping) {
      // The engine finishes its writes and releases its lock before the process ends.
      event.preventDefault();
      void stop().finally(() => app.exit(0));
    }
  });
  return { engine, window, team, serverUrl: () => serverUrl, stop };
}

/** desktop.preferences.*: the theme, and the local API (moved back when it cannot listen). */
function preferenceOperations(
  prefs: PrefsStore,
  applyServer: () => Promise<void>,
  serverUrl: () => string | null,
): {
  'desktop.preferences.get': DesktopOperation<'desktop.preferences.get'>;
  'desktop.preferences.update': DesktopOperation<'desktop.preferences.update'>;
} {
  const view = () => ({
    theme: prefs.get('theme'),
    server: { ...prefs.get('server'), url: serverUrl() },
  });
  return {
    'desktop.preferences.get': { input: z.strictObject({}), handler: view },
    'desktop.preferences.update': {
      input: PrefsPatch,
      async handler(patch) {
        if (patch.theme) prefs.set('theme', patch.theme);
        if (patch.server) {
          const before = prefs.get('server');
          prefs.set('server', { ...before, ...patch.server });
          try {
            await applyServer();
          } catch (err) {
            prefs.set('server', before);
            await applyServer().catch(() => {});
            throw err;
          }
        }
        return view();
      },
    },
  };
}

export const rendererPaths = (root: string) => ({
  rendererFile: join(root, 'dist/renderer/index.html'),
  preloadFile: join(root, 'dist/preload/index.cjs'),
});
