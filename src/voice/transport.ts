/**
 * How an audio simulation reaches a deployed agent: one live call on the provider's own audio
 * protocol. Every transport speaks PCM16 mono at its `sampleRate` to the conversation loop, so
 * the loop never knows whether the wire carries raw PCM, base64 JSON or mu-law.
 */

import type { CallToolCall } from '../domain/providers.js';

export {
  AGENT_MESSAGE_MAX_BYTES,
  AGENT_MESSAGE_TOO_LARGE,
  isMessageTooLarge,
} from '../net/agent-messages.js';

/**
 * How far ahead of the play clock the agent's audio may be queued. Agents send faster than real
 * time, but never minutes ahead: past this the call ends, so queued audio stays bounded.
 */
export const AGENT_AUDIO_MAX_AHEAD_MS = 30_000;
export const AGENT_AUDIO_TOO_FAR_AHEAD = "the agent's audio ran more than 30 s ahead of real time";

/**
 * How the far side ended a call: the agent hung up, the connection dropped, or the agent broke one
 * of the limits above (`detail` is then the simulation's whole error).
 */
export type FarEnd = 'agent_hangup' | 'dropped' | 'misbehaved';

/** What a live call tells the conversation loop, as it happens. */
export interface AgentAudioEvents {
  /** Agent audio as it arrives (PCM16 mono at the call's rate); `eventId` where the provider tags it. */
  audio(pcm: Int16Array, eventId?: number): void;
  /**
   * The provider says its unplayed audio is void (ElevenLabs `interruption`, Twilio/Bland
   * `clear`): audio tagged at or below `uptoEventId`, or all of it when absent.
   */
  clear(uptoEventId?: number): void;
  /** What the agent said, as text, where the provider sends it (ElevenLabs `agent_response`). */
  agentText(text: string): void;
  /**
   * The agent was cut off: its last text is replaced by what it said before the cut (ElevenLabs
   * `agent_response_correction`).
   */
  correctAgentText(text: string): void;
  /** What the provider's speech recognition heard of the caller (ElevenLabs `user_transcript`). */
  heard(text: string): void;
  /** A tool the agent called, where the line reports it (the demo agent's `agent_tool_call`). */
  toolCall?(call: CallToolCall): void;
  /** The call ended from the far side: the agent hung up, the connection dropped, or a limit. */
  ended(how: FarEnd, detail: string): void;
}

/** A turn of the provider's own record of the call, read after it ended (Vapi `GET /call/{id}`). */
export interface ProviderTranscriptTurn {
  role: 'agent' | 'caller';
  text: string;
  /** Milliseconds from the start of the call, where the provider says. */
  atMs: number | null;
}

/** One live call. */
export interface AudioCall {
  /** The PCM rate of the frames sent and received (16000, or 8000 on a mu-law line). */
  readonly sampleRate: number;
  /** Where the agent's words come from: `provider` events, or `stt` on the audio (Twilio). */
  readonly agentTextSource: 'provider' | 'stt' | 'provider_record';
  /** The line reports the agent's tool calls as they happen (`AgentAudioEvents.toolCall`). */
  readonly reportsToolCalls?: boolean;
  /** One caller frame (20 ms of PCM16 at `sampleRate`); dropped once the call has ended. */
  send(frame: Int16Array): void;
  /**
   * Keypad digits as the protocol's own event (Twilio Media Streams `dtmf`); absent where the
   * protocol has none, and the digits go in-band as tones.
   */
  sendDtmf?(digits: string): void;
  /** Ends the call from the caller's side and closes the socket. Safe to call twice. */
  hangup(): Promise<void>;
  /** The provider's own transcript of both sides, after the call; null where it keeps none. */
  providerTranscript(): Promise<ProviderTranscriptTurn[] | null>;
  /** The provider's id for the call, where it has one (stored with the simulation). */
  readonly callId: string | null;
}

/** What a transport needs to place a call: where, with which key, for which agent. */
export interface DialRequest {
  /** The provider's API base URL (agents keep it with their credentials). */
  baseUrl: string;
  apiKey: string;
  /** The provider's id of the agent (or, for `http` agents, unused). */
  agentId: string;
  /** For `http` agents: the WebSocket URL that speaks Twilio Media Streams. */
  websocketUrl?: string;
  /** Values the provider may fill into the agent's prompt (ElevenLabs `dynamic_variables`). */
  variables: Record<string, string>;
  events: AgentAudioEvents;
  /** Aborts dialling (a cancel); a call already up is ended with `hangup()`. */
  signal: AbortSignal;
}

export type Dial = (req: DialRequest) => Promise<AudioCall>;
