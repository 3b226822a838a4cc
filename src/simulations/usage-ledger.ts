import type { ModelUsage, SpeechUsage, TokenCounts, Usage } from '../domain/simulations.js';
import type { ModelClient, ModelConnection, Role } from '../llm/types.js';
import { emptyUsage } from '../llm/types.js';
import type { SecretBox } from '../kernel/secret-box.js';
import type { Speech, SpeechConnections } from '../speech/index.js';
import type { Store } from '../store/index.js';
import { speechConnections } from '../voice/speech-settings.js';
import type { Prices } from '../domain/prices.js';
import { boundedRequest, worstCallCost, type SpendGuard } from './cost-guard.js';
import { sttCost, ttsCost, usageCost } from './pricing.js';

/**
 * One simulation's spending as it runs: model calls by role and model (each role's client counts
 * its own calls into its entry as well as into the total it is handed, so the entries sum to the
 * total), and, on audio calls, the characters spoken and the seconds transcribed by each engine.
 */

const add = (into: TokenCounts, spent: TokenCounts): void => {
  into.llm_calls += spent.llm_calls;
  into.input_tokens += spent.input_tokens;
  into.cached_input_tokens += spent.cached_input_tokens;
  into.output_tokens += spent.output_tokens;
};

export function createUsageLedger() {
  const total = emptyUsage();
  /** Set when the simulation's execution has a cost cap: every spend asks it first. */
  let guard: SpendGuard | null = null;
  const entries = new Map<string, ModelUsage>();
  const tts = new Map<string, SpeechUsage['tts'][number]>();
  const stt = new Map<string, SpeechUsage['stt'][number]>();
  const entryOf = (role: Role, model: string): ModelUsage => {
    const key = `${role}\u0000${model}`;
    let entry = entries.get(key);
    if (!entry) entries.set(key, (entry = { role, model, ...emptyUsage() }));
    return entry;
  };
  return {
    /** The running total the conversation, replica and judge add to. */
    total,
    /** A client for a role's model: what each call spends (failed attempts too) is counted under it. */
    client(role: Role, model: string, client: ModelClient): ModelClient {
      return async (request, usage) => {
        const capped = guard;
        const asked = capped ? boundedRequest(request) : request;
        const release = capped
          ? await capped.hold(`a ${role} model call`, (p) => worstCallCost(model, asked, p))
          : null;
        const spent = emptyUsage();
        try {
          return await client(asked, spent);
        } finally {
          add(usage, spent);
          add(entryOf(role, model), spent);
          release?.();
        }
      };
    },
    /** Speech that counts what it synthesises and transcribes (engines' models from `connections`). */
    metered(speech: Speech, connections: SpeechConnections): Speech {
      return meteredSpeech(speech, connections, { tts, stt }, () => guard);
    },
    /** From now on every spend asks `capped` first (its execution has a cost cap). */
    guardWith(capped: SpendGuard): void {
      guard = capped;
    },
    /** What the simulation spent, as stored: the totals, by model, and speech when it had any. */
    usage(call: SpeechUsage['call'] = null): Usage {
      const speech =
        tts.size || stt.size || call
          ? { tts: [...tts.values()], stt: [...stt.values()], call }
          : undefined;
      return { ...total, by_model: [...entries.values()], ...(speech ? { speech } : {}) };
    },
  };
}

export type UsageLedger = ReturnType<typeof createUsageLedger>;

/**
 * Speech counted per simulation. Characters are counted as asked for: a line the engine's cache
 * answered is counted too (the cache is shared by every call, so which call paid is not known),
 * so a cost read from them errs high, never low.
 */
function meteredSpeech(
  speech: Speech,
  connections: SpeechConnections,
  counts: {
    tts: Map<string, SpeechUsage['tts'][number]>;
    stt: Map<string, SpeechUsage['stt'][number]>;
  },
  guard: () => SpendGuard | null,
): Speech {
  const ttsModel = (engine: string): string =>
    engine === 'openai' || engine === 'elevenlabs'
      ? (connections[engine]?.model ?? engine)
      : engine;
  // The transcriber is the OpenAI-compatible /audio/transcriptions of settings.speech.stt.
  const sttModel = (): string => connections.stt?.model ?? 'stt';
  const spoke = async (engine: string, characters: number): Promise<void> => {
    const model = ttsModel(engine);
    const release = await guard()?.hold('speech', (p) => ttsCost(engine, model, characters, p));
    const key = `${engine}/${model}`;
    const entry = counts.tts.get(key) ?? { engine, model, characters: 0 };
    entry.characters += characters;
    counts.tts.set(key, entry);
    release?.();
  };
  const heard = async (seconds: number): Promise<void> => {
    const model = sttModel();
    const release = await guard()?.hold('transcription', (p) =>
      sttCost('openai', model, seconds, p),
    );
    const key = `openai/${model}`;
    const entry = counts.stt.get(key) ?? { engine: 'openai', model, seconds: 0 };
    entry.seconds += seconds;
    counts.stt.set(key, entry);
    release?.();
  };
  // Every method delegated by name: the speech service may keep its methods on a prototype.
  return {
    voiceProblem: (voice) => speech.voiceProblem(voice),
    canTranscribe: () => speech.canTranscribe(),
    close: () => speech.close(),
    synthesize: async (text, voice, signal) => {
      await spoke(voice.engine, text.length);
      return speech.synthesize(text, voice, signal);
    },
    synthesizeForCall: async (text, voice, rate, signal) => {
      await spoke(voice.engine, text.length);
      return speech.synthesizeForCall(text, voice, rate, signal);
    },
    transcribe: async (pcm, sampleRate, signal) => {
      await heard(pcm.length / sampleRate);
      return speech.transcribe(pcm, sampleRate, signal);
    },
  };
}

/**
 * What the runner keeps of one simulation's spending: each role's client counted by model, the
 * speech it meters, and its audio call's time on the provider; `stored()` is the usage to record.
 */
export function simulationSpending(clientFor: (connection: ModelConnection) => ModelClient) {
  const ledger = createUsageLedger();
  let call: SpeechUsage['call'] = null;
  let guard: SpendGuard | null = null;
  let guardPrices: Prices | null = null;
  return {
    usage: ledger.total,
    client: (role: Role, found: ModelConnection): ModelClient =>
      ledger.client(role, found.model, clientFor(found)),
    async meteredSpeech(deps: { speech: Speech; store: Store; secrets: SecretBox }) {
      return ledger.metered(deps.speech, await speechConnections(deps.store, deps.secrets));
    },
    /** An audio call ended: its provider charges for its length. */
    called(provider: string, audio: { duration_ms?: number } | null | undefined): void {
      if (audio?.duration_ms !== undefined) call = { provider, seconds: audio.duration_ms / 1000 };
    },
    stored: (): Usage => ledger.usage(call),
    /** What it has spent so far at these prices (null: something in it has no price). */
    spentUsd: (prices: Prices): number | null => usageCost(ledger.usage(call), prices).cost_usd,
    /** From now on every spend is checked by `capped`, at `prices` (read once, as it started). */
    guardWith(capped: SpendGuard, prices: Prices): void {
      guard = capped;
      guardPrices = prices;
      ledger.guardWith(capped);
    },
    /** The prices its cost cap held it to (null: uncapped). */
    guardPrices: (): Prices | null => guardPrices,
    /** Why its cost cap stopped it, or null while it did not. */
    refusal: (): string | null => guard?.refusal() ?? null,
  };
}

export type SimulationSpending = ReturnType<typeof simulationSpending>;
