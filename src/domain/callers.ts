import { z } from 'zod';
import { DTMF_PATTERN } from '../audio/dtmf.js';
import { Percentiles } from './percentiles.js';

/**
 * Shapes of the realistic caller in audio mode: the noise around it, how it behaves on the call
 * (barging in, staying silent, backchannels, hanging up, keypad digits), the line between it and
 * the agent, and what the call measured of each. The store keeps them; the voice domain acts them.
 */

export const SNR_DB = { min: -5, max: 40 } as const;

/** Speech over the persona's background noise; without a setting, harder personas are noisier. */
export const PersonaNoise = z.strictObject({
  snrDb: z
    .number()
    .min(SNR_DB.min)
    .max(SNR_DB.max)
    .describe('Signal-to-noise ratio of the caller speech over its background noise, in dB'),
});
export type PersonaNoise = z.infer<typeof PersonaNoise>;

export const DEFAULT_SNR_DB: Record<string, number> = {
  easy: 25,
  medium: 15,
  hard: 8,
  very_hard: 3,
};

const Probability = z.number().min(0).max(1);
const Ms = (max: number) => z.number().int().min(0).max(max);

/** How a persona behaves on audio calls, each with the chance it happens on an agent turn. */
export const CallerBehaviours = z.strictObject({
  bargeIn: z
    .strictObject({
      probability: Probability,
      afterMs: Ms(60_000).default(1_500).describe('Once the agent has spoken this long'),
    })
    .optional()
    .describe('The caller starts its next line while the agent is still talking'),
  silence: z
    .strictObject({ probability: Probability, ms: Ms(60_000).default(6_000) })
    .optional()
    .describe('The caller says nothing this long when it should answer: does the agent re-prompt?'),
  backchannel: z
    .strictObject({
      probability: Probability,
      phrases: z.array(z.string().trim().min(1).max(40)).min(1).max(20).optional(),
    })
    .optional()
    .describe('A short "mm-hmm" while the agent talks; a good agent keeps talking'),
  hangup: z
    .strictObject({ probability: Probability })
    .optional()
    .describe('The caller hangs up while the agent is talking'),
});
export type CallerBehaviours = z.infer<typeof CallerBehaviours>;

export const BACKCHANNEL_PHRASES = ['mm-hmm', 'okay', 'uh-huh', 'right', 'yeah'];

/** What a scripted line may do beyond saying its words, in audio mode only. */
export const ScriptLineActs = {
  interrupt: z
    .strictObject({ afterMs: Ms(60_000) })
    .optional()
    .describe("Say this line this long into the agent's turn, over it (barge-in)"),
  backchannel: z
    .strictObject({ afterMs: Ms(60_000) })
    .optional()
    .describe("Say this short line this long into the agent's turn, without taking the turn"),
  silence: z
    .strictObject({ ms: Ms(60_000).refine((ms) => ms >= 100, 'at least 100 ms') })
    .optional()
    .describe('Say nothing this long before the line (does the agent re-prompt?)'),
  dtmf: z
    .string()
    .max(64)
    .regex(DTMF_PATTERN, 'keypad digits only: 0-9, *, #, A-D')
    .optional()
    .describe('Keypad digits sent after the words'),
  hangup: z.literal(true).optional().describe('Hang up after the line'),
};
export const SCRIPT_LINE_ACTS = Object.keys(ScriptLineActs) as (keyof typeof ScriptLineActs)[];

export const LINE_PROFILES = ['studio', 'phone', 'mobile'] as const;
export type LineProfileName = (typeof LINE_PROFILES)[number];

/** A line of one's own: its codec and rate, and how bad the network is. */
export const CustomLine = z.strictObject({
  codec: z.enum(['pcm16', 'mulaw']),
  sampleRate: z.union([z.literal(8000), z.literal(16000)]),
  lossPercent: z.number().min(0).max(50).default(0),
  jitterMs: z.number().min(0).max(1_000).default(0),
  latencyMs: z.number().min(0).max(2_000).default(0),
});
export type CustomLine = z.infer<typeof CustomLine>;

export const LineChoice = z
  .union([z.enum(LINE_PROFILES), CustomLine])
  .describe(
    "studio (clean: the call's own audio), phone (8 kHz mu-law, 300-3400 Hz), mobile (phone with loss and jitter), or {codec, sampleRate, lossPercent, jitterMs, latencyMs}",
  );
export type LineChoice = z.infer<typeof LineChoice>;

/**
 * A simulation's line as chosen: the profile, its figures, and the seed of its loss and jitter. Its
 * rate is the line's own; `audio.caller.line` gives the rate the call was carried at.
 */
export const SimulationLine = z.object({
  profile: z.string().describe('studio, phone, mobile or custom'),
  codec: z.enum(['pcm16', 'mulaw']),
  sample_rate: z
    .number()
    .int()
    .describe("The line's own rate; a narrower call is carried at its own (audio.caller.line)"),
  loss_percent: z.number(),
  jitter_ms: z.number(),
  latency_ms: z.number(),
  seed: z.number().int().describe('Run again with this seed for the same losses and jitter'),
});
export type SimulationLine = z.infer<typeof SimulationLine>;

/** A misheard word that costs: a number or a name the caller said. */
export const Misheard = z.object({
  said: z.string(),
  heard: z.string().nullable(),
  kind: z.enum(['number', 'name']),
});

/** Word errors of the provider's recognition against what the caller said (normalised). */
export const AsrAccuracy = z.object({
  words: z
    .number()
    .int()
    .describe('Words the caller said (normalised), in turns the provider reported'),
  substitutions: z.number().int(),
  deletions: z.number().int(),
  insertions: z.number().int(),
  wer: z.number().nullable().describe('(substitutions + deletions + insertions) / words'),
  misheard: z.array(Misheard),
});
export type AsrAccuracy = z.infer<typeof AsrAccuracy>;

/** What the caller did on the call and how the agent took it. */
export const CallerSummary = z.object({
  line: SimulationLine.extend({
    sample_rate: z
      .number()
      .int()
      .describe("The rate the line carried: its own, or the call's where that is narrower"),
    frames: z.number().int().describe('Caller frames put on the line'),
    frames_lost: z.number().int(),
  }),
  noise: z.object({
    bed: z.string().describe("The persona's backgroundNoise"),
    snr_db: z.number().nullable().describe('null: no noise'),
  }),
  barge_ins: z.object({
    count: z.number().int(),
    stop_ms: Percentiles.describe("From the caller's barge-in to the agent's audio stopping"),
    not_stopped: z.number().int().describe('Barge-ins the agent talked on through (2 s or more)'),
  }),
  backchannels: z.object({
    count: z.number().int(),
    false_yields: z.number().int().describe('Backchannels on which the agent stopped talking'),
  }),
  silences: z.array(
    z.object({
      at_ms: z.number(),
      ms: z.number(),
      reprompt_ms: z
        .number()
        .nullable()
        .describe('From the silence starting to the agent speaking into it; null: it did not'),
    }),
  ),
  dtmf: z.array(
    z.object({ at_ms: z.number(), digits: z.string(), via: z.enum(['tones', 'event']) }),
  ),
  hung_up: z.boolean().describe('The caller hung up'),
  asr: AsrAccuracy.nullable().describe('null: the provider reported nothing of what it heard'),
});
export type CallerSummary = z.infer<typeof CallerSummary>;

/** What a caller line does besides answering: said over the agent, or keypad digits. */
export const CALLER_ACTS = ['barge_in', 'backchannel', 'dtmf'] as const;
export type CallerAct = (typeof CALLER_ACTS)[number];

/** Audio calls grouped by what the caller sounded like: its noise and its line. */
export const ConditionFigures = z.object({
  noise: z.string().describe("The persona's backgroundNoise"),
  line: z.string().describe('studio, phone, mobile or custom'),
  calls: z.number().int(),
  response_latency_ms: Percentiles,
  wer: z
    .number()
    .nullable()
    .describe("Word error rate of what the agent's recognition heard, over these calls' words"),
  misheard: z.number().int().describe('Numbers and names the agent misheard'),
});
export type ConditionFigures = z.infer<typeof ConditionFigures>;
