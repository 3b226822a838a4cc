import { Worker } from 'node:worker_threads';
import { outboundGuardAllowList } from '../net/guard.js';
import type { ModelConnection, ModelPolicy } from '../llm/types.js';
import type { Metric } from '../store/scorecards.js';
import type { StoredCall } from '../store/calls.js';
import type { Score } from './scoring.js';

/*
 * Production calls are scored on a thread of their own. Scoring a call allocated some 100 KB on
 * the engine's thread (the call as a conversation, the judge's prompt and answer, the results),
 * shared with the store, the HTTP server and the sync, and V8 promoted about 5 KB of each call to
 * its old generation, garbage kept until its next full collection (due at up to four times what
 * is live). Here the thread's heap, bounded by SCORE_THREAD_LIMITS, takes that work and collects
 * its garbage at its own pace; the engine's thread keeps the store's part of each call (claim,
 * read, record), which still promotes about 3 KB of each (the production benchmark).
 */

/** What a scoring thread needs to score an agent's calls: the metrics and the judge's model. */
export interface ThreadSetup {
  /** Names this setup: a thread is sent each setup once, and keeps it for the calls that follow. */
  id: number;
  metrics: Metric[];
  passThreshold: number;
  /** The judge role's model (null: none configured); `key` names the connection and policy. */
  judge: { key: string; connection: ModelConnection; policy: ModelPolicy } | null;
}

export type ScoreThreadRequest =
  | {
      kind: 'score';
      id: number;
      call: StoredCall;
      /** The setup's id, with the setup itself the first time this thread is asked with it. */
      setupId: number;
      setup?: ThreadSetup;
      /** The allow list of the outbound guard in force (null: none): see useOutboundGuard. */
      outbound: string[] | null;
    }
  | { kind: 'heap'; id: number };

export type ScoreThreadReply =
  { id: number; scored: Score } | { id: number; error: string } | { id: number; heapUsed: number };

/**
 * A scoring thread's heap, as the model threads' (src/llm/model-threads.ts): under a limit below
 * 256 MB V8 grows a heap by a small factor only, and this one leaves room for the largest judge
 * answer the response cap lets in, parsed.
 */
const SCORE_THREAD_LIMITS = { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 16 };

interface Thread {
  worker: Worker;
  pending: Map<number, (reply: ScoreThreadReply) => void>;
  /** The ids of the setups this thread was sent (it keeps as many: SETUPS_KEPT). */
  setups: number[];
  /** Ends the thread once it has been idle for IDLE_MS (set while nothing waits on it). */
  idle: NodeJS.Timeout | null;
}

/**
 * A thread idle this long ends, its heap handed back: production calls come in bursts (a sync's
 * page, a backfill), and the next burst starts a thread again in well under a second.
 */
const IDLE_MS = 60_000;

/** Ends an idle thread; its slot is emptied first, so that the next call starts a fresh one. */
function retire(threads: (Thread | null)[], slot: number, thread: Thread): void {
  if (threads[slot] !== thread || thread.pending.size) return;
  threads[slot] = null;
  void thread.worker.terminate();
}

/** Setups a thread keeps: a setup lasts a second or so (cachedSetups), one per monitored agent. */
export const SETUPS_KEPT = 64;

/** Whether the thread still has this setup; if not, it is sent with this request. */
function sendsSetup(thread: Thread, id: number): boolean {
  if (thread.setups.includes(id)) return false;
  thread.setups.push(id);
  if (thread.setups.length > SETUPS_KEPT) thread.setups.shift();
  return true;
}

/** The thread's code: beside this module from the TypeScript sources, else the bundle's sibling. */
const workerScript = (): URL =>
  new URL(
    import.meta.url.endsWith('.ts') ? './score-worker-from-source.mjs' : './score-worker.mjs',
    import.meta.url,
  );

/** Every call waiting on the thread fails with the reason. */
function failAll(thread: Thread, reason: string): void {
  const waiting = [...thread.pending.values()];
  thread.pending.clear();
  for (const settle of waiting) settle({ id: 0, error: reason });
}

/** A new scoring thread in `slot`; when it exits, the slot empties and its calls fail. */
function startThread(threads: (Thread | null)[], slot: number): Thread {
  const thread: Thread = {
    worker: new Worker(workerScript(), { execArgv: [], resourceLimits: SCORE_THREAD_LIMITS }),
    pending: new Map(),
    setups: [],
    idle: null,
  };
  thread.worker.on('message', (reply: ScoreThreadReply) => {
    const settle = thread.pending.get(reply.id);
    if (!settle) return;
    thread.pending.delete(reply.id);
    if (!thread.pending.size) {
      thread.worker.unref();
      thread.idle = setTimeout(() => retire(threads, slot, thread), IDLE_MS);
      thread.idle.unref();
    }
    settle(reply);
  });
  thread.worker.on('error', (err) => failAll(thread, `the scoring thread failed: ${err.message}`));
  thread.worker.on('exit', (code) => {
    if (threads[slot] === thread) threads[slot] = null;
    failAll(thread, `the scoring thread stopped (exit code ${code})`);
  });
  return (threads[slot] = thread);
}

/** Sends the request; the reply settles it (the thread is kept referenced while calls wait). */
const ask = (thread: Thread, request: ScoreThreadRequest) =>
  new Promise<ScoreThreadReply>((resolve) => {
    if (thread.idle) clearTimeout(thread.idle);
    thread.idle = null;
    thread.pending.set(request.id, resolve);
    thread.worker.ref();
    thread.worker.postMessage(request);
  });

/**
 * Threads that score imported calls: a call goes to the thread with the fewest in flight; threads
 * start with the first call that needs them, and again after one died (a call in flight on it
 * fails with the reason) or ended idle. An idle thread does not keep the process alive.
 */
export function createScoreThreads(size: number) {
  const threads: (Thread | null)[] = Array.from({ length: Math.max(1, size) }, () => null);
  let nextId = 1;

  const leastBusy = (): Thread => {
    let best: Thread | null = null;
    for (let slot = 0; slot < threads.length; slot++) {
      const thread = threads[slot] ?? startThread(threads, slot);
      if (!thread.pending.size) return thread;
      if (!best || thread.pending.size < best.pending.size) best = thread;
    }
    return best!;
  };

  return {
    /** The call scored on the setup's metrics and judge; an error when scoring itself failed. */
    async score(call: StoredCall, setup: ThreadSetup): Promise<Score> {
      const thread = leastBusy();
      const reply = await ask(thread, {
        kind: 'score',
        id: nextId++,
        call,
        setupId: setup.id,
        ...(sendsSetup(thread, setup.id) ? { setup } : {}),
        outbound: outboundGuardAllowList(),
      });
      if ('scored' in reply) return reply.scored;
      throw new Error('error' in reply ? reply.error : 'the scoring thread answered out of turn');
    },
    /** Bytes of JavaScript heap the running threads use (after a full collection where allowed). */
    async heapUsed(): Promise<number> {
      const running = threads.filter((thread): thread is Thread => thread !== null);
      const replies = await Promise.all(
        running.map((thread) => ask(thread, { kind: 'heap', id: nextId++ })),
      );
      return replies.reduce((sum, r) => sum + ('heapUsed' in r ? r.heapUsed : 0), 0);
    },
    async close(): Promise<void> {
      const running = threads.splice(0, threads.length, ...threads.map(() => null));
      await Promise.all(
        running.map(async (thread) => {
          if (!thread) return;
          if (thread.idle) clearTimeout(thread.idle);
          failAll(thread, 'the engine stopped');
          await thread.worker.terminate();
        }),
      );
    },
  };
}

export type ScoreThreads = ReturnType<typeof createScoreThreads>;
