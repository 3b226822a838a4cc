// A bare 20 ms pacer (the engine's own, handing over nothing) on a thread of its own, at the
// niceness an audio thread asks for: how late the machine lets any such thread run meanwhile.
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';

const { register } = await import('tsx/esm/api');
register();
const { startPacer } = await import('../../src/audio/pacer.ts');
try {
  if (process.platform === 'linux') setPriority(-10);
} catch {
  // As the audio thread: where not allowed, at the default priority.
}
const pacer = startPacer({ frameMs: 20, onFrame: () => undefined });
parentPort.once('message', () => {
  pacer.stop();
  parentPort.postMessage(pacer.stats());
});
