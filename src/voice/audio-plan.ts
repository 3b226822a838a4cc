import type { ErrorDetail } from '../errors.js';
import { DEFAULT_VOICE, type PersonaVoice } from '../domain/audio.js';
import type { Speech } from '../speech/index.js';
import type { AgentRecord } from '../store/agents.js';
import { dialerFor } from './transports/index.js';
import type { SecretBox } from '../kernel/secret-box.js';
import { openCredentials } from '../providers/credentials.js';

/** What an audio simulation needs to be placed: a transport for the agent, voices, STT where the line carries no text. */
export interface AudioPlanInputs {
  agent: AgentRecord;
  channel: string;
  /** `http` agents: the Twilio Media Streams URL from their connection, when it has one. */
  websocketUrl: string | null;
  speech: Speech;
  /** A scripted caller needs no live words from the agent; a model caller must hear them. */
  scripted: boolean;
}

/** Whether an agent can take audio calls at all, as its answer says (settings aside). */
export interface AudioAvailability {
  available: boolean;
  /** Why not, in words; null when available. */
  reason: string | null;
}

const HTTP_WITHOUT_WEBSOCKET =
  'an http agent takes audio calls at a WebSocket URL speaking Twilio Media Streams: connect it again with websocketUrl';

/**
 * Whether the agent's provider has an audio transport and, for an http agent, whether its
 * connection names a WebSocket URL: the one place the agents' answers and the audio refusal
 * read it from, so a chip never says "audio calls" for an agent the engine would refuse.
 */
export function audioAvailability(
  provider: string,
  websocketUrl: string | null,
): AudioAvailability {
  const dialer = dialerFor(provider);
  if ('refused' in dialer) return { available: false, reason: dialer.refused };
  if (provider === 'http' && !websocketUrl)
    return { available: false, reason: HTTP_WITHOUT_WEBSOCKET };
  return { available: true, reason: null };
}

/**
 * Whether the agent takes audio calls, as its answer says: its stored connection is read for an
 * http agent's WebSocket URL.
 */
export function agentAudio(secrets: SecretBox, agent: AgentRecord): AudioAvailability {
  if (agent.status === 'disconnected')
    return { available: false, reason: 'it is disconnected: connect it again' };
  let credentials;
  try {
    credentials = openCredentials(secrets, agent);
  } catch (err) {
    // Damaged credentials: no call of any kind can be placed until it is connected again.
    return { available: false, reason: (err as Error).message };
  }
  return audioAvailability(agent.provider, credentials?.websocketUrl ?? null);
}

/** Why `agent` cannot take an audio call on `channel`, or null when it can. */
export async function audioCallProblem(inputs: AudioPlanInputs): Promise<string | null> {
  const { agent, channel } = inputs;
  if (channel === 'replica')
    return 'the replica channel is text only (a model plays the agent; there is no voice to call); use the provider or http channel, or mode "text"';
  const availability = audioAvailability(agent.provider, inputs.websocketUrl);
  if (!availability.available) return availability.reason;
  if (agent.provider === 'vapi' && !inputs.scripted && !(await inputs.speech.canTranscribe()))
    return "Vapi's audio socket carries no live text, and a model caller must hear the agent: set settings.speech.stt (PATCH /v1/settings), or use a scripted scenario";
  if (agent.provider === 'http') {
    if (!(await inputs.speech.canTranscribe()))
      return 'its audio line (Twilio Media Streams) carries no text, so its words need speech-to-text: set settings.speech.stt (PATCH /v1/settings)';
  }
  return null;
}

/** Each persona whose voice cannot speak now (an engine without its key), by persona. */
export async function voiceProblems(
  personas: { id: string; name: string; voice: PersonaVoice | null }[],
  speech: Speech,
): Promise<ErrorDetail[]> {
  const out: ErrorDetail[] = [];
  for (const p of personas) {
    const problem = await speech.voiceProblem(p.voice ?? DEFAULT_VOICE);
    if (problem)
      out.push({ path: `personas.${p.id}.voice`, message: `persona ${p.name}: ${problem}` });
  }
  return out;
}
