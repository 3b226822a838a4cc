import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeBrain } from '../helpers/fake-brain.js';
import type { Json } from '../helpers/json.js';
import { startServer, tempDir, type TestServer } from '../helpers/server.js';
import { startTarget, type Target } from '../helpers/target.js';
import { costSetup, executeAndWait, MODEL, priceTheModel } from './setup.js';

/*
 * The cap is hard when simulations cost more than the estimate each reserves as it starts: the
 * fake model answers every call with a different number of tokens (a quarter of the request's
 * bytes in, up to its max_tokens out), so some simulations of a capped run cost several times the
 * mean of the uncapped one before it. Before each model call a simulation holds the call's worst
 * case; a raise the cap refuses stops it, skipped, with what it said and spent kept.
 */

/**
 * Completion sizes spread over the answer length, in an order fixed by the call count, and at most
 * `ceiling.tokens`: the test makes answers short while the estimate is learnt, long afterwards
 * (the case the cap must survive: a run dearer than the past it was estimated from).
 */
function varyingUsage(ceiling: { tokens: number }) {
  let n = 0;
  return ({ requestBytes, maxTokens }: { requestBytes: number; maxTokens: number | null }) => {
    n++;
    const most = Math.min(maxTokens ?? 300, ceiling.tokens);
    return {
      prompt_tokens: Math.ceil(requestBytes / 4),
      completion_tokens: 1 + ((n * 7_919) % most),
    };
  };
}

const roundUsd = (usd: number): number => Math.round(usd * 1e6) / 1e6;

describe('the spend cap holds on every model call, at concurrency 8', () => {
  let brain: Awaited<ReturnType<typeof startFakeBrain>>;
  const ceiling = { tokens: 50 };
  /** Every call 20 tokens in and 8 out: one simulation costs less than one call's worst case. */
  let steady: Awaited<ReturnType<typeof startFakeBrain>>;
  let target: Target;
  let s: TestServer | null = null;

  beforeAll(async () => {
    // Slow answers: the pool's 8 simulations are in flight together.
    [brain, steady, target] = await Promise.all([
      startFakeBrain({ delayMs: 30, usage: varyingUsage(ceiling) }),
      startFakeBrain(),
      startTarget(),
    ]);
  });
  afterAll(() => Promise.all([brain.stop(), steady.stop(), target.stop()]));
  afterEach(async () => {
    await s?.stop();
    s = null;
  });

  const start = (model = brain) =>
    startServer({
      dataDir: tempDir(),
      llmDefault: { kind: 'openai', baseUrl: model.url, apiKey: 'k', model: MODEL },
      modelPolicy: { attempts: 2, baseDelayMs: 5, timeoutMs: 10_000 },
    });

  /** A capped execution's answer checked: never past the cap, its parts summing to its cost. */
  function expectWithinCap(execution: Json, sims: Json[], cap: number): void {
    expect(execution.max_cost_usd).toBe(cap);
    expect(execution.cost_usd).not.toBeNull();
    expect(execution.cost_usd as number).toBeLessThanOrEqual(cap);
    const costs = sims.map((x) => x.cost_usd as number);
    expect(costs.every((c) => typeof c === 'number' && c >= 0)).toBe(true);
    expect(execution.cost_usd).toBe(roundUsd(costs.reduce((a, b) => a + b, 0)));
    const counts = execution.counts as Record<string, number>;
    expect(counts.failed).toBe(0);
    expect(counts.completed! + counts.skipped!).toBe(sims.length);
    for (const x of sims.filter((x) => x.status === 'skipped')) {
      expect(x.error).toContain('maxCostUsd');
      expect(x).toMatchObject({ score: null, passed: null });
    }
  }

  it('simulations costing more than the estimate never take the spend past the cap', async () => {
    s = await start();
    const ids = await costSetup(s, target.url);
    await priceTheModel(s);
    await s.call('PATCH', '/v1/settings', { simulations: { concurrency: 8 } });
    ceiling.tokens = 50;
    const first = await executeAndWait(s, ids.scenario, { runs: 8 });
    const costs = first.sims.map((x) => x.cost_usd as number);
    expect(new Set(costs).size, 'the fake model makes costs vary').toBeGreaterThan(1);
    const mean = costs.reduce((a, b) => a + b, 0) / costs.length;
    // From now on answers are up to 20 times longer: each simulation costs several times the
    // mean it reserves as it starts.
    ceiling.tokens = 1_024;
    const stoppedMidRun: Json[] = [];
    // Several capped runs: which simulation is refused where depends on how their calls interleave.
    for (const share of [20, 30, 40]) {
      const cap = roundUsd(share * mean);
      const { execution, sims } = await executeAndWait(s, ids.scenario, {
        runs: 20,
        maxCostUsd: cap,
      });
      expectWithinCap(execution, sims, cap);
      const counts = execution.counts as Record<string, number>;
      expect(counts.skipped, JSON.stringify(counts)).toBeGreaterThan(0);
      expect(counts.completed, JSON.stringify(counts)).toBeGreaterThan(0);
      // Skipped simulations are in no pass rate: the judged ones all passed.
      expect(execution.pass_rate).toBe(first.execution.pass_rate);
      stoppedMidRun.push(
        ...sims.filter((x) => x.status === 'skipped' && (x.turns as Json[]).length > 1),
      );
    }
    // Stopped mid-run: its turns so far stay on the record, and what it spent is counted.
    expect(stoppedMidRun.length).toBeGreaterThan(0);
    expect(stoppedMidRun.some((x) => (x.cost_usd as number) > 0)).toBe(true);
  }, 600_000);

  it('a capped simulation is priced as its cap held it: prices raised mid-run do not pass the cap', async () => {
    // Every model call after the first raises the model's price a hundredfold (once): the run is
    // under way with the prices it started with when the new ones land.
    const raise = { armed: false, done: null as Promise<unknown> | null };
    const pricey = await startFakeBrain({
      delayMs: 30,
      usage: () => {
        if (raise.armed && !raise.done)
          raise.done = s!.call('PATCH', '/v1/settings', {
            prices: {
              llm: [
                { model: MODEL, inputPerMTok: 100, cachedInputPerMTok: 50, outputPerMTok: 200 },
              ],
            },
          });
        return { prompt_tokens: 20, completion_tokens: 8 };
      },
    });
    try {
      s = await start(pricey);
      const ids = await costSetup(s, target.url);
      await priceTheModel(s);
      const first = await executeAndWait(s, ids.scenario, {});
      const each = first.sims[0]!.cost_usd as number;
      // Room for each call's worst case (its whole max_tokens), far below a hundredfold price.
      const cap = roundUsd(each * 50);
      raise.armed = true;
      const { execution, sims } = await executeAndWait(s, ids.scenario, { maxCostUsd: cap });
      await raise.done;
      expectWithinCap(execution, sims, cap);
      // At the prices it started with: what the same run cost before the raise.
      expect(sims[0]).toMatchObject({ status: 'completed', cost_usd: each });
    } finally {
      await pricey.stop();
    }
  }, 120_000);

  it('a simulation whose next call could pass its share stops there, skipped, its turns kept', async () => {
    s = await start(steady);
    const ids = await costSetup(s, target.url);
    await priceTheModel(s);
    const first = await executeAndWait(s, ids.scenario, {});
    const each = first.sims[0]!.cost_usd as number;
    // Its share (the mean so far) is taken as it starts; the caller's first call, at its whole
    // answer length, could cost more than that and the cap holds nothing more.
    const cap = roundUsd(each * 1.01);
    const { execution, sims } = await executeAndWait(s, ids.scenario, { maxCostUsd: cap });
    expectWithinCap(execution, sims, cap);
    expect(execution.status).toBe('skipped');
    const [sim] = sims;
    expect(sim).toMatchObject({ status: 'skipped', results: [] });
    expect(sim!.error).toContain('caller model call');
    // The agent's greeting was said before the caller's turn was refused.
    expect((sim!.turns as Json[])[0]).toMatchObject({ role: 'agent' });
  }, 120_000);
});
