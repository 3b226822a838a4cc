import { z } from 'zod';

/**
 * What the engine prices simulations at (PATCH /v1/settings {prices}), defined once: the settings
 * operation validates and answers it, and costs, estimates and spend caps read it. Dollars, never
 * negative; a model, engine or provider missing here is "unpriced", never guessed.
 */

const Usd = z.number().min(0).max(1_000_000);
const Name = z.string().trim().min(1).max(200);

export const LlmPrice = z.strictObject({
  model: Name.describe('The model name as the role settings give it'),
  inputPerMTok: Usd.describe('Dollars per million input tokens (those not cached)'),
  cachedInputPerMTok: Usd.describe('Dollars per million cached input tokens'),
  outputPerMTok: Usd.describe('Dollars per million output tokens'),
});
export type LlmPrice = z.infer<typeof LlmPrice>;

export const TtsPrice = z.strictObject({
  engine: Name.describe('openai or elevenlabs (the system voice costs nothing)'),
  model: Name,
  perMChars: Usd.describe('Dollars per million characters synthesised'),
});
export type TtsPrice = z.infer<typeof TtsPrice>;

export const SttPrice = z.strictObject({
  engine: Name.describe('openai: the OpenAI-compatible speech-to-text of settings.speech.stt'),
  model: Name,
  perMinute: Usd.describe('Dollars per minute transcribed'),
});
export type SttPrice = z.infer<typeof SttPrice>;

export const CallPrice = z.strictObject({
  provider: Name.describe('vapi, retell, elevenlabs, bland, twilio, http (the demo agent is free)'),
  perMinute: Usd.describe("Dollars per minute of an audio call: the provider's charge"),
});
export type CallPrice = z.infer<typeof CallPrice>;

const MAX_PRICES = 500;

export const Prices = z.object({
  llm: z.array(LlmPrice).max(MAX_PRICES),
  tts: z.array(TtsPrice).max(MAX_PRICES),
  stt: z.array(SttPrice).max(MAX_PRICES),
  calls: z.array(CallPrice).max(MAX_PRICES),
});
export type Prices = z.infer<typeof Prices>;

/** A change: each list given replaces the one stored, the others stay. */
export const PricesPatch = z.strictObject({
  llm: Prices.shape.llm.optional(),
  tts: Prices.shape.tts.optional(),
  stt: Prices.shape.stt.optional(),
  calls: Prices.shape.calls.optional(),
});
export type PricesPatch = z.infer<typeof PricesPatch>;

/** Dollars to a millionth: sums of floating-point costs answer no 0.30000000000000004. */
export const roundUsd = (usd: number): number => Math.round(usd * 1e6) / 1e6;

export const NO_PRICES: Prices = { llm: [], tts: [], stt: [], calls: [] };

/** What a list is keyed by: one price per model (per engine and model; per provider). */
export const PRICE_KEYS = {
  llm: (p: LlmPrice) => p.model,
  tts: (p: TtsPrice) => `${p.engine}/${p.model}`,
  stt: (p: SttPrice) => `${p.engine}/${p.model}`,
  calls: (p: CallPrice) => p.provider,
} as const;

/** The names an unpriced speech engine or provider is listed under in `unpriced_models`. */
export const unpricedName = {
  tts: (engine: string, model: string) => `tts:${engine}/${model}`,
  stt: (engine: string, model: string) => `stt:${engine}/${model}`,
  call: (provider: string) => `call:${provider}`,
};
