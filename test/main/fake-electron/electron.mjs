// A stand-in for the `electron` module, for running the built main bundle under plain Node:
// it prints what main asks of it, and quits once the window has loaded.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const userData = process.env.FAKE_ELECTRON_USER_DATA ?? mkdtempSync(join(tmpdir(), 'fake-electron-'));
const listeners = {};
const say = (what, value) => console.log(`${what} ${JSON.stringify(value)}`);

export const app = {
  requestSingleInstanceLock: () => true,
  getVersion: () => '0.0.0-test',
  getPath: () => userData,
  on: (event, listener) => void (listeners[event] = listener),
  whenReady: async () => {},
  quit: () => say('quit', true),
  exit: (code) => {
    say('exit', code);
    process.exit(code);
  },
};

export class BrowserWindow {
  constructor(options) {
    say('window', options.webPreferences);
    this.webContents = { id: 1, send: () => {}, on: () => {}, setWindowOpenHandler: () => {} };
  }
  async loadFile(file) {
    say('load', file);
    setTimeout(() => listeners['before-quit']?.({ preventDefault: () => say('quit-deferred', true) }), 200);
  }
  getBounds() { return { width: 1280, height: 820 }; }
  on() {}
  once() {}
  show() {}
  focus() {}
  restore() {}
  isMinimized() { return false; }
  isDestroyed() { return false; }
}

export const ipcMain = { handle: (channel) => say('ipc', channel), on: () => {} };
export class Notification { on() {} show() {} }
export const shell = { openExternal: async () => {} };
export default { app, BrowserWindow, ipcMain, Notification, shell };
