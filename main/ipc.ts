import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { toAppError } from '../src/kernel/to-app-error.js';
import type { DesktopOperationMap, DesktopOperationName, InvokeAnswer } from '../preload/api.js';

/** What main needs to know of an IPC message: who sent it, from which frame. */
export interface IpcSenderInfo {
  sender: { id: number; mainFrame?: unknown };
  senderFrame?: { url: string } | null;
}

/** An operation of main's own (desktop preferences), with its input schema, served on the same channel. */
export interface DesktopOperation<N extends DesktopOperationName = DesktopOperationName> {
  input: z.ZodType<DesktopOperationMap[N]['input']>;
  handler(
    this: void,
    input: DesktopOperationMap[N]['input'],
  ): DesktopOperationMap[N]['output'] | Promise<DesktopOperationMap[N]['output']>;
}

export interface IpcHandlerOptions {
  /** Names of the engine's catalogue: the only engine operations the renderer may invoke. */
  operations: ReadonlySet<string>;
  /** Runs a catalogue operation on the engine in use (this computer's, or the team server). */
  invoke(name: string, input: object): Promise<{ status: number; data: unknown }>;
  desktop: { [N in DesktopOperationName]: DesktopOperation<N> };
  /** The web contents id of the app's window and the URL its renderer was loaded from. */
  trusted(): { webContentsId: number; url: string } | null;
  log(message: string): void;
}

const refused = (
  code: string,
  status: number,
  message: string,
  details?: unknown,
): InvokeAnswer => ({
  ok: false,
  error: { code, status, message, ...(details ? { details } : {}) },
});

/**
 * The one invoke channel. It answers only the app's own window, from its top frame and its own
 * page; only operation names of the catalogue (or main's desktop operations); and validates the
 * input with the operation's schema before anything runs (the engine's invoke does, for its own).
 */
export function createIpcHandler(opts: IpcHandlerOptions) {
  return async function handle(
    event: IpcSenderInfo,
    name: unknown,
    input: unknown,
  ): Promise<InvokeAnswer> {
    const trusted = opts.trusted();
    const frame = event.senderFrame;
    if (
      !trusted ||
      event.sender.id !== trusted.webContentsId ||
      !frame ||
      frame !== event.sender.mainFrame ||
      !sameDocument(frame.url, trusted.url)
    ) {
      opts.log(`refused an IPC message from an unknown sender (${frame?.url ?? 'no frame'})`);
      return refused('forbidden', 403, 'This message does not come from the Callbench window');
    }
    if (typeof name !== 'string')
      return refused('unknown_operation', 404, 'The operation name must be a string');
    const body = input ?? {};
    if (typeof body !== 'object' || Array.isArray(body))
      return refused('validation_error', 400, 'The input must be an object', [
        { path: '', message: 'must be an object' },
      ]);
    try {
      const own = Object.hasOwn(opts.desktop, name)
        ? opts.desktop[name as DesktopOperationName]
        : undefined;
      if (own) {
        const parsed = own.input.safeParse(body);
        if (!parsed.success) {
          const details = parsed.error.issues.map((i) => ({
            path: i.path.join('.'),
            message: i.message,
          }));
          return refused(
            'validation_error',
            400,
            `Invalid input: ${details.map((d) => `${d.path || 'input'} ${d.message}`).join('; ')}`,
            details,
          );
        }
        // parsed.data is the input of this very operation: its schema just accepted it.
        const handle = own.handler as (input: unknown) => unknown;
        return { ok: true, status: 200, data: await handle(parsed.data) };
      }
      if (!opts.operations.has(name))
        return refused('unknown_operation', 404, `There is no operation named '${name}'`);
      const { status, data } = await opts.invoke(name, body);
      return { ok: true, status, data };
    } catch (err) {
      const { error, unexpected } = toAppError(err, randomUUID());
      if (unexpected) opts.log(`operation ${name} failed: ${(err as Error).message}`);
      return refused(error.code, error.status, error.message, error.details);
    }
  };
}

/** The same page, whatever its hash (the renderer routes with it). */
function sameDocument(a: string, b: string): boolean {
  return a.split('#')[0] === b.split('#')[0];
}
