import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModels } from '../helpers/fake-models.js';
import {
  connectHttpAgent,
  createPersona,
  startLocalServer,
  type LocalServer,
} from '../helpers/http-agents.js';
import type { Json } from '../helpers/json.js';
import { startServer, type TestServer } from '../helpers/server.js';

/**
 * Comparisons over the API, on executions really run: a scripted caller against an agent of our
 * own whose every answer the test decides, one simulation at a time (concurrency 1), so each run
 * passes or fails as planned. Runs on SQLite, and on PostgreSQL with CALLBENCH_TEST_STORE=postgres.
 */

const PASS = 'Your tracking number is TRK1.';
const FAIL = 'I cannot find that order.';
/** Passes "Mentions a number" only. */
const HALF = 'The number is lost, sorry.';
const DOWN = 'down';

describe('comparisons', () => {
  let s: TestServer;
  let agentServer: LocalServer;
  let models: Awaited<ReturnType<typeof startFakeModels>>;
  /** The agent's next answers, in the order the simulations run; then PASS. */
  const plan: string[] = [];
  let agent: string;
  let personas: string[];

  beforeAll(async () => {
    [s, agentServer, models] = await Promise.all([
      startServer(),
      startLocalServer((_req, res) => {
        const next = plan.shift() ?? PASS;
        if (next === DOWN) return void res.writeHead(503).end('down');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ reply: next }));
      }),
      startFakeModels(),
    ]);
    await s.call('PATCH', '/v1/settings', {
      simulations: { concurrency: 1 },
      llm: { judge: { kind: 'openai', baseUrl: models.url, apiKey: 'k-0123456789', model: 'j' } },
    });
    agent = await connectHttpAgent(s, 'shop', agentServer.url);
    personas = [await createPersona(s, 'Ann'), await createPersona(s, 'Bo')];
  });
  afterAll(async () => {
    await s.stop();
    await Promise.all([agentServer.stop(), models.stop()]);
  });

  /** A scenario of its own (Ann and Bo call the agent), scored on two `contains` metrics. */
  async function makeScenario(): Promise<{ scenario: string; scorecard: string }> {
    const scorecard = (
      await s.ws('POST', '/scorecards', {
        name: 'Tracking',
        metrics: [
          {
            name: 'Gives tracking',
            category: 'accuracy',
            type: 'contains',
            config: { text: 'TRK1' },
          },
          {
            name: 'Mentions a number',
            category: 'accuracy',
            type: 'contains',
            config: { text: 'number' },
          },
        ],
        passThreshold: 100,
      })
    ).body.data.scorecard.id as string;
    const scenario = (
      await s.ws('POST', '/scenarios', {
        name: 'Parcel',
        prompt: 'Asks where the parcel is.',
        personas,
        targetAgents: [agent],
        scorecard,
        script: [{ say: 'Where is my parcel?' }],
      })
    ).body.data.scenario.id as string;
    return { scenario, scorecard };
  }

  /** Runs the scenario 5 times per persona (Ann's 5, then Bo's) with these answers; its id. */
  async function run(scenario: string, answers: string[]): Promise<string> {
    plan.push(...answers);
    const id = (await s.ws('POST', `/scenarios/${scenario}/execute`, { runs: 5 })).body.data
      .execution.id as string;
    const done = (await s.ws('GET', `/executions/${id}?wait=60`)).body.data.execution;
    expect(done.status).toBe('completed');
    return id;
  }

  const compare = (body: Json) => s.ws('POST', '/comparisons', body);

  it('tells a regression from noise: rows worst first, metrics, flakiness, errored, stored', async () => {
    const { scenario } = await makeScenario();
    const baseline = await run(scenario, Array(10).fill(PASS));
    // Ann: every run fails; Bo: 3 pass, one says half, one errors (the agent is down).
    const candidate = await run(scenario, [...Array(5).fill(FAIL), PASS, PASS, PASS, HALF, DOWN]);
    const sims = (await s.ws('GET', `/executions/${candidate}/simulations`)).body.data.simulations;
    expect(
      sims.map((x: Json) => (x.status === 'failed' ? 'E' : x.passed ? 'P' : 'F')).join(''),
    ).toBe('FFFFFPPPFE');
    const res = await compare({
      baseline: { executionId: baseline },
      candidate: { executionIds: [candidate] },
    });
    expect(res.status).toBe(201);
    const c = res.body.data.comparison;
    expect(c.overall).toMatchObject({
      pairs: 9,
      baseline: { passed: 9, total: 9, pass_rate: 1 },
      candidate: { passed: 3, total: 9 },
      verdict: 'regressed',
      adjusted_verdict: 'regressed',
      runs_needed: null,
    });
    expect(c.overall.difference.value).toBeCloseTo(-6 / 9, 10);
    expect(c.overall.difference.interval[1]).toBeLessThan(0);
    expect(c.errored).toEqual({ baseline: 0, candidate: 1, simulation_ids: [sims[9].id] });
    expect(c.unpaired).toEqual([]);
    // Worst first: Ann regressed; Bo 4 pairs (one errored) is too few to say.
    expect(c.rows.map((r: Json) => [r.persona_name, r.verdict, r.pairs, r.errored])).toEqual([
      ['Ann', 'regressed', 5, { baseline: 0, candidate: 0 }],
      ['Bo', 'insufficient_data', 4, { baseline: 0, candidate: 1 }],
    ]);
    expect(c.rows[1].runs_needed).toBe(5);
    expect(c.rows[0]).toMatchObject({
      scenario_name: 'Parcel',
      flaky: { baseline: false, candidate: false },
    });
    expect(c.rows[1].flaky).toEqual({ baseline: false, candidate: true });
    // Scores: 100 → 0 for Ann's pairs (each metric is all or nothing).
    expect(c.rows[0].score).toMatchObject({
      baseline_mean: 100,
      candidate_mean: 0,
      difference: -100,
    });
    expect(c.rows[0].score.interval).toEqual([-100, -100]);
    const metric = (name: string) => c.metrics.find((m: Json) => m.metric === name);
    expect(metric('Gives tracking')).toMatchObject({
      pairs: 9,
      candidate: { passed: 3 },
      verdict: 'regressed',
    });
    expect(metric('Mentions a number')).toMatchObject({ pairs: 9, candidate: { passed: 4 } });
    expect(c.metrics[0].metric).toBe('Gives tracking');
    expect(c.flakiness).toEqual({
      baseline: { pass_k: 1, disagreeing: [] },
      candidate: {
        pass_k: 0,
        disagreeing: [{ scenario_id: scenario, persona_id: c.rows[1].persona_id }],
      },
    });
    expect(c.sample_size.runs_per_group).toBeGreaterThan(0);
    expect(c.conditions_differ).toEqual([]);
    expect(c.voice).toBeNull();
    expect(c.baseline).toMatchObject({
      execution_ids: [baseline],
      simulations: 10,
      agent_versions: [],
    });
    expect(c.candidate.scenario_hashes).toEqual(c.baseline.scenario_hashes);

    // The same inputs give the same intervals; the comparison is stored, newest first.
    const again = (
      await compare({ baseline: { executionId: baseline }, candidate: { executionId: candidate } })
    ).body.data.comparison;
    expect(again.rows).toEqual(c.rows);
    expect(again.overall).toEqual(c.overall);
    const listed = (await s.ws('GET', '/comparisons?limit=1')).body.data;
    expect(listed.comparisons.map((x: Json) => x.id)).toEqual([again.id]);
    expect(listed.pagination).toMatchObject({ limit: 1, has_more: true });
    expect(listed.pagination.total).toBeGreaterThanOrEqual(2);
    expect((await s.ws('GET', `/comparisons/${c.id}`)).body.data.comparison).toEqual(c);
  });

  it('rescores the baseline with the candidate scorecard (the judge asked), stored results untouched', async () => {
    const { scenario, scorecard } = await makeScenario();
    const baseline = await run(scenario, Array(10).fill(PASS));
    const before = (await s.ws('GET', `/executions/${baseline}/simulations`)).body.data.simulations;
    // The test changes: a judge criterion joins the scorecard (a scorecard edit, no agent change).
    const put = await s.ws('PUT', `/scorecards/${scorecard}`, {
      metrics: [
        {
          name: 'Gives tracking',
          category: 'accuracy',
          type: 'contains',
          config: { text: 'TRK1' },
        },
        { name: 'Polite', category: 'tone', type: 'llm_judge', config: { criterion: 'Is polite' } },
      ],
    });
    expect(put.status).toBe(200);
    for (let i = 0; i < 20; i++)
      models.openai(JSON.stringify({ score: 20, reasoning: 'curt', evidence: [] }));
    const candidate = await run(scenario, Array(10).fill(PASS));
    const plain = (
      await compare({ baseline: { executionId: baseline }, candidate: { executionId: candidate } })
    ).body.data.comparison;
    expect(plain.conditions_differ.map((d: Json) => d.field)).toEqual(['scorecard']);
    expect(plain.rescored_baseline).toBe(false);
    expect(plain.overall).toMatchObject({ baseline: { passed: 10 }, candidate: { passed: 0 } });

    const judged = models.requests.length;
    const res = await compare({
      baseline: { executionId: baseline },
      candidate: { executionId: candidate },
      rescoreBaseline: true,
    });
    expect(res.status).toBe(201);
    const c = res.body.data.comparison;
    expect(models.requests.length - judged).toBe(10);
    expect(c.rescored_baseline).toBe(true);
    expect(c.conditions_differ).toEqual([]);
    // Judged by the same scorecard, both sides fail the judge alike: no difference.
    expect(c.overall).toMatchObject({
      baseline: { passed: 0 },
      candidate: { passed: 0 },
      verdict: 'no_significant_difference',
    });
    expect(c.metrics.map((m: Json) => m.metric).sort()).toEqual(['Gives tracking', 'Polite']);
    const after = (await s.ws('GET', `/executions/${baseline}/simulations`)).body.data.simulations;
    expect(after).toEqual(before);
    expect(after[0].results.map((r: Json) => r.name)).toEqual([
      'Gives tracking',
      'Mentions a number',
    ]);
  });

  it('refuses bad sides naming the field, a running execution with 409, an unknown comparison with 404', async () => {
    const done = await run((await makeScenario()).scenario, Array(10).fill(PASS));
    const count = async () =>
      (await s.ws('GET', '/comparisons')).body.data.pagination.total as number;
    const stored = await count();
    const unknown = await compare({
      baseline: { executionId: done },
      candidate: { executionIds: [done, 'exe_nope'] },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details).toEqual([
      { path: 'candidate.executionIds[1]', message: expect.stringContaining('exe_nope') },
    ]);
    const single = await compare({
      baseline: { executionId: 'exe_nope' },
      candidate: { executionId: done },
    });
    expect(single.body.error.details[0].path).toBe('baseline.executionId');
    // Another workspace's execution is unknown here.
    const other = (await s.call('POST', '/api/v1/workspaces', { name: 'Other' })).body.data
      .workspace.id;
    const elsewhere = await s.call('POST', `/api/v1/workspaces/${other}/comparisons`, {
      baseline: { executionId: done },
      candidate: { executionId: done },
    });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error.details[0].path).toBe('baseline.executionId');
    const strict = await compare({
      baseline: { executionId: done },
      candidate: { executionId: done },
      extra: 1,
    });
    expect(strict.status).toBe(400);
    expect(JSON.stringify(strict.body.error)).toContain('extra');

    // An execution still running: the agent holds its answer until the test lets it go.
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    const slow = await startLocalServer((_req, res) => {
      void held.then(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ reply: PASS }));
      });
    });
    try {
      const slowAgent = await connectHttpAgent(s, 'slow', slow.url);
      const persona = await createPersona(s, 'Cy');
      const slowScenario = (
        await s.ws('POST', '/scenarios', {
          name: 'Slow',
          prompt: 'Asks.',
          personas: [persona],
          targetAgents: [slowAgent],
          script: [{ say: 'Hello?' }],
        })
      ).body.data.scenario.id as string;
      const running = (await s.ws('POST', `/scenarios/${slowScenario}/execute`, {})).body.data
        .execution.id;
      const refused = await compare({
        baseline: { executionId: done },
        candidate: { executionId: running },
      });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('execution_running');
      release();
      await s.ws('GET', `/executions/${running}?wait=60`);
    } finally {
      release();
      await slow.stop();
    }
    expect(await count()).toBe(stored);
    const missing = await s.ws('GET', '/comparisons/cmp_nope');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
  });
});
