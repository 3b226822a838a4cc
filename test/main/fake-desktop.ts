import type { Json } from '../helpers/json.js';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppWindow, DesktopDeps } from '../../main/app.js';
import { DEFAULT_PREFS } from '../../main/prefs.js';
import { IPC_INVOKE, type InvokeAnswer } from '../../preload/api.js';

export type Listener = (...args: Json[]) => void;

export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });

/** Fakes of the Electron APIs main uses: they record what main asks of them. */
export function fakes(lock = true) {
  const appListeners = new Map<string, Listener[]>();
  const calls = {
    quit: 0,
    exit: [] as number[],
    openExternal: [] as string[],
    notifications: [] as { title: string; body: string; click?: Listener; shown: boolean }[],
  };
  const sent: { channel: string; payload: Json }[] = [];
  let handler: ((event: Json, ...args: unknown[]) => Promise<unknown>) | null = null;
  const contentsListeners = new Map<string, Listener>();
  let openHandler: ((d: { url: string }) => { action: string }) | null = null;
  const state = { focused: 0, shown: 0, reloads: 0, options: null as Json };
  const logs: string[] = [];
  // A keychain that seals reversibly, never in clear; `available` false is a system without one.
  const keychain = { available: true, sealed: [] as string[] };
  const safeStorage: DesktopDeps['safeStorage'] = {
    isEncryptionAvailable: () => keychain.available,
    encryptString(text) {
      keychain.sealed.push(text);
      return Buffer.from(`sealed:${Buffer.from(text).toString('hex')}`);
    },
    decryptString(sealed) {
      const text = sealed.toString();
      if (!text.startsWith('sealed:')) throw new Error('not sealed by this keychain');
      return Buffer.from(text.slice(7), 'hex').toString();
    },
  };
  const mainFrame = { url: '' };
  const window: AppWindow = {
    webContents: {
      id: 7,
      send: (channel: string, payload: unknown) => void sent.push({ channel, payload }),
      on: ((event: string, l: Listener) => void contentsListeners.set(event, l)) as Json,
      setWindowOpenHandler: (h: typeof openHandler) => void (openHandler = h),
      reload: () => void state.reloads++,
      mainFrame,
    } as Json,
    loadFile(path) {
      mainFrame.url = `file://${path}`;
      return Promise.resolve();
    },
    getBounds: () => ({ x: 1, y: 2, width: 1000, height: 700 }),
    on: () => undefined,
    once: (_e, l) => l(),
    show: () => void state.shown++,
    focus: () => void state.focused++,
    restore: () => undefined,
    isMinimized: () => false,
    isDestroyed: () => false,
  };
  const prefs = new Map<string, unknown>(Object.entries(DEFAULT_PREFS));
  const dataDir = mkdtempSync(join(tmpdir(), 'callbench-desktop-'));
  const deps: DesktopDeps = {
    app: {
      requestSingleInstanceLock: () => lock,
      getPath: () => dataDir,
      getAppPath: () => process.cwd(),
      on: (event, l) => void appListeners.set(event, [...(appListeners.get(event) ?? []), l]),
      whenReady: () => Promise.resolve(),
      quit: () => void calls.quit++,
      exit: (code = 0) => void calls.exit.push(code),
    },
    createWindow: (options) => {
      state.options = options;
      return window;
    },
    ipcMain: { handle: (channel, l) => void (channel === IPC_INVOKE && (handler = l)) },
    createNotification: (o) => {
      const n = { ...o, shown: false } as (typeof calls.notifications)[number];
      calls.notifications.push(n);
      return {
        on: (_e: 'click', l: Listener) => void (n.click = l),
        show: () => void (n.shown = true),
      };
    },
    openExternal: (url) => Promise.resolve(void calls.openExternal.push(url)),
    prefs: {
      get: (k) => prefs.get(k) as Json,
      set: (k, v) => void prefs.set(k, v),
    },
    safeStorage,
    rendererFile: '/opt/callbench/dist/renderer/index.html',
    preloadFile: '/opt/callbench/dist/preload/index.cjs',
    log: (m) => void logs.push(m),
  };
  return {
    deps,
    calls,
    sent,
    state,
    window,
    mainFrame,
    dataDir,
    prefs,
    keychain,
    logs,
    appListeners,
    contentsListeners,
    openHandler: () => openHandler!,
    /** A message as it arrives from the app's own page, or from elsewhere. */
    invoke: (
      name: unknown,
      input?: unknown,
      sender: Json = { sender: { id: 7, mainFrame }, senderFrame: mainFrame },
    ) => handler!(sender, name, input) as Promise<InvokeAnswer>,
  };
}
