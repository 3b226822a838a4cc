/**
 * What the preload script exposes to the renderer as `window.callbench`: exactly two functions.
 * Shared by preload (which implements it over IPC) and renderer (which calls it).
 */
export interface EngineEventMessage {
  type: string;
  at: string;
  data: Record<string, unknown>;
}

import type { OperationName } from './operations';

/** The desktop preferences as the Settings screen sees them. */
export interface DesktopPreferencesView {
  theme: 'light' | 'dark' | 'system';
  server: { enabled: boolean; port: number; url: string | null };
}

/** What the Settings screen may change (main validates it with its own schema). */
export interface DesktopPreferencesPatch {
  theme?: 'light' | 'dark' | 'system';
  server?: { enabled?: boolean; port?: number };
}

/** The team server as Settings and the app bar see it: its URL, never its key. */
export interface TeamServerView {
  url: string | null;
  /** An API key is saved (sealed by the OS keychain, in main only). */
  keySaved: boolean;
  /** Which engine the window talks to: this computer's, or the team server. */
  inUse: 'local' | 'team';
}

/** The desktop app's own operations, answered by main: their inputs and outputs. */
export interface DesktopOperationMap {
  'desktop.preferences.get': { input: Record<string, never>; output: DesktopPreferencesView };
  'desktop.preferences.update': { input: DesktopPreferencesPatch; output: DesktopPreferencesView };
  'desktop.team.get': { input: Record<string, never>; output: TeamServerView };
  /** Checks that the server answers with this key, then keeps both (the key sealed). */
  'desktop.team.save': { input: { url: string; apiKey: string }; output: TeamServerView };
  /** Switches the window to one engine or the other; the page reloads. */
  'desktop.team.use': { input: { target: 'local' | 'team' }; output: TeamServerView };
  /** Forgets the URL and key, and goes back to this computer. */
  'desktop.team.forget': { input: Record<string, never>; output: TeamServerView };
}
export type DesktopOperationName = keyof DesktopOperationMap;
export type AnyOperationName = OperationName | DesktopOperationName;

/** The answer of an operation: its data, or the engine's error with its code, message and details. */
export type InvokeAnswer =
  | { ok: true; status: number; data: unknown }
  | { ok: false; error: { code: string; status: number; message: string; details?: unknown } };

export interface CallbenchBridge {
  invoke(operation: AnyOperationName, input?: Record<string, unknown>): Promise<InvokeAnswer>;
  /** Calls `listener` with every engine event; answers the function that stops it. */
  subscribe(listener: (event: EngineEventMessage) => void): () => void;
}

export const IPC_INVOKE = 'callbench:invoke';
export const IPC_EVENT = 'callbench:event';
