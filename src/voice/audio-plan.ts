import type { ErrorDetail } from '../errors.js';
import { DEFAULT_VOICE, type PersonaVoice } from '../domain/audio.js';
import type { Speech } from '../speech/index.js';
import type { AgentRecord } from '../store/agents.js';
import { dialerFor } from './transports/index.js';

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

/** Why `agent` cannot take an audio call on `channel`, or null when it can. */
export async function audioCallProblem(inputs: AudioPlanInputs): Promise<string | null> {
  const { agent, channel } = inputs;
  if (channel === 'replica')
    return 'the replica channel is text only (a model plays the agent; there is no voice to call); use the provider or http channel, or mode "text"';
  const dialer = dialerFor(agent.provider);
  if ('refused' in dialer) return dialer.refused;
  if (agent.provider === 'vapi' && !inputs.scripted && !(await inputs.speech.canTranscribe()))
    return "Vapi's audio socket carries no live text, and a model caller must hear the agent: set settings.speech.stt (PATCH /v1/settings), or use a scripted scenario";
  if (agent.provider === 'http') {
    if (!inputs.websocketUrl)
      return 'an http agent takes audio calls at a WebSocket URL speaking Twilio Media Streams: connect it again with websocketUrl';
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
