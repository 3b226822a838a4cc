import { setPriority } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parentPort, type TransferListItem } from 'node:worker_threads';
import { concatPcm } from '../audio/pcm.js';
import { useSileroPort } from '../audio/silero-vad.js';
import { agentVoiceActivity } from '../audio/voice-activity.js';
import { useOutboundGuard } from '../net/guard.js';
import { setResponseCap } from '../net/outbound.js';
import type {
  CallFacts,
  CallReport,
  DialPlan,
  FromAudioThread,
  ToAudioThread,
  WireRecord,
} from './audio-thread-protocol.js';
import type { CallStart } from './call-session.js';
import { noiseBedFor, soundOnCall } from './caller-conditions.js';
import { AGENT_TURNS, CallInbox, LiveCall, type Utterance } from './live-call.js';
import type { AudioCall } from './transport.js';
import { dialerFor } from './transports/index.js';

/** The niceness an audio thread asks for, where it may (0 is the engine's). */
const AUDIO_NICENESS = -10;

/**
 * An audio thread: the frame path of its calls, on a clock no work of the engine's thread can
 * hold up. Each call is dialled here (its socket's frames come and go here), spoken, heard and
 * recorded here, and every frame's state goes to the engine's thread, which decides the turns.
 */
const port = parentPort!;
// A frame is due every 20 ms: where the system lets a thread ask (Linux niceness is per thread,
// and lowering it needs the privilege to), this one is scheduled ahead of the engine's own work.
if (process.platform === 'linux') {
  try {
    setPriority(AUDIO_NICENESS);
  } catch {
    // Not allowed (an ordinary user): it runs at the engine's priority.
  }
}
let outbox: CallReport[] = [];
let transfers: TransferListItem[] = [];

/** Sends the reports made so far: every call's reports of one pacer wake in one message. */
function flush(): void {
  if (!outbox.length) return;
  const message: FromAudioThread = { reports: outbox };
  port.postMessage(message, transfers);
  outbox = [];
  transfers = [];
}

function report(r: CallReport, transfer?: ArrayBuffer): void {
  if (!outbox.length) queueMicrotask(flush);
  outbox.push(r);
  if (transfer) transfers.push(transfer);
}

/** `pcm`, or a copy where it does not own its whole buffer: the buffer is handed over. */
const own = (pcm: Int16Array): Int16Array =>
  pcm.byteOffset === 0 && pcm.byteLength === pcm.buffer.byteLength ? pcm : pcm.slice();

/** The bytes as a view that owns its whole buffer (a copy only where it does not). */
const ownBytes = (b: Buffer): Uint8Array =>
  b.byteOffset === 0 && b.byteLength === b.buffer.byteLength
    ? new Uint8Array(b.buffer, 0, b.byteLength)
    : new Uint8Array(b);

class HostedCall {
  readonly inbox: CallInbox;
  private call: AudioCall | null = null;
  private live: LiveCall | null = null;
  private readonly dialling = new AbortController();
  /** The last line the engine sent; lines are numbered from 1. */
  private acceptedSeq = 0;
  private readonly seqOf = new WeakMap<Utterance, number>();
  private callerSent = 0;
  private agentSent = 0;
  private lineStats: (() => WireRecord['lineStats']) | null = null;
  private bed: Int16Array | null = null;

  constructor(
    readonly id: number,
    private readonly plan: DialPlan,
  ) {
    this.inbox = new CallInbox(plan.lineRate);
    this.inbox.observe = (entry) => report({ k: 'inbox', call: id, entry });
    this.inbox.onEnd = (end) => {
      this.sync();
      report({ k: 'ended', call: id, end });
    };
  }

  async dial(): Promise<CallFacts> {
    const { plan } = this;
    useOutboundGuard(plan.outbound);
    setResponseCap(plan.responseCap);
    const dialer = dialerFor(plan.provider);
    if ('refused' in dialer) throw new Error(dialer.refused);
    // Read (once a thread) before dialling: a missing bed fails the call with nothing dialled.
    this.bed = await noiseBedFor(plan.conditions, plan.noiseDir);
    const call = await dialer.dial({
      ...plan.request,
      events: this.inbox,
      signal: this.dialling.signal,
    });
    this.call = call;
    return {
      sampleRate: call.sampleRate,
      agentTextSource: call.agentTextSource,
      reportsToolCalls: call.reportsToolCalls === true,
      callId: call.callId,
      sendsDtmf: call.sendDtmf !== undefined,
    };
  }

  cancel(): void {
    this.dialling.abort(new Error('cancelled'));
  }

  async start(options: CallStart): Promise<{ startedAt: number }> {
    const call = this.dialled();
    const sound = soundOnCall(this.plan.conditions, this.bed, call.sampleRate);
    this.lineStats = () => sound.line?.stats() ?? null;
    const voiceActivity = await agentVoiceActivity(AGENT_TURNS);
    const live = new LiveCall(call, {
      ...options,
      ...sound,
      voiceActivity,
      onFrame: (now) => this.state('frame', now),
      onAgentTurnEnd: (now) => this.state('turnEnd', now),
      onEnded: (end) => {
        this.sync();
        report({ k: 'ended', call: this.id, end });
      },
    });
    this.live = live;
    live.start();
    this.inbox.attach(live);
    return { startedAt: performance.timeOrigin + live.clockStartedAt! };
  }

  private dialled(): AudioCall {
    if (!this.call) throw new Error('the call was not dialled');
    return this.call;
  }

  /** The frame's state, after whatever the frame added to the speech lists. */
  private state(k: 'frame' | 'turnEnd', now: number): void {
    const live = this.live!;
    this.sync();
    report({
      k,
      call: this.id,
      now,
      busy: live.agentBusy(now),
      idleSeq: live.callerIdle ? this.acceptedSeq : this.acceptedSeq - 1,
      spokenMs: live.agentTurnSpokenMs(now),
    });
  }

  /** Passes on the speech spans timed since the last report, in order. */
  private sync(): void {
    const live = this.live;
    if (!live) return;
    for (; this.callerSent < live.callerSpeech.length; this.callerSent++) {
      const s = live.callerSpeech[this.callerSent]!;
      const seq = this.seqOf.get(s.utterance) ?? 0;
      report({ k: 'caller', call: this.id, start: s.start, end: s.end, seq });
    }
    for (; this.agentSent < live.agentSpeech.length; this.agentSent++) {
      const s = live.agentSpeech[this.agentSent]!;
      const pcm = s.pcm.length ? own(concatPcm(s.pcm)) : null;
      s.pcm = []; // passed on: the engine's copy is the one kept
      report(
        { k: 'agent', call: this.id, start: s.start, end: s.end, pcm },
        pcm ? (pcm.buffer as ArrayBuffer) : undefined,
      );
    }
  }

  say(seq: number, pcm: Int16Array, fromMs: number, toMs: number): void {
    if (!this.live) return;
    const u: Utterance = {
      pcm,
      speechFromMs: fromMs,
      speechToMs: toMs,
      text: '',
      source: 'script',
    };
    this.seqOf.set(u, seq);
    this.acceptedSeq = seq;
    this.live.say(u);
  }

  sendDtmf(digits: string): void {
    this.call?.sendDtmf?.(digits);
  }

  /** Stops the frames and hangs up; the recording goes with the answer and is not kept here. */
  async end(): Promise<WireRecord> {
    const live = this.live;
    if (!live) throw new Error('the call never started');
    live.stop();
    this.sync();
    await this.call!.hangup().catch(() => {});
    await new Promise<void>((resolve) => setImmediate(resolve));
    const record: WireRecord = {
      durationMs: live.durationMs,
      pacing: live.pacing(),
      voiceActivity: live.voiceActivity(),
      activity: live.agentActivity.parts(),
      lineStats: this.lineStats?.() ?? null,
      wav: ownBytes(live.recording.toWav()),
    };
    this.live = null;
    return record;
  }

  providerTranscript() {
    return this.dialled().providerTranscript();
  }

  /** Whatever is still running stops; the call hangs up. */
  async release(): Promise<void> {
    this.dialling.abort(new Error('released'));
    this.live?.stop();
    this.live = null;
    await this.call?.hangup().catch(() => {});
  }
}

const calls = new Map<number, HostedCall>();

function hosted(id: number): HostedCall {
  const call = calls.get(id);
  if (!call) throw new Error(`no call ${id} on this audio thread`);
  return call;
}

/** Answers a request (after the reports made before it, so the engine reads them first). */
function answer<T>(
  req: number,
  work: () => T | Promise<T>,
  handOver?: (value: T) => ArrayBuffer[],
): void {
  Promise.resolve()
    .then(work)
    .then(
      (value: T) => {
        flush();
        port.postMessage({ reply: req, value } satisfies FromAudioThread, handOver?.(value) ?? []);
      },
      (err: unknown) => {
        flush();
        const e = err instanceof Error ? err : new Error(String(err));
        port.postMessage({
          reply: req,
          error: { name: e.name, message: e.message },
        } satisfies FromAudioThread);
      },
    );
}

async function shutdown(): Promise<void> {
  const all = [...calls.values()];
  calls.clear();
  await Promise.all(all.map((c) => c.release()));
  useSileroPort(null, 'the audio thread is stopping');
}

function handle(m: ToAudioThread): void {
  switch (m.op) {
    case 'dial': {
      const call = new HostedCall(m.call, m.plan);
      calls.set(m.call, call);
      return answer(m.req, () =>
        call.dial().catch((err: unknown) => {
          calls.delete(m.call);
          throw err;
        }),
      );
    }
    case 'cancel':
      return calls.get(m.call)?.cancel();
    case 'start':
      return answer(m.req, () => hosted(m.call).start(m.start));
    case 'say':
      return calls.get(m.call)?.say(m.seq, m.pcm, m.fromMs, m.toMs);
    case 'dtmf':
      return calls.get(m.call)?.sendDtmf(m.digits);
    case 'end':
      // The recording's bytes are handed over, not copied.
      return answer(
        m.req,
        () => hosted(m.call).end(),
        (r) => [r.wav.buffer as ArrayBuffer],
      );
    case 'transcript':
      return answer(m.req, async () => {
        const call = hosted(m.call);
        calls.delete(m.call);
        return call.providerTranscript();
      });
    case 'release':
      return answer(m.req, async () => {
        const call = calls.get(m.call);
        calls.delete(m.call);
        await call?.release();
        return null;
      });
    case 'silero':
      return useSileroPort(m.port, m.failure);
    case 'memory':
      return answer(m.req, () => {
        const { heapUsed, external } = process.memoryUsage();
        return { heapUsed, external };
      });
    case 'shutdown':
      return answer(m.req, () => shutdown().then(() => null));
  }
}

port.on('message', handle);
