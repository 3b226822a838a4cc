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
export class ApiError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }

  /** Field-level problems ({path, message}), when the engine named fields. */
  get fields(): { path: string; message: string }[] {
    return Array.isArray(this.details)
      ? (this.details as { path: string; message: string }[]).filter(
          (d) => typeof d?.path === 'string',
        )
      : [];
  }
}

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

/** What `POST /v1/operations/{name}` answers. */
interface HttpAnswer {
  data?: unknown;
  error?: { code?: string; message?: string; details?: unknown };
}

/**
 * Browser mode: the local API that served the page, with an API key, or with none when a login
 * link opened a session (its HttpOnly cookie goes with every same-origin request by itself).
 */
export function httpClient(key: string | null, onUnauthorized: () => void): Client {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...(key ? { authorization: `Bearer ${key}` } : {}),
  };
  return {
    transport: 'http',
    async invoke(operation, ...[input]) {
      const res = await fetch(`/v1/operations/${encodeURIComponent(operation)}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(input ?? {}),
      });
      const body = (await res.json().catch(() => ({}))) as HttpAnswer;
      if (res.status === 401) onUnauthorized();
      if (!res.ok) {
        const e = body.error ?? {};
        throw new ApiError(
          e.code ?? 'error',
          res.status,
          e.message ?? `The engine answered ${res.status}`,
          e.details,
        );
      }
      return body.data as OutputOf<typeof operation>;
    },
    subscribe(listener) {
      // EventSource cannot send a key: the stream is read with fetch, and reopened when it drops.
      const abort = new AbortController();
      let stopped = false;
      const open = async (): Promise<void> => {
        while (!stopped) {
          try {
            const res = await fetch('/v1/events', { headers, signal: abort.signal });
            const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
            let buffer = '';
            for (;;) {
              const { value, done } = await reader.read();
              if (done) break;
              buffer += value;
              let cut: number;
              while ((cut = buffer.indexOf('\n\n')) >= 0) {
                const frame = buffer.slice(0, cut);
                buffer = buffer.slice(cut + 2);
                const data = frame
                  .split('\n')
                  .filter((l) => l.startsWith('data: '))
                  .map((l) => l.slice(6))
                  .join('\n');
                if (data) listener(JSON.parse(data) as AppEvent);
              }
            }
          } catch {
            if (stopped) return;
          }
          await new Promise((r) => setTimeout(r, 1_000));
        }
      };
      void open();
      return () => {
        stopped = true;
        abort.abort();
      };
    },
    async signOut() {
      // JSON, as every state change from a session must be; the answer clears the cookie.
      const res = await fetch('/v1/logout', { method: 'POST', headers });
      if (!res.ok && res.status !== 401)
        throw new ApiError('error', res.status, `The engine answered ${res.status}`);
    },
  };
}

declare global {
  interface Window {
    callbench?: CallbenchBridge;
  }
}
