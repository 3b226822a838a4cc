import { Worker } from 'node:worker_threads';
import type { PacingStats } from '../../src/audio/pacer.js';

/**
 * The machine's floor for a frame clock: a bare pacer on a thread of its own, started now; `stop`
 * answers how late its frames were. A figure of the engine's audio thread can be no better.
 */
export function startControlPacer(): { stop(): Promise<PacingStats> } {
  const worker = new Worker(new URL('./control-pacer-worker.mjs', import.meta.url), {
    execArgv: [],
  });
  return {
    async stop() {
      const stats = new Promise<PacingStats>((resolve) => worker.once('message', resolve));
      worker.postMessage('stop');
      const answer = await stats;
      await worker.terminate();
      return answer;
    },
  };
}
