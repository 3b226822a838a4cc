import { performance } from 'node:perf_hooks';
import type { TransferListItem } from 'node:worker_threads';
import { StereoRecording } from '../audio/wav.js';
import { AgentActivity } from './agent-activity.js';
import type {
  CallFacts,
  CallReport,
  CallState,
  ToAudioThread,
  WireRecord,
} from './audio-thread-protocol.js';
import type {
  CallHandlers,
  CallRecord,
  CallSession,
  CallStart,
  CallTexts,
} from './call-session.js';
import {
  correctLast,
  type AgentSpeech,
  type CallEnd,
  type CallerSpeech,
  type Utterance,
} from './live-call.js';
import type { ProviderTranscriptTurn } from './transport.js';

/** How a remote call reaches its audio thread. */
export interface AudioThreadLink {
  post(message: ToAudioThread, transfer?: TransferListItem[]): void;
  /** A request and its answer; rejected with the reason when the thread stops first. */
  ask<T>(message: ToAudioThread & { req: number }): Promise<T>;
  nextRequest(): number;
  /** The call is done with its thread. */
  forget(call: number): void;
}

const IDLE: CallState = { now: 0, busy: false, idleSeq: 0, spokenMs: 0 };

/**
 * A call whose frames run on an audio thread, as the engine's thread sees it: each frame's state
 * and the spans the thread timed arrive in order, and the turn-taking is told of them in that
 * order, so it decides as it would beside the frames, only later in wall time. Every time it
 * measures was stamped on the audio thread, at the frame it belongs to.
 */
export class RemoteCall implements CallSession {
  readonly callerSpeech: CallerSpeech[] = [];
  readonly agentSpeech: AgentSpeech[] = [];
  readonly texts: CallTexts = { agentTexts: [], heardTexts: [], toolCalls: [] };
  private state = IDLE;
  private sentSeq = 0;
  private readonly utterances = new Map<number, Utterance>();
  private handlers: CallHandlers | null = null;
  private endedAs: CallEnd | null = null;
  /** Where the call's clock reads 0, in ms since the epoch (both threads' clocks meet there). */
  private startedAt: number | null = null;
  private ended: Promise<CallRecord> | null = null;
  /** Why the call's thread went, where it did. */
  private lostTo: string | null = null;
  private released = false;

  constructor(
    readonly id: number,
    private readonly facts: CallFacts,
    private readonly link: AudioThreadLink,
  ) {}

  get rate(): number {
    return this.facts.sampleRate;
  }
  get agentTextSource() {
    return this.facts.agentTextSource;
  }
  get reportsToolCalls(): boolean {
    return this.facts.reportsToolCalls;
  }
  get callId(): string | null {
    return this.facts.callId;
  }
  get sendsDtmf(): boolean {
    return this.facts.sendsDtmf;
  }

  nowMs(): number {
    if (this.startedAt === null) return 0;
    return Math.max(0, performance.timeOrigin + performance.now() - this.startedAt);
  }
  agentBusy(): boolean {
    return this.state.busy;
  }
  get callerIdle(): boolean {
    return this.state.idleSeq === this.sentSeq;
  }
  agentTurnSpokenMs(): number {
    return this.state.spokenMs;
  }

  say(u: Utterance): void {
    const seq = ++this.sentSeq;
    this.utterances.set(seq, u);
    // A copy crosses: the same line (a backchannel) may be said again.
    this.link.post({
      op: 'say',
      call: this.id,
      seq,
      pcm: u.pcm,
      fromMs: u.speechFromMs,
      toMs: u.speechToMs,
    });
  }

  sendDtmf(digits: string): void {
    this.link.post({ op: 'dtmf', call: this.id, digits });
  }

  start(handlers: CallHandlers, options: CallStart): void {
    this.handlers = handlers;
    this.link
      .ask<{ startedAt: number }>({
        op: 'start',
        req: this.link.nextRequest(),
        call: this.id,
        start: options,
      })
      .then(
        ({ startedAt }) => (this.startedAt = startedAt),
        (err: unknown) => this.farEnd({ how: 'dropped', detail: (err as Error).message }),
      );
    if (this.endedAs) handlers.onEnded(this.endedAs);
  }

  /** What the audio thread reported of this call, in the order it happened there. */
  apply(r: CallReport): void {
    switch (r.k) {
      case 'frame':
      case 'turnEnd':
        this.state = r;
        if (r.k === 'frame') this.handlers?.onFrame(r.now);
        else this.handlers?.onAgentTurnEnd(r.now);
        return;
      case 'caller': {
        const utterance = this.utterances.get(r.seq);
        this.utterances.delete(r.seq);
        if (utterance) this.callerSpeech.push({ start: r.start, end: r.end, utterance });
        return;
      }
      case 'agent':
        this.agentSpeech.push({ start: r.start, end: r.end, pcm: r.pcm ? [r.pcm] : [] });
        return;
      case 'inbox':
        return this.note(r.entry);
      case 'ended':
        return this.farEnd(r.end);
    }
  }

  private note(entry: Extract<CallReport, { k: 'inbox' }>['entry']): void {
    const { texts } = this;
    const { atMs } = entry;
    if (entry.kind === 'tool') texts.toolCalls.push({ atMs, call: entry.tool });
    else if (entry.kind === 'agent') texts.agentTexts.push({ atMs, text: entry.text });
    else if (entry.kind === 'heard') texts.heardTexts.push({ atMs, text: entry.text });
    else correctLast(texts.agentTexts, entry.text, atMs);
  }

  private farEnd(end: CallEnd): void {
    if (this.endedAs) return;
    this.endedAs = end;
    this.handlers?.onEnded(end);
  }

  /** The call's audio thread stopped: the call ends with the reason, and nothing more comes. */
  lost(reason: string): void {
    this.lostTo ??= reason;
    this.farEnd({ how: 'dropped', detail: reason });
  }

  end(): Promise<CallRecord> {
    this.ended ??= this.record();
    return this.ended;
  }

  private async record(): Promise<CallRecord> {
    const frozenMs = this.nowMs();
    try {
      const wire = await this.link.ask<WireRecord>({
        op: 'end',
        req: this.link.nextRequest(),
        call: this.id,
      });
      return {
        ...wire,
        activity: AgentActivity.fromParts(wire.activity),
        wav: Buffer.from(wire.wav.buffer, wire.wav.byteOffset, wire.wav.byteLength),
      };
    } catch (err) {
      // Its thread went with the recording: the call keeps what this thread was told.
      return this.lostRecord(frozenMs, this.lostTo ?? (err as Error).message);
    }
  }

  private lostRecord(durationMs: number, reason: string): CallRecord {
    return {
      durationMs,
      pacing: { frames: 0, lateP50Ms: 0, lateP99Ms: 0, lateMaxMs: 0 },
      voiceActivity: { detector: 'energy', reason: `the call's audio record was lost: ${reason}` },
      activity: new AgentActivity(0),
      lineStats: null,
      wav: new StereoRecording({ sampleRate: this.rate, maxMs: 0 }).toWav(),
    };
  }

  async providerTranscript(): Promise<ProviderTranscriptTurn[] | null> {
    if (this.released) return null;
    this.released = true;
    try {
      return await this.link.ask<ProviderTranscriptTurn[] | null>({
        op: 'transcript',
        req: this.link.nextRequest(),
        call: this.id,
      });
    } finally {
      this.link.forget(this.id);
    }
  }

  /** Hangs up and forgets the call on its thread (once; a call already done answers at once). */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    try {
      await this.link.ask<null>({ op: 'release', req: this.link.nextRequest(), call: this.id });
    } catch {
      // Its thread is gone, and the call with it.
    } finally {
      this.link.forget(this.id);
    }
  }
}
