import { DEFAULT_VOICE } from '../domain/audio.js';
import type { SimulationLine } from '../domain/callers.js';
import { noiseOf, simulationLine } from './caller-conditions.js';
import { openCredentials, type AgentCredentials } from '../providers/credentials.js';
import type { ProviderAdapter } from '../providers/types.js';
import type { SecretBox } from '../kernel/secret-box.js';
import type { Speech } from '../speech/index.js';
import type { AgentRecord } from '../store/agents.js';
import type { ConversationSetup } from '../conversation/conversation.js';
import { converseByAudio } from './audio-conversation.js';
import type { AudioThreads } from './audio-threads.js';
import type { AudioOutcome } from './types.js';
import { dialerFor } from './transports/index.js';

/** The wire each provider's audio runs on, by provider. */
const TRANSPORT_NAMES: Record<string, string> = {
  vapi: 'vapi',
  elevenlabs: 'elevenlabs',
  bland: 'bland',
  http: 'twilio',
  demo: 'twilio',
};

/** Places the audio call of one simulation: the agent's transport, keys, and the persona's voice. */
export function runAudioConversation(
  setup: Omit<ConversationSetup, 'agent'>,
  ctx: {
    agent: AgentRecord;
    secrets: SecretBox;
    speech: Speech;
    adapters: Record<string, ProviderAdapter>;
    noiseDir: string;
    /** The simulation's line and seed, settled when it was queued; null: studio, a fresh seed. */
    line: SimulationLine | null;
    /** Where the demo agent is now (its engine-served URL changes with every start). */
    reach?: AgentCredentials;
    /** Where the call's frames run; null: on this thread. */
    audioThreads: AudioThreads | null;
  },
): Promise<AudioOutcome> {
  const { agent } = ctx;
  const dialer = dialerFor(agent.provider);
  if ('refused' in dialer) throw new Error(dialer.refused);
  const creds = ctx.reach ?? openCredentials(ctx.secrets, agent);
  if (!creds) throw new Error('the agent has no credentials (disconnected)');
  return converseByAudio({
    ...setup,
    transport: TRANSPORT_NAMES[agent.provider] ?? agent.provider,
    provider: agent.provider,
    audioThreads: ctx.audioThreads,
    lineRate: dialer.sampleRate,
    dtmfEvents: dialer.dtmfEvents,
    conditions: {
      line: ctx.line ?? simulationLine(null),
      noise: noiseOf(setup.persona),
      behaviours: setup.persona.behaviours,
    },
    noiseDir: ctx.noiseDir,
    request: {
      baseUrl: creds.baseUrl ?? ctx.adapters[agent.provider]?.defaultBaseUrl ?? '',
      apiKey: creds.apiKey ?? '',
      agentId: agent.providerAgentId,
      websocketUrl: creds.websocketUrl,
      variables: setup.variables,
    },
    speech: ctx.speech,
    voice: setup.persona.voice ?? DEFAULT_VOICE,
  });
}
