import { setPriority } from 'node:os';
import { parentPort, type MessagePort } from 'node:worker_threads';
import ort from 'onnxruntime-node';
import type { SileroJudgement, SileroReply, SileroRequest, SileroWindow } from './silero-vad.js';

/**
 * The Silero VAD thread: one ONNX session for every call, each call's recurrent state kept here by
 * its stream number. onnxruntime-node runs a model synchronously (its promise only defers the
 * call), so on the engine's thread twenty calls' windows would hold up the frame clock.
 */
const port = parentPort!;
// The frame clock comes first: a window judged a few ms later only dates nothing later (its
// audio carries its own time), while a late frame is jitter the agent hears. Linux niceness is
// per thread, so this lowers this thread alone; elsewhere it would lower the whole engine.
if (process.platform === 'linux') setPriority(10);
/** Silero v5's recurrent state: [2, batch, 128] floats. */
const STATE_WIDTH = 128;
const STATE_SIZE = 2 * STATE_WIDTH;

let session: ort.InferenceSession | null = null;
/** Each client's streams' recurrent states: the engine's and each audio thread's number streams alike. */
type States = Map<number, Float32Array>;
const rateTensors = {
  8000: new ort.Tensor('int64', BigInt64Array.from([8000n]), []),
  16000: new ort.Tensor('int64', BigInt64Array.from([16000n]), []),
};

/**
 * Windows of one rate that can share a model run: the batch dimension is the stream, so a stream
 * with two windows waiting (its reader caught up after a stall) has its second in the next round.
 */
function rounds(windows: SileroWindow[]): SileroWindow[][] {
  const out: SileroWindow[][] = [];
  const roundOf = new Map<string, number>();
  for (const w of windows) {
    const key = `${w.rate}:${w.stream}`;
    const round = (roundOf.get(key) ?? -1) + 1;
    roundOf.set(key, round);
    const groupKey = round * 2 + (w.rate === 8000 ? 0 : 1);
    (out[groupKey] ??= []).push(w);
  }
  return out.filter((group) => group !== undefined);
}

/** One model run for windows of one rate and of distinct streams; their states move on. */
async function runBatch(
  model: ort.InferenceSession,
  batch: SileroWindow[],
  states: States,
): Promise<number[]> {
  const n = batch.length;
  const length = batch[0]!.input.length;
  const input = new Float32Array(n * length);
  // The state tensor is [layer][stream][unit]: each stream's two layers go in their own places.
  const state = new Float32Array(n * STATE_SIZE);
  batch.forEach((w, b) => {
    input.set(w.input, b * length);
    const own = (!w.reset && states.get(w.stream)) || null;
    if (!own) return;
    state.set(own.subarray(0, STATE_WIDTH), b * STATE_WIDTH);
    state.set(own.subarray(STATE_WIDTH), (n + b) * STATE_WIDTH);
  });
  const out = await model.run({
    input: new ort.Tensor('float32', input, [n, length]),
    state: new ort.Tensor('float32', state, [2, n, STATE_WIDTH]),
    sr: rateTensors[batch[0]!.rate],
  });
  const next = out.stateN!.data as Float32Array;
  const probabilities = out.output!.data as Float32Array;
  batch.forEach((w, b) => {
    const own = new Float32Array(STATE_SIZE);
    own.set(next.subarray(b * STATE_WIDTH, (b + 1) * STATE_WIDTH));
    own.set(next.subarray((n + b) * STATE_WIDTH, (n + b + 1) * STATE_WIDTH), STATE_WIDTH);
    states.set(w.stream, own);
  });
  return batch.map((_, b) => probabilities[b]!);
}

async function judge(windows: SileroWindow[], states: States): Promise<SileroJudgement[]> {
  const judgements: SileroJudgement[] = [];
  for (const batch of rounds(windows)) {
    try {
      if (!session) throw new Error('the Silero model is not loaded');
      const probabilities = await runBatch(session, batch, states);
      batch.forEach((w, b) => judgements.push({ id: w.id, probability: probabilities[b]! }));
    } catch (err) {
      for (const w of batch) judgements.push({ id: w.id, error: (err as Error).message });
    }
  }
  return judgements;
}

async function answer(request: SileroRequest, states: States): Promise<SileroReply | null> {
  switch (request.kind) {
    case 'load':
      try {
        session = await ort.InferenceSession.create(new Uint8Array(request.model), {
          intraOpNumThreads: 1,
          interOpNumThreads: 1,
          executionMode: 'sequential',
        });
        return { kind: 'loaded' };
      } catch (err) {
        return { kind: 'failed', message: (err as Error).message };
      }
    case 'classify':
      return { kind: 'judged', judgements: await judge(request.windows, states) };
    case 'close':
      states.delete(request.stream);
      return null;
    case 'attach':
      // An audio thread's own line to the model: its windows never wait on the engine's thread.
      serve(request.port);
      return null;
  }
}

// One request at a time, in order, whichever client sent it: a stream's windows must meet its
// state one after the other, and the one session runs one model call at a time.
let queue = Promise.resolve();
function serve(client: MessagePort): void {
  const states: States = new Map();
  client.on('message', (request: SileroRequest) => {
    queue = queue.then(async () => {
      const reply = await answer(request, states);
      if (reply) client.postMessage(reply);
    });
  });
  // A client that went (an audio thread stopped) leaves no states behind.
  if (client !== port) client.on('close', () => states.clear());
}
serve(port);
