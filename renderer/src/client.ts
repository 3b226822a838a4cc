import { ApiError, apiClient } from '../../src/client/api-client';
import { followEvents } from '../../src/client/event-stream';
import type { EngineEvent, OperationMap } from '../../src/operations/catalogue';
import type { CallbenchBridge, DesktopOperationMap, InvokeAnswer } from '../../preload/api';

/** What screens hear: the engine's events, and the desktop asking to show a path. */
export type AppEvent = EngineEvent | { type: 'app.navigate'; at: string; data: { path: string } };

/** Every operation a screen may invoke, the engine's and the desktop's, with its types. */
type Operations = OperationMap & DesktopOperationMap;
export type OperationName = keyof Operations;
export type InputOf<N extends OperationName> = Operations[N]['input'];
export type OutputOf<N extends OperationName> = Operations[N]['output'];
/** The input may be left out when none of its fields is required. */
type InputArgs<N extends OperationName> =
  Record<string, never> extends InputOf<N> ? [input?: InputOf<N>] : [input: InputOf<N>];

/** An engine error as the screens show it: in words, with the fields it concerns. */
export { ApiError };

/** One interface, two transports: the screens never know which one they run on. */
export interface Client {
  readonly transport: 'ipc' | 'http';
  invoke<N extends OperationName>(operation: N, ...input: InputArgs<N>): Promise<OutputOf<N>>;
  subscribe(listener: (event: AppEvent) => void): () => void;
  /**
   * Ends this page's sign-in on the engine (a login session, and its cookie); present only where
   * the page signs in (a browser), not in the desktop app.
   */
  signOut?: () => Promise<void>;
}

function unwrap<T>(answer: InvokeAnswer): T {
  if (!answer.ok)
    throw new ApiError(
      answer.error.code,
      answer.error.status,
      answer.error.message,
      answer.error.details,
    );
  return answer.data as T;
}

/** Desktop: the preload bridge, over IPC. */
export function ipcClient(bridge: CallbenchBridge): Client {
  return {
    transport: 'ipc',
    invoke: async (operation, ...[input]) =>
      unwrap(await bridge.invoke(operation, (input ?? {}) as Record<string, unknown>)),
    // Main forwards the engine's events as they are (and its own app.navigate).
    subscribe: (listener) => bridge.subscribe((message) => listener(message as AppEvent)),
  };
}

/**
 * Browser mode: the local API that served the page, with an API key, or with none when a login
 * link opened a session (its HttpOnly cookie goes with every same-origin request by itself).
 */
export function httpClient(key: string | null, onUnauthorized: () => void): Client {
  const api = apiClient({ base: '', key, onUnauthorized });
  return {
    transport: 'http',
    invoke: async (operation, ...[input]) =>
      (await api.request(operation, input ?? {})).data as OutputOf<typeof operation>,
    // EventSource cannot send a key: the stream is read with fetch, and reopened when it drops.
    subscribe: (listener) =>
      followEvents(api, (event) => listener(event as AppEvent), {
        timing: { retryMs: 1_000, maxRetryMs: 1_000 },
      }),
    // JSON, as every state change from a session must be; the answer clears the cookie.
    signOut: () => api.signOut(),
  };
}

declare global {
  interface Window {
    callbench?: CallbenchBridge;
  }
}
