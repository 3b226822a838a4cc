import { parentPort, workerData } from 'node:worker_threads';
import { runHere, type CompareThreadReply, type CompareThreadRequest } from './compare-thread.js';

/**
 * The compare thread (./compare-thread.ts): a comparison's score or voice bootstrap runs here
 * while the engine's thread does the rest. The same functions as on the engine's thread, so the
 * intervals are the same wherever they ran.
 */
const port = parentPort!;
port.on('message', (request: CompareThreadRequest) => {
  let reply: CompareThreadReply;
  try {
    reply = { id: request.id, result: runHere(request) };
  } catch (err) {
    reply = { id: request.id, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});
// Up: the asking thread reads this flag without waiting for the message below.
Atomics.store((workerData as { loaded: Int32Array }).loaded, 0, 1);
port.postMessage({ ready: true } satisfies CompareThreadReply);
