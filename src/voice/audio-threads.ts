import { Worker, type TransferListItem } from 'node:worker_threads';
import { sileroThread, type SileroThread } from '../audio/silero-vad.js';
import { outboundGuardAllowList } from '../net/guard.js';
import { responseCap } from '../net/outbound.js';
import type {
  CallFacts,
  DialPlan,
  FromAudioThread,
  ToAudioThread,
} from './audio-thread-protocol.js';
import type { CallSession } from './call-session.js';
import { RemoteCall, type AudioThreadLink } from './remote-call.js';

/**
 * The engine's audio threads (audio-worker.ts): the frame path of every live call runs on one of
 * them, so that HTTP, the store, scoring and events on the engine's thread never delay a frame.
 * A call goes to the thread with the fewest calls. Threads start with the first call that needs
 * them, and again after one stopped; a thread that stops (a crash, running out of memory) ends
 * its calls `dropped` with the reason. They hold no native session (Silero stays on its own
 * thread, reached by a port), so closing may end them outright once their calls are hung up.
 */

/** The audio thread's code: beside this module from the sources (tsx), else the bundle's. */
const workerScript = (): URL =>
  new URL(
    import.meta.url.endsWith('.ts') ? './audio-worker-from-source.mjs' : './audio-worker.mjs',
    import.meta.url,
  );

/** How long a closing thread gets to hang its calls up before it is ended. */
const SHUTDOWN_GRACE_MS = 3_000;

interface Waiting {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

interface AudioThread {
  worker: Worker;
  calls: Map<number, RemoteCall>;
  /** Calls being dialled: counted as the thread's while they are. */
  dialling: number;
  waiting: Map<number, Waiting>;
  /** The Silero thread its port leads to (null: none given yet). */
  silero: SileroThread | null;
  /** Why it stopped; null while it runs. */
  stopped: string | null;
  closing: boolean;
  /** How its calls and the pool reach it (one per thread). */
  link: AudioThreadLink;
}

/** What the engine asks to dial on an audio thread. */
export interface RemoteDial {
  plan: Omit<DialPlan, 'outbound' | 'responseCap'>;
  signal: AbortSignal;
}

export interface AudioThreads {
  /** Dials on the least busy thread; the call's frames run there once it starts. */
  dial(input: RemoteDial): Promise<CallSession>;
  /** Bytes of heap and external memory the running audio threads use. */
  memory(): Promise<number>;
  /** The running threads (tests end one to see its calls fail). */
  workers(): Worker[];
  /** Hangs every call up and ends the threads. */
  close(): Promise<void>;
}

function errorOf(e: { name: string; message: string }): Error {
  const err = new Error(e.message);
  err.name = e.name;
  return err;
}

function lose(thread: AudioThread, reason: string): void {
  thread.stopped ??= reason;
  const waiting = [...thread.waiting.values()];
  thread.waiting.clear();
  for (const w of waiting) w.reject(new Error(reason));
  for (const call of thread.calls.values()) call.lost(reason);
  thread.calls.clear();
}

function receive(thread: AudioThread, message: FromAudioThread): void {
  if ('reports' in message) {
    for (const r of message.reports) thread.calls.get(r.call)?.apply(r);
    return;
  }
  const waiting = thread.waiting.get(message.reply);
  if (!waiting) return;
  thread.waiting.delete(message.reply);
  if ('error' in message) waiting.reject(errorOf(message.error));
  else waiting.resolve(message.value);
}

/** A thread is kept referenced while it has calls or answers to give: an idle one lets the process end. */
function holdWhileBusy(thread: Omit<AudioThread, 'link'>): void {
  if (thread.calls.size || thread.dialling || thread.waiting.size) thread.worker.ref();
  else thread.worker.unref();
}

function startThread(nextRequest: () => number): AudioThread {
  // Flags on the parent's command line are about its own entry and loaders; V8's reach the thread.
  const worker = new Worker(workerScript(), { execArgv: [] });
  const state = {
    worker,
    calls: new Map<number, RemoteCall>(),
    dialling: 0,
    waiting: new Map<number, Waiting>(),
    silero: null,
    stopped: null,
    closing: false,
  };
  const thread: AudioThread = Object.assign(state, { link: linkTo(state, nextRequest) });
  worker.on('message', (message: FromAudioThread) => {
    receive(thread, message);
    holdWhileBusy(thread);
  });
  worker.on('error', (err) => lose(thread, `the audio thread failed: ${err.message}`));
  worker.on('exit', (code) =>
    lose(
      thread,
      thread.closing ? 'the engine stopped' : `the audio thread stopped (exit code ${code})`,
    ),
  );
  worker.unref();
  return thread;
}

function linkTo(thread: Omit<AudioThread, 'link'>, nextRequest: () => number): AudioThreadLink {
  const post = (message: ToAudioThread, transfer?: TransferListItem[]) => {
    if (!thread.stopped) thread.worker.postMessage(message, transfer);
  };
  return {
    post,
    nextRequest,
    ask<T>(message: ToAudioThread & { req: number }): Promise<T> {
      if (thread.stopped) return Promise.reject(new Error(thread.stopped));
      return new Promise<T>((resolve, reject) => {
        thread.waiting.set(message.req, { resolve: resolve as (v: unknown) => void, reject });
        thread.worker.ref();
        post(message);
      });
    },
    forget(call: number) {
      thread.calls.delete(call);
      holdWhileBusy(thread);
    },
  };
}

/** Gives the thread a line to the engine's Silero thread, where it has none to this one yet. */
async function wireSilero(thread: AudioThread): Promise<void> {
  let silero: SileroThread | null = null;
  let failure = 'Silero VAD could not load';
  try {
    silero = await sileroThread();
  } catch (err) {
    failure = (err as Error).message;
  }
  if (silero && thread.silero === silero && !silero.failed) return;
  const port = silero?.attachPort() ?? null;
  thread.silero = silero;
  const message: ToAudioThread = { op: 'silero', port, failure };
  thread.worker.postMessage(message, port ? [port] : []);
}

export function createAudioThreads(size: number): AudioThreads {
  const threads: (AudioThread | null)[] = Array.from({ length: Math.max(1, size) }, () => null);
  let nextRequest = 1;
  let nextCall = 1;
  let closed = false;
  const request = () => nextRequest++;

  const leastBusy = (): AudioThread => {
    let best: AudioThread | null = null;
    for (let slot = 0; slot < threads.length; slot++) {
      let thread = threads[slot];
      if (!thread || thread.stopped) thread = threads[slot] = startThread(request);
      const load = thread.calls.size + thread.dialling;
      if (!best || load < best.calls.size + best.dialling) best = thread;
    }
    return best!;
  };

  async function dial({ plan, signal }: RemoteDial): Promise<CallSession> {
    if (closed) throw new Error('the engine is stopping');
    const thread = leastBusy();
    thread.dialling++;
    thread.worker.ref();
    const { link } = thread;
    const id = nextCall++;
    const cancel = () => link.post({ op: 'cancel', call: id });
    signal.addEventListener('abort', cancel, { once: true });
    try {
      // Silero's thread starts (once a process) before dialling, never in a call's time.
      await wireSilero(thread);
      const facts = await link.ask<CallFacts>({
        op: 'dial',
        req: request(),
        call: id,
        plan: { ...plan, outbound: outboundGuardAllowList(), responseCap: responseCap() },
      });
      const call = new RemoteCall(id, facts, link);
      thread.calls.set(id, call);
      return call;
    } finally {
      signal.removeEventListener('abort', cancel);
      thread.dialling--;
      holdWhileBusy(thread);
    }
  }

  async function closeThread(thread: AudioThread): Promise<void> {
    thread.closing = true;
    if (!thread.stopped) {
      const done = thread.link.ask<null>({ op: 'shutdown', req: request() }).catch(() => null);
      const grace = new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref());
      await Promise.race([done, grace]);
    }
    await thread.worker.terminate();
  }

  return {
    dial,
    async memory() {
      const running = threads.filter((t): t is AudioThread => t !== null && !t.stopped);
      const sizes = await Promise.all(
        running.map((t) =>
          t.link
            .ask<{ heapUsed: number; external: number }>({ op: 'memory', req: request() })
            .then((m) => m.heapUsed + m.external)
            .catch(() => 0),
        ),
      );
      return sizes.reduce((a, b) => a + b, 0);
    },
    workers: () => threads.flatMap((t) => (t && !t.stopped ? [t.worker] : [])),
    async close() {
      closed = true;
      const running = threads.splice(0).filter((t): t is AudioThread => t !== null);
      await Promise.all(running.map(closeThread));
    },
  };
}
