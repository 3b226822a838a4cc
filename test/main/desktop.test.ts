import type { Json } from '../helpers/json.js';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDesktop, type DesktopApp } from '../../main/app.js';
import { guardContents, windowOptions } from '../../main/window.js';
import { IPC_EVENT } from '../../preload/api.js';
import { fakes, freePort, type Listener } from './fake-desktop.js';

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
