import { BrowserWindow, Notification, app, dialog, ipcMain, safeStorage, shell } from 'electron';
import Store from 'electron-store';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rendererPaths, startDesktop } from './app.js';
import { AppError } from '../src/errors.js';
import { installProcessGuards } from '../src/process-guards.js';
import { DEFAULT_PREFS, type DesktopPrefs } from './prefs.js';

// The thin shell: real Electron APIs into startDesktop, where everything testable lives.
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const log = (m: string) => console.error(`[callbench] ${m}`);
installProcessGuards(log);
const prefs = new Store<DesktopPrefs>({ name: 'desktop-preferences', defaults: DEFAULT_PREFS });
// On Linux without a secret store, safeStorage "encrypts" with a password written in Electron
// itself: that is no keychain, so it counts as unavailable and no key is stored.
const keychain = {
  isEncryptionAvailable: () =>
    safeStorage.isEncryptionAvailable() &&
    !(process.platform === 'linux' && safeStorage.getSelectedStorageBackend() === 'basic_text'),
  encryptString: (plainText: string) => safeStorage.encryptString(plainText),
  decryptString: (encrypted: Buffer) => safeStorage.decryptString(encrypted),
};

void startDesktop({
  app,
  createWindow: (options) => new BrowserWindow(options),
  ipcMain,
  createNotification: (options) => new Notification(options),
  openExternal: (url) => shell.openExternal(url),
  prefs,
  safeStorage: keychain,
  ...rendererPaths(root),
  log,
}).catch((err: unknown) => {
  // Known failures (data dir locked by another instance, damaged store, secret key) are one clear
  // line, and a dialog for who started the app from a launcher; only the unexpected get a stack.
  const message = err instanceof Error ? err.message : String(err);
  console.error(`Callbench could not start: ${message}`);
  if (!(err instanceof AppError)) console.error(err);
  dialog.showErrorBox('Callbench could not start', message);
  app.exit(1);
});
