import type { LineSimulator, LineStats } from '../audio/line.js';
import type { PacingStats } from '../audio/lateness-histogram.js';
import type { NoiseMixer } from '../audio/noise-mixer.js';
import type { VoiceActivityFactory, VoiceActivityReport } from '../audio/voice-activity.js';
import type { AgentActivity } from './agent-activity.js';
import {
  LiveCall,
  type AgentSpeech,
  type CallEnd,
  type CallerSpeech,
  type CallInbox,
  type TimedText,
  type TimedToolCall,
  type Utterance,
} from './live-call.js';
import type { AudioCall, ProviderTranscriptTurn } from './transport.js';

/**
 * One audio call as the conversation sees it: who speaks now, what was said when, and the means
 * to speak. Its frames run on an audio thread (remote-call.ts, the engine's way) or on this
 * thread (`LocalCall`, the frame loop's own tests and the `audioThreads: 0` baseline); the
 * turn-taking (call-driver.ts) and the measures never know which.
 */

/** What the conversation hears from the call's clock. */
export interface CallHandlers {
  /** A frame went out (`nowMs` on the call's clock): the turn-taking moves on. */
  onFrame(nowMs: number): void;
  /** The agent's speech stopped and nothing more is queued to play: its turn ended. */
  onAgentTurnEnd(nowMs: number): void;
  /** The far side ended the call (hang-up, drop, a limit broken, or its audio thread stopped). */
  onEnded(end: CallEnd): void;
}

/** How the call's own part is made once it is up. */
export interface CallStart {
  /** Most of the call to record (the recording is bounded by it). */
  maxMs: number;
  /** Keep the agent's audio per span (for speech-to-text). */
  keepAgentAudio: boolean;
}

/** What the call's clock measured, read once it ended. */
export interface CallRecord {
  durationMs: number;
  pacing: PacingStats;
  voiceActivity: VoiceActivityReport;
  activity: AgentActivity;
  lineStats: LineStats | null;
  wav: Buffer;
}

/** What the line reported as text, on the call's clock. */
export interface CallTexts {
  readonly agentTexts: TimedText[];
  readonly heardTexts: TimedText[];
  readonly toolCalls: TimedToolCall[];
}

export interface CallSession {
  readonly rate: number;
  readonly agentTextSource: AudioCall['agentTextSource'];
  readonly reportsToolCalls: boolean;
  readonly callId: string | null;
  readonly callerSpeech: CallerSpeech[];
  readonly agentSpeech: AgentSpeech[];
  readonly texts: CallTexts;
  /** Ms on the call's clock (0 until its first frame). */
  nowMs(): number;
  /** The agent is speaking, or has audio queued to play (as of the last frame). */
  agentBusy(nowMs: number): boolean;
  /** The caller is silent, with nothing queued. */
  readonly callerIdle: boolean;
  /** How long the agent has spoken in its current turn (0 outside one). */
  agentTurnSpokenMs(nowMs: number): number;
  /** Starts speaking `u` at the next frame (the caller is idle). */
  say(u: Utterance): void;
  /** Keypad digits as the protocol's event, where it has one (`sendsDtmf`). */
  readonly sendsDtmf: boolean;
  sendDtmf(digits: string): void;
  /** Starts the frames; an end that came before is told at once. */
  start(handlers: CallHandlers, options: CallStart): void;
  /** Stops the frames and hangs up (once; later calls answer the same record). */
  end(): Promise<CallRecord>;
  /** Hangs up where it is still up and lets go of the call (safe at any point, and twice). */
  release(): Promise<void>;
  providerTranscript(): Promise<ProviderTranscriptTurn[] | null>;
}

/** The caller's sound on this call: its noise, its line, and how the agent's speech is found. */
export interface CallerSound {
  noise: NoiseMixer | null;
  line: LineSimulator | null;
  voiceActivity: VoiceActivityFactory;
}

/** A call whose frames run on this thread. */
export class LocalCall implements CallSession {
  private live: LiveCall | null = null;
  private ended: Promise<CallRecord> | null = null;

  constructor(
    private readonly call: AudioCall,
    private readonly inbox: CallInbox,
    private readonly sound: CallerSound,
  ) {}

  get rate(): number {
    return this.call.sampleRate;
  }
  get agentTextSource() {
    return this.call.agentTextSource;
  }
  get reportsToolCalls(): boolean {
    return this.call.reportsToolCalls === true;
  }
  get callId(): string | null {
    return this.call.callId;
  }
  /** The live call's own lists, read as they grow (empty until it starts). */
  get callerSpeech(): CallerSpeech[] {
    return this.live?.callerSpeech ?? [];
  }
  get agentSpeech(): AgentSpeech[] {
    return this.live?.agentSpeech ?? [];
  }
  get texts(): CallTexts {
    return this.inbox;
  }
  get sendsDtmf(): boolean {
    return this.call.sendDtmf !== undefined;
  }
  private get started(): LiveCall {
    if (!this.live) throw new Error('the call has not started');
    return this.live;
  }
  nowMs(): number {
    return this.live?.nowMs() ?? 0;
  }
  agentBusy(nowMs: number): boolean {
    return this.started.agentBusy(nowMs);
  }
  get callerIdle(): boolean {
    return this.started.callerIdle;
  }
  agentTurnSpokenMs(nowMs: number): number {
    return this.started.agentTurnSpokenMs(nowMs);
  }
  say(u: Utterance): void {
    this.started.say(u);
  }
  sendDtmf(digits: string): void {
    this.call.sendDtmf?.(digits);
  }

  start(handlers: CallHandlers, options: CallStart): void {
    const live = new LiveCall(this.call, {
      ...options,
      ...this.sound,
      onFrame: (nowMs) => handlers.onFrame(nowMs),
      onAgentTurnEnd: (nowMs) => handlers.onAgentTurnEnd(nowMs),
      onEnded: (end) => handlers.onEnded(end),
    });
    this.live = live;
    this.inbox.onEnd = (end) => handlers.onEnded(end);
    live.start();
    this.inbox.attach(live);
    if (this.inbox.endedAs) handlers.onEnded(this.inbox.endedAs);
  }

  end(): Promise<CallRecord> {
    this.ended ??= this.record();
    return this.ended;
  }

  private async record(): Promise<CallRecord> {
    const live = this.started;
    live.stop();
    await this.call.hangup().catch(() => {});
    // Calls often end together: the recording's copy takes a turn of its own.
    await new Promise<void>((resolve) => setImmediate(resolve));
    return {
      durationMs: live.durationMs,
      pacing: live.pacing(),
      voiceActivity: live.voiceActivity(),
      activity: live.agentActivity,
      lineStats: this.sound.line?.stats() ?? null,
      wav: live.recording.toWav(),
    };
  }

  async release(): Promise<void> {
    await this.call.hangup().catch(() => {});
  }

  providerTranscript(): Promise<ProviderTranscriptTurn[] | null> {
    return this.call.providerTranscript();
  }
}
