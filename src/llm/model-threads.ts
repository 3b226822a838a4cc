import { Worker } from 'node:worker_threads';
import { outboundGuardAllowList } from '../net/guard.js';
import { responseCap } from '../net/outbound.js';
import {
  DEFAULT_MODEL_POLICY,
  emptyUsage,
  ModelError,
  type Completion,
  type CompletionRequest,
  type ModelClient,
  type ModelConnection,
  type ModelPolicy,
  type Usage,
} from './types.js';

/** What the engine asks of a model thread: a model call (with its connection), or its heap in use. */
export type ModelThreadRequest =
  | {
      kind: 'call';
      id: number;
      key: string;
      connection: ModelConnection;
      policy: ModelPolicy;
      request: CompletionRequest;
      /** The allow list of the outbound guard in force (null: none): see useOutboundGuard. */
      outbound: string[] | null;
    }
  | { kind: 'heap'; id: number };

export type ModelThreadReply =
  | ({ id: number; usage: Usage } & (
      { completion: Completion } | { error: { message: string; status: number | null } }
    ))
  | { id: number; heapUsed: number; heapLimit: number };

interface Thread {
  worker: Worker;
  pending: Map<number, (reply: ModelThreadReply) => void>;
}

/**
 * The model thread's code: beside this module when the engine runs from its TypeScript sources
 * (the CLI and the tests, through tsx), else the desktop bundle's sibling file.
 */
const workerScript = (): URL =>
  new URL(
    import.meta.url.endsWith('.ts') ? './model-worker-from-source.mjs' : './model-worker.mjs',
    import.meta.url,
  );

/**
 * A model thread's heap. Left to V8's defaults a worker takes the process's multi-gigabyte limit,
 * and with it the growth V8 allows a heap that large (up to 4x what is live before a full
 * collection): scoring 10,000 calls with a judge, two threads holding ~22 MB each started at
 * 125 MB of heap and grew by 18 MB. Under a limit below 256 MB V8 grows a heap by a small factor
 * only (the same threads: 88 MB, growing by 9), and this one still leaves room for the largest
 * answer the response cap lets in, parsed. A thread that runs out anyway stops: its calls fail
 * with the reason and the next call starts a fresh one (startThread).
 */
const MODEL_THREAD_LIMITS = { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 16 };

/** Every call waiting on the thread fails with the reason (it stopped, or failed). */
function failAll(thread: Thread, reason: string): void {
  const waiting = [...thread.pending.values()];
  thread.pending.clear();
  for (const settle of waiting)
    settle({ id: 0, usage: emptyUsage(), error: { message: reason, status: null } });
}

/** A new model thread in `slot`; when it exits, the slot empties and its calls fail. */
function startThread(threads: (Thread | null)[], slot: number): Thread {
  // The parent's command line flags are about its own entry (--input-type, --eval, loaders) and
  // some are refused in a worker; V8's (--expose-gc) are the process's and reach the thread anyway.
  const thread: Thread = {
    worker: new Worker(workerScript(), { execArgv: [], resourceLimits: MODEL_THREAD_LIMITS }),
    pending: new Map(),
  };
  thread.worker.on('message', (reply: ModelThreadReply) => {
    const settle = thread.pending.get(reply.id);
    if (!settle) return;
    thread.pending.delete(reply.id);
    if (!thread.pending.size) thread.worker.unref();
    settle(reply);
  });
  thread.worker.on('error', (err) => failAll(thread, `the model thread failed: ${err.message}`));
  thread.worker.on('exit', (code) => {
    if (threads[slot] === thread) threads[slot] = null;
    failAll(thread, `the model thread stopped (exit code ${code})`);
  });
  return (threads[slot] = thread);
}

/** Sends the request; the reply settles it (the thread is kept referenced while calls wait). */
const ask = (thread: Thread, request: ModelThreadRequest) =>
  new Promise<ModelThreadReply>((resolve) => {
    thread.pending.set(request.id, resolve);
    thread.worker.ref();
    thread.worker.postMessage(request);
  });

/** What each running thread says of its heap (its use after a full collection where allowed). */
async function heapsOf(threads: (Thread | null)[], id: () => number) {
  const running = threads.filter((thread): thread is Thread => thread !== null);
  const replies = await Promise.all(
    running.map((thread) => ask(thread, { kind: 'heap', id: id() })),
  );
  return replies.flatMap((reply) => ('heapUsed' in reply ? [reply] : []));
}

/**
 * Model calls made on threads of their own. The SDKs' and HTTP work of model calls is most of a
 * simulation's CPU time: off the engine's thread it runs beside the conversations, scoring and
 * store writes, on other cores where there are some, and leaves the desktop app's main process
 * free. A call goes to the thread with the fewest calls in flight. Threads start with the first
 * call that needs them, and again after one died; a call in flight when its thread died fails with
 * the reason. An idle thread does not keep the process alive.
 */
export function createModelThreads(size: number) {
  const threads: (Thread | null)[] = Array.from({ length: Math.max(1, size) }, () => null);
  let nextId = 1;
  /** The threads `warm` started last, until each has answered. */
  let warming: Promise<void> = Promise.resolve();
  const start = (slot: number): Thread => startThread(threads, slot);

  const leastBusy = (): Thread => {
    let best: Thread | null = null;
    for (let slot = 0; slot < threads.length; slot++) {
      const thread = threads[slot] ?? start(slot);
      if (!thread.pending.size) return thread;
      if (!best || thread.pending.size < best.pending.size) best = thread;
    }
    return best!;
  };

  return {
    /** A model client for one connection, its calls made on the model threads. */
    client(connection: ModelConnection, policy: ModelPolicy = DEFAULT_MODEL_POLICY): ModelClient {
      const key = JSON.stringify([connection, policy]);
      return async (request: CompletionRequest, usage: Usage): Promise<Completion> => {
        let thread: Thread;
        try {
          thread = leastBusy();
        } catch (err) {
          throw new ModelError(`the model thread could not start: ${(err as Error).message}`, null);
        }
        const reply = await ask(thread, {
          kind: 'call',
          id: nextId++,
          key,
          connection,
          // The thread has module state of its own: the engine's answer cap travels with each call.
          policy: { ...policy, maxResponseBytes: policy.maxResponseBytes ?? responseCap() },
          request,
          // ...and so does a team server's refusal of internal addresses.
          outbound: outboundGuardAllowList(),
        });
        if (!('usage' in reply))
          throw new ModelError('the model thread answered out of turn', null);
        usage.llm_calls += reply.usage.llm_calls;
        usage.input_tokens += reply.usage.input_tokens;
        usage.cached_input_tokens += reply.usage.cached_input_tokens;
        usage.output_tokens += reply.usage.output_tokens;
        if ('error' in reply) throw new ModelError(reply.error.message, reply.error.status);
        return reply.completion;
      };
    },
    /**
     * Starts the threads not running yet and waits until each answers (its SDKs loaded, about a
     * second): an audio call's first model call then pays for no start-up inside the call's clock.
     */
    async warm(): Promise<void> {
      const started = threads.flatMap((thread, slot) => (thread ? [] : [start(slot)]));
      const answered = started.map((thread) => ask(thread, { kind: 'heap', id: nextId++ }));
      // A call that asks while another's threads still start waits for them too.
      if (answered.length) warming = Promise.all([warming, ...answered]).then(() => undefined);
      await warming;
    },
    /** Bytes of JavaScript heap the running model threads use (after a full collection where the process allows one). */
    async heapUsed(): Promise<number> {
      const heaps = await heapsOf(threads, () => nextId++);
      return heaps.reduce((sum, heap) => sum + heap.heapUsed, 0);
    },
    /** The heap limit of each running thread, in bytes (MODEL_THREAD_LIMITS bounds it). */
    async heapLimits(): Promise<number[]> {
      return (await heapsOf(threads, () => nextId++)).map((heap) => heap.heapLimit);
    },
    async close(): Promise<void> {
      const running = threads.map((thread, slot) => {
        threads[slot] = null;
        return thread;
      });
      await Promise.all(
        running.map(async (thread) => {
          if (!thread) return;
          failAll(thread, 'the engine stopped');
          await thread.worker.terminate();
        }),
      );
    },
  };
}
