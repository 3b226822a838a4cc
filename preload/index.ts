import { contextBridge, ipcRenderer } from 'electron';
import { IPC_EVENT, IPC_INVOKE, type CallbenchBridge, type EngineEventMessage } from './api';

// Exactly two functions reach the page; ipcRenderer itself never does.
const bridge: CallbenchBridge = {
  invoke: (operation, input) => ipcRenderer.invoke(IPC_INVOKE, operation, input ?? {}),
  subscribe(listener) {
    const handler = (_event: unknown, message: EngineEventMessage) => listener(message);
    ipcRenderer.on(IPC_EVENT, handler);
    return () => void ipcRenderer.off(IPC_EVENT, handler);
  },
};

contextBridge.exposeInMainWorld('callbench', bridge);
