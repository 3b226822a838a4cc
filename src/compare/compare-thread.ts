import { Worker } from 'node:worker_threads';
import { DEFAULT_RESAMPLES } from './bootstrap-options.js';
import {
  sharedPairedBootstrap,
  sharedPlan,
  type SharedPlan,
  type PairQuantities,
  type SharedBootstrapOptions,
  type SharedBootstrapResult,
} from './bootstrap-shared.js';
import {
  voiceBootstrap,
  type CallValues,
  type VoiceBootstrapOptions,
  type VoiceBootstrapResult,
} from './voice-bootstrap.js';
import { drawClaimed, type SplitWork } from './split-bootstraps.js';

/*
 * A comparison's bootstraps on a thread of their own. Two executions of 1,000 simulations take ten
 * million draws for the score intervals and about as much work for the voice rows: with one of
 * them here, the engine's thread does the other and the rest of the comparison meanwhile, on
 * another core where there is one. The thread runs the same functions (./compare-worker.ts), so
 * an interval is the same wherever it ran, and the asking thread runs them itself whenever the
 * thread cannot: before it has started (it starts with the first large bootstrap asked of it and
 * is used once it is up), after it stopped or failed, or where threads cannot start. An idle
 * thread does not keep the process alive; the engine stops it when it stops (closeCompareThread).
 * It also helps draw a score bootstrap split in chunks (./split-bootstraps.ts): asked after a
 * comparison's voice bootstrap, it claims whatever score chunks the asking thread has not yet.
 */

/** What the thread is asked: a bootstrap, with the same arguments as on this thread. */
export type CompareJob =
  | { kind: 'scores'; pairs: PairQuantities[]; options: SharedBootstrapOptions }
  | {
      kind: 'voice';
      baseline: CallValues[];
      candidate: CallValues[];
      options: VoiceBootstrapOptions;
    }
  | { kind: 'split'; work: SplitWork };

/** A split job's answer: how many chunks this thread drew. */
interface Drew {
  drew: number;
}

type ResultOf<J extends CompareJob> = J extends { kind: 'scores' }
  ? SharedBootstrapResult
  : J extends { kind: 'voice' }
    ? VoiceBootstrapResult
    : Drew;

export type CompareThreadRequest = CompareJob & { id: number };

export type CompareThreadReply =
  | { ready: true }
  | { id: number; result: SharedBootstrapResult | VoiceBootstrapResult | Drew }
  | { id: number; error: string };

/** Draws below which a thread's round trip would cost more than it saves. */
const THREAD_DRAWS = 1_000_000;

interface Thread {
  worker: Worker;
  /** It has loaded its code and answers (until then bootstraps run on the asking thread). */
  ready: boolean;
  /**
   * Set to 1 by the thread once its code is loaded, read without a turn of the event loop: a
   * caller comparing again and again without one (a script, a bench) still finds it up.
   */
  loaded: Int32Array;
  /** Stopped on purpose (closeCompareThread), not failed. */
  closing: boolean;
  /** Each request's settle: its result, or null to run it on the asking thread instead. */
  pending: Map<number, (result: CompareThreadReply | null) => void>;
}

let thread: Thread | null = null;
/** Threads could not start here: bootstraps run on the asking thread from now on. */
let unavailable = false;
let nextId = 1;
/** Bootstraps the thread has answered (the tests see where the draws ran). */
let answered = 0;

/** The thread's code: beside this module from the sources (through tsx), else the bundle's file. */
const workerScript = (): URL =>
  new URL(
    import.meta.url.endsWith('.ts') ? './compare-worker-from-source.mjs' : './compare-worker.mjs',
    import.meta.url,
  );

function onReply(t: Thread, reply: CompareThreadReply): void {
  if ('ready' in reply) {
    t.ready = true;
    return;
  }
  const settle = t.pending.get(reply.id);
  if (!settle) return;
  t.pending.delete(reply.id);
  if (t.pending.size === 0) t.worker.unref();
  // A failure there (bad input) runs again here, where it throws to the caller.
  if ('result' in reply) answered++;
  settle('result' in reply ? reply : null);
}

function start(): Thread | null {
  let worker: Worker;
  const loaded = new Int32Array(new SharedArrayBuffer(4));
  try {
    // The parent's flags are about its own entry (loaders, --eval); some are refused in a worker.
    worker = new Worker(workerScript(), { execArgv: [], workerData: { loaded } });
  } catch {
    unavailable = true;
    return null;
  }
  const t: Thread = { worker, ready: false, loaded, closing: false, pending: new Map() };
  worker.unref();
  worker.on('message', (reply: CompareThreadReply) => onReply(t, reply));
  const stopped = () => {
    if (thread === t) thread = null;
    // A thread that never came up (its code missing or refused) would fail again each time.
    if (!t.ready && !t.closing) unavailable = true;
    const waiting = [...t.pending.values()];
    t.pending.clear();
    for (const settle of waiting) settle(null);
  };
  worker.on('error', stopped);
  worker.on('exit', stopped);
  return t;
}

function ask(t: Thread, job: CompareJob): Promise<CompareThreadReply | null> {
  return new Promise((resolve) => {
    const id = nextId++;
    t.pending.set(id, resolve);
    t.worker.ref();
    t.worker.postMessage({ ...job, id } satisfies CompareThreadRequest);
  });
}

/** Whether the thread answers: its ready message seen, or its loaded flag set. */
function isUp(t: Thread): boolean {
  t.ready ||= Atomics.load(t.loaded, 0) === 1;
  return t.ready;
}

/** The job's bootstrap, run on this thread. */
export function runHere<J extends CompareJob>(job: J): ResultOf<J> {
  const result =
    job.kind === 'scores'
      ? sharedPairedBootstrap(job.pairs, job.options)
      : job.kind === 'voice'
        ? voiceBootstrap(job.baseline, job.candidate, job.options)
        : { drew: drawClaimed(job.work, lazyPlan(job.work)) };
  return result as ResultOf<J>;
}

/** Roughly the job's draws: what makes it worth a round trip to the thread. */
function drawsOf(job: CompareJob): number {
  if (job.kind === 'split') return drawsOf({ kind: 'scores', ...job.work });
  const resamples = job.options.resamples ?? DEFAULT_RESAMPLES;
  const items =
    job.kind === 'scores' ? job.pairs.length : job.baseline.length + job.candidate.length;
  return items * resamples;
}

/** The work's plan, made on first use. */
function lazyPlan(work: SplitWork): () => SharedPlan {
  let plan: SharedPlan | null = null;
  return () => (plan ??= sharedPlan(work.pairs, work.options));
}

/**
 * Asks the compare thread to draw chunks of a split score bootstrap (./split-bootstraps.ts) when
 * the work is large and the thread is up. Answers once it has drawn every chunk it claimed: true, or
 * false when it was not asked or stopped (its claimed chunks may then be undrawn).
 */
export async function offerToThread(job: CompareJob & { kind: 'split' }): Promise<boolean> {
  if (drawsOf(job) < THREAD_DRAWS || unavailable) return false;
  thread ??= start();
  if (!thread || !isUp(thread)) return false;
  const reply = await ask(thread, job);
  return reply !== null && 'result' in reply;
}

/**
 * The job's bootstrap, on the compare thread when the work is large and the thread is up, else on
 * this thread (before answering). The same result either way.
 */
export async function runOffThread<J extends CompareJob>(job: J): Promise<ResultOf<J>> {
  if (drawsOf(job) >= THREAD_DRAWS && !unavailable) {
    thread ??= start();
    if (thread && isUp(thread)) {
      const reply = await ask(thread, job);
      if (reply && 'result' in reply) return reply.result as ResultOf<J>;
    }
  }
  return runHere(job);
}

/**
 * Starts the compare thread if it is not running and answers once it is up: true, or false where
 * threads cannot start (or it stopped first). Comparisons never wait for it.
 */
export async function warmCompareThread(): Promise<boolean> {
  if (unavailable) return false;
  thread ??= start();
  const t = thread;
  if (!t) return false;
  if (t.ready) return true;
  return new Promise<boolean>((resolve) => {
    t.worker.once('message', () => resolve(t.ready));
    t.worker.once('exit', () => resolve(false));
  });
}

/**
 * Whether the compare thread is up, read without a turn of the event loop (a caller that never
 * yields still finds it up once its code has loaded).
 */
export const compareThreadUp = (): boolean => thread !== null && isUp(thread);

/** How many bootstraps the compare thread has answered in this process. */
export const compareThreadAnswered = (): number => answered;

/** Stops the compare thread (engine stop); a later large comparison starts another. */
export async function closeCompareThread(): Promise<void> {
  const t = thread;
  thread = null;
  if (!t) return;
  t.closing = true;
  await t.worker.terminate();
}
