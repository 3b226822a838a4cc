import {
  NO_PRICES,
  PRICE_KEYS,
  roundUsd,
  unpricedName,
  type Prices,
  type PricesPatch,
} from '../domain/prices.js';
import type { ModelUsage, SpeechUsage, Usage } from '../domain/simulations.js';
import type { ErrorDetail } from '../errors.js';
import type { Store } from '../store/index.js';

/**
 * What usage costs at a set of prices. A model, speech engine or provider without a price makes
 * the cost unknown (null) and is named in `unpriced_models`: a reason, never a guess.
 */

export interface Cost {
  cost_usd: number | null;
  unpriced_models: string[];
}

/** Engines and providers that cost nothing: the offline system voice, the built-in demo agent. */
const FREE_TTS_ENGINES = new Set(['system']);
const FREE_PROVIDERS = new Set(['demo']);

const MILLION = 1_000_000;

/** The prices in force (none until set). */
export async function pricesOf(store: Store): Promise<Prices> {
  return { ...NO_PRICES, ...((await store.settings.get<Partial<Prices>>('prices')) ?? {}) };
}

/** The stored prices with a change applied: each list given replaces its own. */
export function patchedPrices(current: Prices, patch: PricesPatch): Prices {
  const given = Object.entries(patch).filter(([, v]) => v !== undefined);
  return { ...current, ...Object.fromEntries(given) };
}

/** Two prices for one model (engine and model; provider): each duplicate is named by its path. */
export function duplicatePrices(prices: PricesPatch): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  for (const kind of ['llm', 'tts', 'stt', 'calls'] as const) {
    const seen = new Set<string>();
    const keyOf = PRICE_KEYS[kind] as (p: unknown) => string;
    (prices[kind] ?? []).forEach((p, i) => {
      const key = keyOf(p);
      const field = kind === 'calls' ? 'provider' : kind === 'llm' ? 'model' : 'model';
      if (seen.has(key))
        problems.push({ path: `prices.${kind}[${i}].${field}`, message: `${key} is priced twice` });
      seen.add(key);
    });
  }
  return problems;
}

/** Sums costs: unknown when any part is, every unpriced name listed once. */
export function addCosts(...costs: Cost[]): Cost {
  const unpriced = [...new Set(costs.flatMap((c) => c.unpriced_models))].sort();
  const known = costs.every((c) => c.cost_usd !== null) && unpriced.length === 0;
  const sum = costs.reduce((total, c) => total + (c.cost_usd ?? 0), 0);
  return { cost_usd: known ? roundUsd(sum) : null, unpriced_models: unpriced };
}

const priced = (usd: number): Cost => ({ cost_usd: usd, unpriced_models: [] });
const unpriced = (name: string): Cost => ({ cost_usd: null, unpriced_models: [name] });

/** One role's tokens: cached input at its own price, the rest of the input at the input price. */
export function tokenCost(used: Omit<ModelUsage, 'role'>, prices: Prices): Cost {
  if (used.llm_calls === 0 && used.input_tokens === 0 && used.output_tokens === 0) return priced(0);
  const price = prices.llm.find((p) => p.model === used.model);
  if (!price) return unpriced(used.model);
  const fresh = Math.max(0, used.input_tokens - used.cached_input_tokens);
  return priced(
    (fresh * price.inputPerMTok +
      used.cached_input_tokens * price.cachedInputPerMTok +
      used.output_tokens * price.outputPerMTok) /
      MILLION,
  );
}

export const ttsCost = (
  engine: string,
  model: string,
  characters: number,
  prices: Prices,
): Cost => {
  if (FREE_TTS_ENGINES.has(engine) || characters === 0) return priced(0);
  const price = prices.tts.find((p) => p.engine === engine && p.model === model);
  return price
    ? priced((characters * price.perMChars) / MILLION)
    : unpriced(unpricedName.tts(engine, model));
};

export const sttCost = (engine: string, model: string, seconds: number, prices: Prices): Cost => {
  if (seconds === 0) return priced(0);
  const price = prices.stt.find((p) => p.engine === engine && p.model === model);
  return price
    ? priced((seconds / 60) * price.perMinute)
    : unpriced(unpricedName.stt(engine, model));
};

export const callCost = (provider: string, seconds: number, prices: Prices): Cost => {
  if (FREE_PROVIDERS.has(provider)) return priced(0);
  const price = prices.calls.find((p) => p.provider === provider);
  return price ? priced((seconds / 60) * price.perMinute) : unpriced(unpricedName.call(provider));
};

function speechCost(speech: SpeechUsage, prices: Prices): Cost {
  return addCosts(
    ...speech.tts.map((t) => ttsCost(t.engine, t.model, t.characters, prices)),
    ...speech.stt.map((t) => sttCost(t.engine, t.model, t.seconds, prices)),
    speech.call ? callCost(speech.call.provider, speech.call.seconds, prices) : priced(0),
  );
}

/**
 * What a simulation's usage costs. Usage made before it was counted by model (model calls, no
 * `by_model`) cannot be priced: its cost is unknown, with no model to name.
 */
export function usageCost(usage: Usage, prices: Prices): Cost {
  if (usage.llm_calls > 0 && usage.by_model.length === 0)
    return { cost_usd: null, unpriced_models: [] };
  return addCosts(
    ...usage.by_model.map((m) => tokenCost(m, prices)),
    usage.speech ? speechCost(usage.speech, prices) : priced(0),
  );
}
