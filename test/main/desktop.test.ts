import type { Json } from '../helpers/json.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDesktop, type AppWindow, type DesktopApp, type DesktopDeps } from '../../main/app.js';
import { DEFAULT_PREFS } from '../../main/prefs.js';
import { guardContents, windowOptions } from '../../main/window.js';
import { IPC_EVENT, IPC_INVOKE, type InvokeAnswer } from '../../preload/api.js';

type Listener = (...args: Json[]) => void;

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });

/** Fakes of the Electron APIs main uses: they record what main asks of them. */
function fakes(lock = true) {
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
  const state = { focused: 0, shown: 0, options: null as Json };
  const mainFrame = { url: '' };
  const window: AppWindow = {
    webContents: {
      id: 7,
      send: (channel: string, payload: unknown) => void sent.push({ channel, payload }),
      on: ((event: string, l: Listener) => void contentsListeners.set(event, l)) as Json,
      setWindowOpenHandler: (h: typeof openHandler) => void (openHandler = h),
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
    rendererFile: '/opt/callbench/dist/renderer/index.html',
    preloadFile: '/opt/callbench/dist/preload/index.cjs',
    log: () => undefined,
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

describe('the desktop main process, with its Electron APIs faked', () => {
  let f: ReturnType<typeof fakes>;
  let desktop: DesktopApp;

  beforeAll(async () => {
    f = fakes();
    f.prefs.set('server', { enabled: true, port: 0 });
    desktop = (await startDesktop(f.deps))!;
  });
  afterAll(async () => {
    await desktop.stop();
    rmSync(f.dataDir, { recursive: true, force: true });
  });

  it('opens one secure window on the built renderer, with the engine on the user data dir and the local API on', async () => {
    expect(f.state.options.webPreferences).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      webviewTag: false,
      preload: f.deps.preloadFile,
    });
    expect(f.mainFrame.url).toBe('file:///opt/callbench/dist/renderer/index.html');
    expect(desktop.engine.dataDir).toBe(f.dataDir);
    const url = desktop.serverUrl()!;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${url}/openapi.json`)).status).toBe(200);
  });

  it("IPC: the app's own page invokes catalogue operations, validated by their schemas", async () => {
    const ok = await f.invoke('workspaces.list', {});
    expect(ok).toMatchObject({
      ok: true,
      status: 200,
      data: { workspaces: [expect.objectContaining({ name: 'Default workspace' })] },
    });
    const ws = (ok as Json).data.workspaces[0].id;
    const bad = await f.invoke('personas.create', { workspace_id: ws, emotion: 'elated' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'validation_error', status: 400 } });
    expect((bad as Json).error.details.map((d: { path: string }) => d.path).sort()).toEqual([
      'emotion',
      'name',
      'prompt',
    ]);
    const created = await f.invoke('personas.create', {
      workspace_id: ws,
      name: 'Ann',
      prompt: 'Calm.',
    });
    expect(created).toMatchObject({ ok: true, status: 201 });
  });

  it('IPC: unknown operations, foreign windows, subframes and other pages are refused', async () => {
    expect(await f.invoke('fs.readFile', { path: '/etc/passwd' })).toMatchObject({
      ok: false,
      error: { code: 'unknown_operation', status: 404 },
    });
    expect(await f.invoke('__proto__', {})).toMatchObject({
      ok: false,
      error: { code: 'unknown_operation' },
    });
    expect(await f.invoke('workspaces.list', [])).toMatchObject({
      ok: false,
      error: { status: 400 },
    });
    const other = { url: f.mainFrame.url };
    expect(
      await f.invoke(
        'workspaces.list',
        {},
        { sender: { id: 8, mainFrame: other }, senderFrame: other },
      ),
    ).toMatchObject({ ok: false, error: { status: 403 } });
    const subframe = { url: f.mainFrame.url };
    expect(
      await f.invoke(
        'workspaces.list',
        {},
        { sender: { id: 7, mainFrame: f.mainFrame }, senderFrame: subframe },
      ),
    ).toMatchObject({ ok: false, error: { status: 403 } });
    const elsewhere = { url: 'https://evil.example/' };
    expect(
      await f.invoke(
        'workspaces.list',
        {},
        { sender: { id: 7, mainFrame: elsewhere }, senderFrame: elsewhere },
      ),
    ).toMatchObject({ ok: false, error: { status: 403 } });
  });

  it('desktop preferences: the API server turns off and on, and a bad port is refused at its field', async () => {
    expect(await f.invoke('desktop.preferences.update', { server: { port: 80 } })).toMatchObject({
      ok: false,
      error: { status: 400, details: [{ path: 'server.port' }] },
    });
    const off = await f.invoke('desktop.preferences.update', { server: { enabled: false } });
    expect(off).toMatchObject({ ok: true, data: { server: { enabled: false, url: null } } });
    expect(desktop.serverUrl()).toBeNull();
    const port = await freePort();
    const on = await f.invoke('desktop.preferences.update', { server: { enabled: true, port } });
    expect((on as Json).data.server.url).toBe(`http://127.0.0.1:${port}`);
    expect(f.prefs.get('server')).toEqual({ enabled: true, port });
    // A port already taken is refused, and the server stays where it was.
    const taken = createServer();
    const busy = await freePort();
    await new Promise<void>((r) => taken.listen(busy, '127.0.0.1', r));
    expect(await f.invoke('desktop.preferences.update', { server: { port: busy } })).toMatchObject({
      ok: false,
      error: { code: 'port_unavailable', details: [{ path: 'server.port' }] },
    });
    expect(desktop.serverUrl()).toBe(`http://127.0.0.1:${port}`);
    taken.close();
  });

  it('engine events reach the window; a notification event is an OS notification whose click focuses the alert', () => {
    desktop.engine.events.emit('notification', {
      alertId: 'alr_1',
      title: 'Alert firing: Tool down',
      body: 'success_rate is 40',
    });
    const n = f.calls.notifications.at(-1)!;
    expect(n).toMatchObject({
      title: 'Alert firing: Tool down',
      body: 'success_rate is 40',
      shown: true,
    });
    const focused = f.state.focused;
    n.click!();
    expect(f.state.focused).toBe(focused + 1);
    expect(f.sent.filter((m) => m.channel === IPC_EVENT).map((m) => m.payload.type)).toEqual(
      expect.arrayContaining(['notification', 'app.navigate']),
    );
    expect(f.sent.find((m) => m.payload.type === 'app.navigate')!.payload.data).toEqual({
      path: 'alerts/alr_1',
    });
  });

  it('a second instance focuses this one', () => {
    const before = f.state.focused;
    for (const l of f.appListeners.get('second-instance')!) l({ preventDefault() {} });
    expect(f.state.focused).toBe(before + 1);
  });
});

describe('desktop start and window guards', () => {
  it('a second instance quits at once, without opening the store', async () => {
    const f = fakes(false);
    expect(await startDesktop(f.deps)).toBeNull();
    expect(f.calls.quit).toBe(1);
    expect(f.state.options).toBeNull();
    rmSync(f.dataDir, { recursive: true, force: true });
  });

  it('quitting stops the engine first, then exits', async () => {
    const f = fakes();
    f.prefs.set('server', { enabled: false, port: 4477 });
    const desktop = (await startDesktop(f.deps))!;
    let prevented = false;
    for (const l of f.appListeners.get('before-quit')!)
      l({ preventDefault: () => (prevented = true) });
    expect(prevented).toBe(true);
    await desktop.stop();
    await new Promise((r) => setImmediate(r));
    expect(f.calls.exit).toEqual([0]);
    expect(() => desktop.engine.store).toThrow(/not started/);
    rmSync(f.dataDir, { recursive: true, force: true });
  });

  it('navigation away is blocked, new windows denied, https links open in the system browser', () => {
    const listeners = new Map<string, Listener>();
    let open: ((d: { url: string }) => { action: string }) | null = null;
    const opened: string[] = [];
    const app = 'file:///opt/callbench/dist/renderer/index.html';
    guardContents(
      {
        on: ((e: string, l: Listener) => void listeners.set(e, l)) as Json,
        setWindowOpenHandler: (h) => void (open = h),
      },
      app,
      (u) => opened.push(u),
    );
    const navigate = (url: string) => {
      let prevented = false;
      listeners.get('will-navigate')!({ preventDefault: () => (prevented = true) }, url);
      return prevented;
    };
    expect(navigate(`${app}#/agents`)).toBe(false);
    expect(navigate('https://docs.example/help')).toBe(true);
    expect(navigate('http://plain.example/')).toBe(true);
    expect(navigate('file:///etc/passwd')).toBe(true);
    expect(open!({ url: 'https://vapi.ai/' })).toEqual({ action: 'deny' });
    expect(open!({ url: 'javascript:alert(1)' })).toEqual({ action: 'deny' });
    expect(opened).toEqual(['https://docs.example/help', 'https://vapi.ai/']);
    let webview = false;
    listeners.get('will-attach-webview')!({ preventDefault: () => (webview = true) });
    expect(webview).toBe(true);
    expect(windowOptions('/p.cjs', { width: 800, height: 600 }).webPreferences).toMatchObject({
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
    });
  });
});

describe('the bridge is typed from the catalogue', () => {
  it("preload/operations.ts lists exactly the catalogue's operations (npm run gen:operations rewrites it)", async () => {
    const { catalogue } = await import('../../src/operations/catalogue.js');
    const { renderOperationNames } = await import('../../scripts/operation-names.js');
    const { readFileSync } = await import('node:fs');
    expect(readFileSync('preload/operations.ts', 'utf8')).toBe(
      renderOperationNames(catalogue.map((op) => op.name).sort()),
    );
  });
});
