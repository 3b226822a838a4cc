import { z } from 'zod';
import { mask, type Sealed, type SecretBox } from '../kernel/secret-box.js';
import type { SpeechConnections } from '../speech/types.js';
import type { Store } from '../store/index.js';

/** The speech engines audio simulations use beyond the offline voice: keys sealed at rest. */

const ENGINES = ['openai', 'elevenlabs', 'stt'] as const;
type EngineKey = (typeof ENGINES)[number];

/** Where each engine is reached when its setting gives no base URL or model. */
const DEFAULTS: Record<EngineKey, { baseUrl: string; model: string }> = {
  openai: { baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini-tts' },
  elevenlabs: { baseUrl: 'https://api.elevenlabs.io', model: 'eleven_flash_v2_5' },
  stt: { baseUrl: 'https://api.openai.com/v1', model: 'whisper-1' },
};

type StoredEngine = { baseUrl: string; model: string; apiKey: Sealed };
type StoredSpeech = Partial<Record<EngineKey, StoredEngine>>;

export const EnginePatch = z
  .strictObject({
    baseUrl: z
      .url({ protocol: /^https?$/ })
      .max(2_000)
      .optional(),
    apiKey: z
      .string()
      .min(1)
      .max(4_096)
      .optional()
      .describe('Stored encrypted; answered masked; sending the mask back keeps it'),
    model: z.string().min(1).max(200).optional(),
  })
  .nullable()
  .optional();

export const SpeechPatch = z.strictObject({
  openai: EnginePatch.describe('Any OpenAI-compatible /audio/speech (persona voices)'),
  elevenlabs: EnginePatch.describe('ElevenLabs text-to-speech (persona voices)'),
  stt: EnginePatch.describe(
    "Any OpenAI-compatible /audio/transcriptions: the agent's words where its audio line carries no text",
  ),
});
export type SpeechPatch = z.infer<typeof SpeechPatch>;

const PresentedEngine = z
  .object({ baseUrl: z.string(), model: z.string(), apiKey: z.string().describe('Masked') })
  .nullable();
export const PresentedSpeech = z.object({
  openai: PresentedEngine,
  elevenlabs: PresentedEngine,
  stt: PresentedEngine,
});

const stored = async (store: Store): Promise<StoredSpeech> =>
  (await store.settings.get<StoredSpeech>('speech')) ?? {};

/** Each engine's connection with its key opened, for the speech service. */
export async function speechConnections(
  store: Store,
  secrets: SecretBox,
): Promise<SpeechConnections> {
  const s = await stored(store);
  const open = (k: EngineKey) => {
    const e = s[k];
    return e ? { baseUrl: e.baseUrl, model: e.model, apiKey: secrets.open(e.apiKey) } : null;
  };
  return { openai: open('openai'), elevenlabs: open('elevenlabs'), stt: open('stt') };
}

/** The speech settings as answered: keys masked. */
export async function presentSpeech(store: Store, secrets: SecretBox) {
  const c = await speechConnections(store, secrets);
  const show = (e: SpeechConnections[EngineKey]) => e && { ...e, apiKey: mask(e.apiKey) };
  return { openai: show(c.openai), elevenlabs: show(c.elevenlabs), stt: show(c.stt) };
}

/** Merges a patch into what is stored (null removes an engine); a masked key sent back keeps the key. */
export async function patchSpeech(
  store: Store,
  secrets: SecretBox,
  patch: SpeechPatch,
): Promise<{ errors: { path: string; message: string }[]; speech: StoredSpeech }> {
  const speech: StoredSpeech = { ...(await stored(store)) };
  const errors: { path: string; message: string }[] = [];
  for (const k of ENGINES) {
    const p = patch[k];
    if (p === undefined) continue;
    if (p === null) {
      delete speech[k];
      continue;
    }
    const before = speech[k];
    let apiKey = before?.apiKey;
    if (p.apiKey !== undefined) apiKey = secrets.sealUnlessMask(p.apiKey, apiKey);
    if (!apiKey) {
      errors.push({ path: `speech.${k}.apiKey`, message: 'is required' });
      continue;
    }
    speech[k] = {
      baseUrl: (p.baseUrl ?? before?.baseUrl ?? DEFAULTS[k].baseUrl).replace(/\/+$/, ''),
      model: p.model ?? before?.model ?? DEFAULTS[k].model,
      apiKey,
    };
  }
  return { errors, speech };
}

/** How long recordings of audio calls are kept. */
export const RECORDING_RETENTION = { default: 30, min: 1, max: 3650 };

export async function recordingRetentionDays(store: Store): Promise<number> {
  const s = await store.settings.get<{ retentionDays?: number }>('recordings');
  return s?.retentionDays ?? RECORDING_RETENTION.default;
}
