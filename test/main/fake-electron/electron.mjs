// A stand-in for the `electron` module, for running the built main bundle under plain Node:
// it prints what main asks of it, and quits once the window has loaded. With FAKE_ELECTRON_DRIVE
// (a module), the loaded page first invokes operations over the IPC channel as that module says.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const userData =
  process.env.FAKE_ELECTRON_USER_DATA ?? mkdtempSync(join(tmpdir(), 'fake-electron-'));
const listeners = {};
const ipcHandlers = {};
const say = (what, value) => console.log(`${what} ${JSON.stringify(value)}`);

export const app = {
  requestSingleInstanceLock: () => true,
  getVersion: () => '0.0.0-test',
  getPath: () => userData,
  getAppPath: () => process.cwd(),
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
    this.webContents = {
      id: 1,
      send: () => {},
      on: () => {},
      setWindowOpenHandler: () => {},
      reload: () => say('reload', true),
    };
    this.webContents.mainFrame = { url: '' };
  }
  async loadFile(file) {
    say('load', file);
    this.webContents.mainFrame.url = pathToFileURL(file).href;
    const event = { sender: this.webContents, senderFrame: this.webContents.mainFrame };
    const invoke = (name, input) => ipcHandlers['callbench:invoke'](event, name, input);
    const drive = process.env.FAKE_ELECTRON_DRIVE
      ? (await import(pathToFileURL(process.env.FAKE_ELECTRON_DRIVE).href)).default
      : async () => {};
    setTimeout(async () => {
      await drive(invoke, say);
      listeners['before-quit']?.({ preventDefault: () => say('quit-deferred', true) });
    }, 200);
  }
  getBounds() {
    return { width: 1280, height: 820 };
  }
  on() {}
  once() {}
  show() {}
  focus() {}
  restore() {}
  isMinimized() {
    return false;
  }
  isDestroyed() {
    return false;
  }
}

export const ipcMain = {
  handle: (channel, handler) => {
    ipcHandlers[channel] = handler;
    say('ipc', channel);
  },
  on: () => {},
};
export class Notification {
  on() {}
  show() {}
}
export const shell = { openExternal: async () => {} };
// A keychain that seals reversibly but never in clear (the real one is the OS's).
export const safeStorage = {
  isEncryptionAvailable: () => true,
  getSelectedStorageBackend: () => 'gnome_libsecret',
  encryptString: (text) => Buffer.from(`sealed:${Buffer.from(text).toString('hex')}`),
  decryptString: (sealed) => Buffer.from(sealed.toString().slice(7), 'hex').toString(),
};
// A startup failure shows a box: here it is a line the test can read.
export const dialog = {
  showErrorBox: (title, content) => console.log(`[dialog] ${title}: ${content}`),
};
export default { app, BrowserWindow, dialog, ipcMain, Notification, safeStorage, shell };
