import { z } from 'zod';
import { CallerSummary, ConditionFigures, LineChoice } from './callers.js';
import { Percentiles } from './percentiles.js';

/**
 * Shapes of audio simulations that the store keeps and the voice domain makes: a scenario's audio
 * choice, a persona's voice, and what a call measured.
 */

export const SIMULATION_MODES = ['text', 'audio'] as const;
export type SimulationMode = (typeof SIMULATION_MODES)[number];

/** A scenario run as real audio calls; per execution, `execute {mode}` overrides it. */
export const ScenarioAudio = z.strictObject({
  enabled: z.boolean().describe('Run this scenario as audio calls unless an execution says text'),
  line: LineChoice.optional().describe('The line between caller and agent; absent: studio'),
});
export type ScenarioAudio = z.infer<typeof ScenarioAudio>;

export const VOICE_ENGINES = ['system', 'openai', 'elevenlabs'] as const;
/** The speeds a voice may ask for; 1 is normal. */
export const VOICE_SPEEDS = { min: 0.5, max: 2 } as const;

/** A voice's name as espeak-ng (en-gb+f3), OpenAI (alloy) and ElevenLabs (its id) spell it. */
export const VOICE_ID = /^[A-Za-z0-9_+:-]{1,64}$/;

/** How a persona sounds in audio mode: the offline system voice unless it says otherwise. */
export const PersonaVoice = z.strictObject({
  engine: z
    .enum(VOICE_ENGINES)
    .describe(
      'system: the OS voice (espeak-ng, say, System.Speech; offline); openai: any OpenAI-compatible /audio/speech; elevenlabs',
    ),
  voiceId: z
    .string()
    .trim()
    // A name, never a path: the system voice hands it to `espeak-ng -v`, which reads a file by it.
    .regex(VOICE_ID, 'must be 1 to 64 letters, digits, _, +, : or -')
    .nullable()
    .default(null)
    .describe(
      'espeak-ng voice such as en-us or en-gb+f3; OpenAI voice such as alloy; ElevenLabs voice id',
    ),
  speed: z
    .number()
    .min(VOICE_SPEEDS.min)
    .max(VOICE_SPEEDS.max)
    .nullable()
    .default(null)
    .describe('1 is normal'),
});
export type PersonaVoice = z.infer<typeof PersonaVoice>;

export const DEFAULT_VOICE: PersonaVoice = { engine: 'system', voiceId: null, speed: null };

export { Percentiles } from './percentiles.js';

/** What an audio call measured, from the audio itself (definitions in the README). */
export const AudioSummary = z.object({
  transport: z.string().describe('vapi, elevenlabs, bland, twilio'),
  call_id: z.string().nullable().describe("The provider's id of the call"),
  sample_rate: z.number().int(),
  duration_ms: z
    .number()
    .int()
    .optional()
    .describe(
      "The call's own length, from connecting to hanging up (not the voices' start-up or the scoring); absent on calls measured before it was kept",
    ),
  time_to_first_audio_ms: z
    .number()
    .nullable()
    .describe(
      "From connect to the agent's first sound, less the caller model's think time before it; null when it never spoke",
    ),
  response_latency_ms: Percentiles.describe(
    "Per turn: end of the caller's speech to start of the agent's audio",
  ),
  talk_over: z.object({
    count: z.number().int().describe('Agent audio starting while the caller spoke, 200 ms or more'),
    total_ms: z.number(),
  }),
  long_silences: z.number().int().describe('Silences on both sides longer than 3 s'),
  agent_speech_ms: z.number(),
  caller_speech_ms: z.number(),
  talk_ratio: z.number().nullable().describe('Agent speaking time over caller speaking time'),
  caller_think_ms: z
    .number()
    .describe("Time the caller model spent writing and voicing replies (never the agent's)"),
  pacing: z.object({
    frames: z.number().int(),
    late_p50_ms: z.number(),
    late_p99_ms: z.number(),
    late_max_ms: z.number(),
  }),
  voice_activity: z
    .object({
      detector: z.enum(['silero', 'energy']),
      reason: z.string().nullable().describe('Why energy decided where Silero was wanted'),
    })
    .optional()
    .describe("How the agent's speech was found in its audio (Silero VAD, else energy)"),
  agent_text_source: z.enum(['provider', 'stt', 'provider_record']),
  provider_transcript: z
    .array(
      z.object({
        role: z.enum(['agent', 'caller']),
        text: z.string(),
        at_ms: z.number().nullable(),
      }),
    )
    .nullable()
    .describe("The provider's own transcript of both sides (Vapi's call record)"),
  recording: z.boolean().describe('A stereo WAV is kept (GET .../recording)'),
  caller: CallerSummary.optional().describe(
    'The line, the noise, what the caller did (barge-ins, silences, digits) and how the agent took it',
  ),
});
export type AudioSummary = z.infer<typeof AudioSummary>;

/** What an audio turn adds to a transcript turn: when its speech ran, and where its text came from. */
export const TurnAudio = z.object({
  start_ms: z.number(),
  end_ms: z.number(),
  /** Agent turns: overlap with the caller's speech, when the agent talked over. */
  talk_over_ms: z.number().optional(),
});
export type TurnAudio = z.infer<typeof TurnAudio>;

export const TEXT_SOURCES = ['script', 'model', 'provider', 'stt', 'provider_record'] as const;
export type TextSource = (typeof TEXT_SOURCES)[number];

/** Figures over many audio calls (an execution's, an agent's window). */
export const AudioFigures = z.object({
  calls: z.number().int(),
  response_latency_ms: Percentiles.describe('Over every agent reply of every audio call'),
  time_to_first_audio_ms: Percentiles.describe('Over the calls'),
  talk_overs: z.number().int(),
  by_conditions: z
    .array(ConditionFigures)
    .describe(
      'By noise and line: where the agent is slow or mishears (calls of realistic callers)',
    ),
});
export type AudioFigures = z.infer<typeof AudioFigures>;
