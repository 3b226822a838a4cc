import type { MessagePort } from 'node:worker_threads';
import type { LineStats } from '../audio/line.js';
import type { PacingStats } from '../audio/lateness-histogram.js';
import type { VoiceActivityReport } from '../audio/voice-activity.js';
import type { CallerConditions } from './caller-conditions.js';
import type { CallStart } from './call-session.js';
import type { CallEnd, InboxEntry } from './live-call.js';
import type { AudioCall, DialRequest } from './transport.js';

/**
 * What the engine's thread and an audio thread (audio-worker.ts) say to each other. The frame
 * path of every call on the thread (pacer, caller line and noise, the transport's socket, playout,
 * voice activity, recording) runs there; the engine's thread keeps the turn-taking and is told
 * what each frame showed, every call's reports of one wake of the pacer in one message.
 */

/** What a call needs on its audio thread: where to dial, and the caller's sound. */
export interface DialPlan {
  /** The agent's provider: which transport dials (transports/index.ts). */
  provider: string;
  request: Omit<DialRequest, 'events' | 'signal'>;
  /** The PCM rate the call is planned at (early audio is capped in its time). */
  lineRate: number;
  conditions: CallerConditions;
  /**
   * Where the noise beds are: the thread reads its own copy of a bed, once, and keeps its loop at
   * each rate (a copy sent with every call would be levelled and resampled again for each).
   */
  noiseDir: string;
  /** The engine's outbound guard (null: none) and answer cap: a thread has module state of its own. */
  outbound: string[] | null;
  responseCap: number;
}

/** What the engine learns of a call once it is dialled. */
export interface CallFacts {
  sampleRate: number;
  agentTextSource: AudioCall['agentTextSource'];
  reportsToolCalls: boolean;
  callId: string | null;
  sendsDtmf: boolean;
}

/** The record of `CallRecord` as it crosses threads. */
export interface WireRecord {
  durationMs: number;
  pacing: PacingStats;
  voiceActivity: VoiceActivityReport;
  activity: { sounding: Uint8Array; clears: number[] };
  lineStats: LineStats | null;
  wav: Uint8Array;
}

export type ToAudioThread =
  | { op: 'dial'; req: number; call: number; plan: DialPlan }
  | { op: 'cancel'; call: number }
  | { op: 'start'; req: number; call: number; start: CallStart }
  | { op: 'say'; call: number; seq: number; pcm: Int16Array; fromMs: number; toMs: number }
  | { op: 'dtmf'; call: number; digits: string }
  /** Stops the frames and hangs up: answers the WireRecord; the call stays for its transcript. */
  | { op: 'end'; req: number; call: number }
  /** The provider's transcript; the call is then forgotten. */
  | { op: 'transcript'; req: number; call: number }
  /** Hangs up (if it was dialled) and forgets the call. */
  | { op: 'release'; req: number; call: number }
  /** Silero's line for the calls started from now on (null: none, and why). */
  | { op: 'silero'; port: MessagePort | null; failure: string }
  | { op: 'memory'; req: number }
  /** Every call stops and hangs up; answered when the thread holds nothing more. */
  | { op: 'shutdown'; req: number };

/** The state of a call as of one frame, for the turn-taking. */
export interface CallState {
  /** The call's clock at the frame. */
  now: number;
  /** The agent is speaking or has audio queued to play. */
  busy: boolean;
  /** The last caller line said to its end (lines are numbered from 1 as the engine sends them). */
  idleSeq: number;
  /** How long the agent has spoken in its current turn. */
  spokenMs: number;
}

export type CallReport =
  | ({ k: 'frame' | 'turnEnd'; call: number } & CallState)
  | { k: 'caller'; call: number; start: number; end: number; seq: number }
  | { k: 'agent'; call: number; start: number; end: number; pcm: Int16Array | null }
  | ({ k: 'inbox'; call: number } & { entry: InboxEntry })
  | { k: 'ended'; call: number; end: CallEnd };

export type FromAudioThread =
  | { reports: CallReport[] }
  | { reply: number; value: unknown }
  | { reply: number; error: { name: string; message: string } };
