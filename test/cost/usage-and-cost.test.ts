import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeBrain } from '../helpers/fake-brain.js';
import type { Json } from '../helpers/json.js';
import { startServer, tempDir, type TestServer } from '../helpers/server.js';
import { storedAt, storedRows } from '../helpers/store-under-test.js';
import { startTarget, type Target } from '../helpers/target.js';
import { costSetup, executeAndWait, expectedCost, MODEL, priceTheModel } from './setup.js';

const TOKENS = ['llm_calls', 'input_tokens', 'cached_input_tokens', 'output_tokens'] as const;

describe('usage by model, and what simulations and executions cost', () => {
  let brain: Awaited<ReturnType<typeof startFakeBrain>>;
  let target: Target;
  let s: TestServer | null = null;
  let dataDir: string;

  const start = () =>
    startServer({
      dataDir,
      llmDefault: { kind: 'openai', baseUrl: brain.url, apiKey: 'k', model: MODEL },
      modelPolicy: { attempts: 2, baseDelayMs: 5, timeoutMs: 5_000 },
    });

  beforeAll(async () => {
    // Of every call's 20 prompt tokens, 6 are answered as cached.
    [brain, target] = await Promise.all([startFakeBrain({ cachedTokens: 6 }), startTarget()]);
  });
  afterAll(() => Promise.all([brain.stop(), target.stop()]));
  afterEach(async () => {
    await s?.stop();
    s = null;
  });

  it('counts every role by model, summing to the usage; prices it with cached input apart', async () => {
    dataDir = tempDir();
    s = await start();
    const ids = await costSetup(s, target.url);
    await priceTheModel(s);
    const { execution, sims } = await executeAndWait(s, ids.scenario, { runs: 2 });
    expect(execution.status).toBe('completed');
    for (const sim of sims) {
      const { usage } = sim as { usage: Json };
      expect(usage.by_model.map((m: Json) => m.role).sort()).toEqual([
        'caller',
        'judge',
        'replica',
      ]);
      for (const m of usage.by_model) expect(m.model).toBe(MODEL);
      for (const field of TOKENS)
        expect(usage.by_model.reduce((sum: number, m: Json) => sum + m[field], 0)).toBe(
          usage[field],
        );
      expect(usage.cached_input_tokens).toBe(6 * usage.llm_calls);
      expect(usage.input_tokens).toBe(20 * usage.llm_calls);
      expect(sim.cost_usd).toBeCloseTo(expectedCost(usage), 9);
      expect(sim.cost_usd).toBeGreaterThan(0);
      expect(sim.unpriced_models).toEqual([]);
    }
    const sum = sims.reduce((total, sim) => total + (sim.cost_usd as number), 0);
    expect(execution.cost_usd).toBeCloseTo(sum, 9);
    expect(execution.unpriced_models).toEqual([]);
    expect(execution.counts.skipped).toBe(0);
    expect(execution.max_cost_usd).toBeNull();
    const one = await s.ws('GET', `/simulations/${sims[0]!.id}`);
    expect(one.body.data.simulation).toMatchObject({
      cost_usd: sims[0]!.cost_usd,
      usage: sims[0]!.usage,
    });
    const listed = (await s.ws('GET', '/executions')).body.data.executions[0];
    expect(listed).toMatchObject({ id: execution.id, cost_usd: execution.cost_usd });
  }, 120_000);

  it('an unpriced model leaves the cost null and names the model', async () => {
    dataDir = tempDir();
    s = await start();
    const ids = await costSetup(s, target.url);
    const { execution, sims } = await executeAndWait(s, ids.scenario, {});
    expect(sims[0]).toMatchObject({
      status: 'completed',
      cost_usd: null,
      unpriced_models: [MODEL],
    });
    expect(sims[0]!.usage.llm_calls).toBeGreaterThan(0);
    expect(execution).toMatchObject({ cost_usd: null, unpriced_models: [MODEL] });
  }, 120_000);

  it('the estimate prices a never-run scenario at maxTurns, then its past usage, and queues nothing', async () => {
    dataDir = tempDir();
    s = await start();
    const ids = await costSetup(s, target.url);
    const estimate = async (body: Json) => {
      const res = await s!.ws('POST', `/scenarios/${ids.scenario}/estimate`, body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data.estimate;
    };
    // Unpriced: no guess, the model named.
    expect(await estimate({ runs: 3 })).toEqual({
      simulations: 3,
      cost_usd: null,
      unpriced_models: [MODEL],
    });
    await priceTheModel(s);
    // Never run: maxTurns (6) replies of each role at the documented defaults.
    const perTurn = { caller: [1_000, 60], judge: [1_500, 100], replica: [1_500, 120] };
    const defaults = Object.values(perTurn).reduce(
      (sum, [input, output]) =>
        sum +
        expectedCost({
          input_tokens: input! * 6,
          cached_input_tokens: 0,
          output_tokens: output! * 6,
        }),
      0,
    );
    const never = await estimate({ runs: 3 });
    expect(never.simulations).toBe(3);
    expect(never.cost_usd).toBeCloseTo(3 * defaults, 6);
    expect((await s.ws('GET', '/executions')).body.data.executions).toEqual([]);
    const { sims } = await executeAndWait(s, ids.scenario, { runs: 2 });
    const mean = sims.reduce((sum, sim) => sum + (sim.cost_usd as number), 0) / sims.length;
    const past = await estimate({ runs: 4 });
    expect(past).toMatchObject({ simulations: 4, unpriced_models: [] });
    expect(past.cost_usd).toBeCloseTo(4 * mean, 6);
    expect((await s.ws('GET', '/executions')).body.data.executions).toHaveLength(1);
    const unknown = await s.ws('POST', `/scenarios/${ids.scenario}/estimate`, { runz: 2 });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('runz');
  }, 120_000);

  it('simulations made before costs answer by_model [] and no cost, never invented', async () => {
    dataDir = tempDir();
    s = await start();
    const ids = await costSetup(s, target.url);
    await priceTheModel(s);
    const { execution } = await executeAndWait(s, ids.scenario, {});
    await s.stop();
    s = null;
    // The store as the build before this one left it: without the columns, at schema version 13.
    const at = await storedAt(dataDir);
    await storedRows(
      at,
      `UPDATE simulations SET usage = '{"llm_calls":5,"input_tokens":100,"output_tokens":40}'`,
    );
    for (const column of ['cost_usd', 'unpriced_models', 'reserved_usd'])
      await storedRows(at, `ALTER TABLE simulations DROP COLUMN ${column}`);
    for (const column of ['max_cost_usd', 'budget_per_simulation_usd', 'reserved_usd', 'spent_usd'])
      await storedRows(at, `ALTER TABLE executions DROP COLUMN ${column}`);
    await storedRows(at, 'ALTER TABLE schedules DROP COLUMN max_cost_usd');
    await storedRows(at, 'DELETE FROM schema_migrations WHERE version = 14');

    s = await start();
    const sims = (await s.ws('GET', `/executions/${execution.id}/simulations`)).body.data
      .simulations as Json[];
    expect(sims[0]).toMatchObject({
      usage: { llm_calls: 5, input_tokens: 100, output_tokens: 40, by_model: [] },
      cost_usd: null,
      unpriced_models: [],
    });
    expect(sims[0]!.usage).not.toHaveProperty('cached_input_tokens');
    const read = (await s.ws('GET', `/executions/${execution.id}`)).body.data.execution;
    expect(read).toMatchObject({ cost_usd: null, unpriced_models: [], max_cost_usd: null });
  }, 120_000);
});
