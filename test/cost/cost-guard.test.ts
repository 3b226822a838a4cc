import { describe, expect, it } from 'vitest';
import { NO_PRICES, type Prices } from '../../src/domain/prices.js';
import { SpendRefused } from '../../src/llm/spend-refused.js';
import type { Reservation } from '../../src/store/cost-budget.js';
import {
  boundedRequest,
  CAPPED_MAX_OUTPUT_TOKENS,
  createSpendGuard,
  inputTokenBound,
  pendingCallUsd,
  worstCallCost,
} from '../../src/simulations/cost-guard.js';

/*
 * The guard's arithmetic, with the store's conditional UPDATE played by a budget in memory that
 * grants a raise only while spent + reserved stays within the cap (the HTTP tests run it on the
 * real store: hard-cap.test.ts).
 */

const prices: Prices = {
  ...NO_PRICES,
  llm: [{ model: 'm', inputPerMTok: 1, cachedInputPerMTok: 0.5, outputPerMTok: 2 }],
  calls: [{ provider: 'vapi', perMinute: 0.06 }],
};

/** One simulation's reservation against a cap of `cap`, others holding `others` of it. */
function budget(cap: number, others = 0) {
  const raises: number[] = [];
  let reserved = 0;
  return {
    raises,
    raise: (toUsd: number): Promise<Reservation> => {
      if (toUsd <= reserved) return Promise.resolve('reserved');
      if (others + toUsd > cap) return Promise.resolve('refused');
      raises.push(toUsd);
      reserved = toUsd;
      return Promise.resolve('reserved');
    },
  };
}

const request = {
  system: 'You are a caller. ☎',
  messages: [{ role: 'user' as const, content: 'Hello there' }],
};

describe('the spend guard', () => {
  it('bounds a request: its bytes as input tokens, its answer at most 1,024 tokens when it names none', () => {
    const bytes =
      Buffer.byteLength(request.system) + Buffer.byteLength(JSON.stringify(request.messages));
    expect(inputTokenBound(request)).toBeGreaterThan(bytes);
    expect(boundedRequest(request).maxTokens).toBe(CAPPED_MAX_OUTPUT_TOKENS);
    expect(boundedRequest({ ...request, maxTokens: 50 }).maxTokens).toBe(50);
    const worst = worstCallCost('m', { ...request, maxTokens: 50 }, prices).cost_usd!;
    expect(worst).toBeCloseTo((inputTokenBound(request) * 1 + 50 * 2) / 1e6, 12);
    expect(worstCallCost('other', request, prices)).toEqual({
      cost_usd: null,
      unpriced_models: ['other'],
    });
  });

  it('raises the reservation to spent + in flight + the worst case, and refuses past the cap', async () => {
    let spent = 0;
    const store = budget(0.01);
    const guard = createSpendGuard({
      raise: store.raise,
      prices,
      spentUsd: () => spent,
      pendingUsd: 0,
    });
    const worst = () => ({ cost_usd: 0.004, unpriced_models: [] });
    const first = await guard.hold('a caller model call', worst);
    // Two in flight: the second counts the first's worst case too.
    const second = await guard.hold('a judge model call', worst);
    expect(store.raises).toHaveLength(2);
    expect(store.raises[1]).toBeCloseTo(0.008 + 1e-6, 12);
    spent = 0.003;
    first();
    second();
    spent = 0.007;
    await expect(guard.hold('a replica model call', worst)).rejects.toThrow(SpendRefused);
    expect(guard.refusal()).toContain('maxCostUsd');
    expect(guard.refusal()).toContain('a replica model call');
    // Stopped for good: nothing more is spent, even what would fit.
    await expect(
      guard.hold('speech', () => ({ cost_usd: 0, unpriced_models: [] })),
    ).rejects.toThrow(SpendRefused);
  });

  it("holds an audio call's whole length from the start; an unpriced spend is refused", async () => {
    const pending = pendingCallUsd(prices, {
      mode: 'audio',
      provider: 'vapi',
      maxDurationMs: 60_000,
    });
    // A minute at $0.06, and the 10 s a call may run on as it hangs up.
    expect(pending).toBeCloseTo(0.07, 12);
    expect(pendingCallUsd(prices, { mode: 'text', provider: 'vapi', maxDurationMs: 60_000 })).toBe(
      0,
    );
    const store = budget(0.0705);
    const guard = createSpendGuard({
      raise: store.raise,
      prices,
      spentUsd: () => 0,
      pendingUsd: pending,
    });
    const release = await guard.hold('speech', () => ({ cost_usd: 0.0004, unpriced_models: [] }));
    release();
    expect(store.raises[0]).toBeGreaterThan(0.0704);
    await expect(
      guard.hold('a caller model call', () => ({ cost_usd: 0.001, unpriced_models: [] })),
    ).rejects.toThrow(SpendRefused);

    const unpriced = createSpendGuard({
      raise: budget(1).raise,
      prices,
      spentUsd: () => 0,
      pendingUsd: 0,
    });
    await expect(
      unpriced.hold('a caller model call', () => ({ cost_usd: null, unpriced_models: ['x'] })),
    ).rejects.toThrow(/no price/);
  });
});
