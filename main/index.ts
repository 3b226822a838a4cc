import { BrowserWindow, Notification, app, ipcMain, shell } from 'electron';
import Store from 'electron-store';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rendererPaths, startDesktop } from './app.js';
import { installProcessGuards } from '../src/process-guards.js';
import { DEFAULT_PREFS, type DesktopPrefs } from './prefs.js';

// The thin shell: real Electron APIs into startDesktop, where everything testable lives.
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const log = (m: string) => console.error(`[callbench] ${m}`);
installProcessGuards(log);
const prefs = new Store<DesktopPrefs>({ name: 'desktop-preferences', defaults: DEFAULT_PREFS });

void startDesktop({
  app,
  createWindow: (options) => new BrowserWindow(options),
  ipcMain,
  createNotification: (options) => new Notification(options),
  openExternal: (url) => shell.openExternal(url),
  prefs,
  ...rendererPaths(root),
  log,
}).catch((err) => {
  console.error('Callbench could not start:', err);
  app.exit(1);
});
