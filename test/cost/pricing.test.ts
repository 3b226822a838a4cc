import { describe, expect, it } from 'vitest';
import type { Prices } from '../../src/domain/prices.js';
import type { Usage } from '../../src/domain/simulations.js';
import { addCosts, duplicatePrices, usageCost } from '../../src/simulations/pricing.js';

const prices: Prices = {
  llm: [{ model: 'gpt-4o', inputPerMTok: 2.5, cachedInputPerMTok: 1.25, outputPerMTok: 10 }],
  tts: [{ engine: 'openai', model: 'gpt-4o-mini-tts', perMChars: 15 }],
  stt: [{ engine: 'openai', model: 'whisper-1', perMinute: 0.006 }],
  calls: [{ provider: 'vapi', perMinute: 0.05 }],
};

const tokens = { llm_calls: 2, input_tokens: 1_000, cached_input_tokens: 400, output_tokens: 100 };

/** An audio call's usage: a caller model, speech both ways, 90 seconds on vapi. */
const audioCall = (over: Partial<NonNullable<Usage['speech']>> = {}): Usage => ({
  ...tokens,
  by_model: [{ role: 'caller', model: 'gpt-4o', ...tokens }],
  speech: {
    tts: [{ engine: 'openai', model: 'gpt-4o-mini-tts', characters: 2_000 }],
    stt: [{ engine: 'openai', model: 'whisper-1', seconds: 30 }],
    call: { provider: 'vapi', seconds: 90 },
    ...over,
  },
});

describe('pricing usage', () => {
  it('prices tokens (cached input apart), characters, transcribed minutes and call minutes', () => {
    const llm = (600 * 2.5 + 400 * 1.25 + 100 * 10) / 1e6;
    const speech = (2_000 * 15) / 1e6 + 0.5 * 0.006 + 1.5 * 0.05;
    const cost = usageCost(audioCall(), prices);
    expect(cost.unpriced_models).toEqual([]);
    expect(cost.cost_usd).toBeCloseTo(llm + speech, 6);
  });

  it('the system voice and the demo agent cost nothing; a missing price names what is unpriced', () => {
    const free = audioCall({
      tts: [{ engine: 'system', model: 'system', characters: 5_000 }],
      call: { provider: 'demo', seconds: 600 },
      stt: [],
    });
    expect(usageCost(free, prices).cost_usd).toBeCloseTo((600 * 2.5 + 400 * 1.25 + 1_000) / 1e6, 9);
    const retell = audioCall({
      call: { provider: 'retell', seconds: 60 },
      tts: [{ engine: 'elevenlabs', model: 'eleven_flash_v2_5', characters: 10 }],
    });
    expect(usageCost(retell, prices)).toEqual({
      cost_usd: null,
      unpriced_models: ['call:retell', 'tts:elevenlabs/eleven_flash_v2_5'],
    });
    const otherModel: Usage = { ...tokens, by_model: [{ role: 'judge', model: 'o3', ...tokens }] };
    expect(usageCost(otherModel, prices)).toEqual({ cost_usd: null, unpriced_models: ['o3'] });
  });

  it('usage from before it was counted by model is not priced, and names nothing', () => {
    expect(usageCost({ ...tokens, by_model: [] }, prices)).toEqual({
      cost_usd: null,
      unpriced_models: [],
    });
    const nothing = { llm_calls: 0, input_tokens: 0, output_tokens: 0, by_model: [] };
    expect(usageCost(nothing, prices)).toEqual({ cost_usd: 0, unpriced_models: [] });
  });

  it('sums to the millionth, unknown as soon as one part is', () => {
    const tenth = { cost_usd: 0.1, unpriced_models: [] };
    expect(addCosts(tenth, { cost_usd: 0.2, unpriced_models: [] }).cost_usd).toBe(0.3);
    expect(addCosts(tenth, { cost_usd: null, unpriced_models: ['x'] })).toEqual({
      cost_usd: null,
      unpriced_models: ['x'],
    });
  });

  it('names a model, engine and model, or provider priced twice by its path', () => {
    const llm = prices.llm[0]!;
    expect(
      duplicatePrices({
        llm: [llm, llm],
        tts: [prices.tts[0]!, { ...prices.tts[0]!, model: 'tts-1' }],
        calls: [prices.calls[0]!, prices.calls[0]!],
      }).map((d) => d.path),
    ).toEqual(['prices.llm[1].model', 'prices.calls[1].provider']);
  });
});
