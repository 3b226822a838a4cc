// The shapes the audio call's parts share (its set-up, outcome, ending and the caller's log), in a
// module of their own so that the conversation, its driver and its measures import them one way.
import type { AudioSummary, PersonaVoice } from '../domain/audio.js';
import type { ConversationOutcome, ConversationSetup } from '../conversation/conversation.js';
import type { EndReason } from '../conversation/end-reasons.js';
import type { Speech } from '../speech/index.js';
import type { CallerConditions } from './caller-conditions.js';
import type { AudioThreads } from './audio-threads.js';
import type { DialRequest } from './transport.js';

/** What an audio simulation needs beyond a text one: the line to the agent, and a voice. */
export interface AudioConversationSetup extends Omit<ConversationSetup, 'agent'> {
  transport: string;
  /** The agent's provider: which transport dials (transports/index.ts). */
  provider: string;
  /** Where the call's frames run; null: on this thread (the engine's own baseline, `audioThreads: 0`). */
  audioThreads: AudioThreads | null;
  /** The PCM rate the transport's calls run at: lines are converted to it before dialling. */
  lineRate: number;
  /** The transport carries keypad digits as events (else they go in-band as tones). */
  dtmfEvents: boolean;
  request: Omit<DialRequest, 'events' | 'signal'>;
  speech: Speech;
  voice: PersonaVoice | null;
  /** The caller's noise, line and behaviours, with the seed that replays them. */
  conditions: CallerConditions;
  /** Where the noise beds are (`resources/noise`). */
  noiseDir: string;
  /** No one speaks this long: the call ends (`silence`). */
  silenceLimitMs?: number;
  /** The agent says nothing this long after connecting: the caller speaks first. */
  callerOpensAfterMs?: number;
}

export interface AudioOutcome extends ConversationOutcome {
  cancelled?: true;
  /** The call failed mid-way (a drop, a speech engine error): turns and audio so far are kept. */
  failure: string | null;
  audio: AudioSummary;
  wav: Buffer;
}

export type Ending =
  | { reason: EndReason; hungUp?: true }
  | { cancelled: true }
  | { failure: string }
  | { interrupted: true };

/** What the caller did on the call, for its measures. */
export interface CallerLog {
  silences: { atMs: number; ms: number }[];
  dtmf: { atMs: number; digits: string; via: 'tones' | 'event' }[];
  hungUp: boolean;
}
