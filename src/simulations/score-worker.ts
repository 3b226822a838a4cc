import { parentPort } from 'node:worker_threads';
import { useOutboundGuard } from '../net/guard.js';
import { createModelClient } from '../llm/client.js';
import { emptyUsage } from '../llm/types.js';
import { callConversation } from './call-conversation.js';
import { modelJudge } from './judge.js';
import { scoreConversation } from './scoring.js';
import type { Judge } from './scoring-types.js';
import {
  SETUPS_KEPT,
  type ScoreThreadReply,
  type ScoreThreadRequest,
  type ThreadSetup,
} from './score-threads.js';

/**
 * A scoring thread (score-threads.ts): one imported call per message, scored as the call
 * conversation on the agent's metrics, the judge asked on this thread (its SDK client kept per
 * connection), the score sent back.
 */
const port = parentPort!;
const judges = new Map<string, Judge>();
/** The setups sent, by id (the engine sends each once, and keeps track of the same number). */
const setups = new Map<number, ThreadSetup>();

function setupOf(request: Extract<ScoreThreadRequest, { kind: 'score' }>): ThreadSetup {
  if (request.setup) {
    setups.set(request.setupId, request.setup);
    if (setups.size > SETUPS_KEPT) setups.delete(setups.keys().next().value!);
  }
  const setup = setups.get(request.setupId);
  if (!setup) throw new Error(`the scoring thread has no setup ${request.setupId}`);
  return setup;
}

function judgeOf(judge: NonNullable<ThreadSetup['judge']>): Judge {
  let found = judges.get(judge.key);
  if (!found) {
    // Settings may change connections many times in a long session; the old judges go.
    if (judges.size >= 16) judges.clear();
    found = modelJudge(createModelClient(judge.connection, judge.policy), emptyUsage());
    judges.set(judge.key, found);
  }
  return found;
}

async function answer(request: ScoreThreadRequest): Promise<ScoreThreadReply> {
  if (request.kind === 'heap') {
    (globalThis as { gc?: () => void }).gc?.();
    return { id: request.id, heapUsed: process.memoryUsage().heapUsed };
  }
  try {
    // Kept first: the engine counts a setup as sent once it posted it, whatever comes of the call.
    const { metrics, passThreshold, judge } = setupOf(request);
    useOutboundGuard(request.outbound);
    const conversation = callConversation(request.call);
    const scored = await scoreConversation(
      metrics,
      conversation,
      passThreshold,
      judge ? judgeOf(judge) : null,
    );
    return { id: request.id, scored };
  } catch (err) {
    return { id: request.id, error: (err as Error).message };
  }
}

port.on('message', (request: ScoreThreadRequest) => {
  void answer(request).then((reply) => port.postMessage(reply));
});
