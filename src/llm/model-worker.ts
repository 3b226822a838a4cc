import { getHeapStatistics } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import { useOutboundGuard } from '../net/guard.js';
import { createModelClient } from './client.js';
import type { ModelThreadReply, ModelThreadRequest } from './model-threads.js';
import { emptyUsage, ModelError, type ModelClient } from './types.js';

/** A model thread: one SDK client per connection, one model call per message, its usage sent back with the answer. */
const port = parentPort!;
const clients = new Map<string, ModelClient>();

async function answer(request: ModelThreadRequest): Promise<ModelThreadReply> {
  if (request.kind === 'heap') {
    (globalThis as { gc?: () => void }).gc?.();
    return {
      id: request.id,
      heapUsed: process.memoryUsage().heapUsed,
      heapLimit: getHeapStatistics().heap_size_limit,
    };
  }
  const usage = emptyUsage();
  try {
    useOutboundGuard(request.outbound);
    let complete = clients.get(request.key);
    if (!complete) {
      // Settings may change connections many times in a long session; the old clients go.
      if (clients.size >= 16) clients.clear();
      clients.set(request.key, (complete = createModelClient(request.connection, request.policy)));
    }
    return { id: request.id, usage, completion: await complete(request.request, usage) };
  } catch (err) {
    return {
      id: request.id,
      usage,
      error: {
        message: (err as Error).message,
        status: err instanceof ModelError ? err.status : null,
      },
    };
  }
}

port.on('message', (request: ModelThreadRequest) => {
  void answer(request).then((reply) => port.postMessage(reply));
});
