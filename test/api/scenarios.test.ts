import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startServer, testClock, type TestServer } from '../helpers/server.js';
import { storedRows } from '../helpers/store-under-test.js';

describe('scenarios and scorecards', () => {
  let s: TestServer;
  const clock = testClock(Date.parse('2026-06-10T12:00:00Z'));
  let persona: string;
  let agent: string;

  beforeAll(async () => {
    s = await startServer({ clock });
    persona = (await s.ws('POST', '/personas', { name: 'P', prompt: 'p' })).body.data.persona.id;
    // Agents arrive through provider connections (a later issue); the table is what scenarios check.
    agent = 'agt_test1';
    await storedRows(
      s.stored,
      "INSERT INTO agents (id, provider, provider_agent_id, name, status, created_at, updated_at) VALUES (?, 'vapi', 'a1', 'Support bot', 'active', '2026-06-01T00:00:00Z', '2026-06-01T00:00:00Z')",
      [agent],
    );
  });
  afterAll(() => s.stop());

  describe('scorecards', () => {
    it('every workspace starts with the default scorecard, which no scenario gets implicitly', async () => {
      const cards = (await s.ws('GET', '/scorecards')).body.data.scorecards;
      // Other tests add scorecards to this workspace: find the default among them.
      const byDefault = cards.find((c: { name: string }) => c.name === 'Default scorecard');
      expect(byDefault).toMatchObject({ passThreshold: 70 });
      expect(byDefault.metrics.map((m: { category: string }) => m.category)).toEqual([
        'task completion',
        'accuracy',
        'tone',
        'policy compliance',
        'latency',
      ]);
      const other = (await s.call('POST', '/api/v1/workspaces', { name: 'Team C' })).body.data
        .workspace.id;
      expect(
        (await s.call('GET', `/api/v1/workspaces/${other}/scorecards`)).body.data.scorecards.map(
          (c: { name: string }) => c.name,
        ),
      ).toEqual(['Default scorecard']);
      expect(
        (await s.ws('POST', '/scenarios', { name: 'No card', prompt: 'p' })).body.data.scenario
          .scorecard,
      ).toBeNull();
    });

    const metric = (type: string, config: unknown, extra: Record<string, unknown> = {}) => ({
      name: `m ${type}`,
      category: 'accuracy',
      type,
      config,
      ...extra,
    });

    it('stores every metric type with server-assigned ids, default weight 1 and threshold 70', async () => {
      const metrics = [
        metric('llm_judge', { criterion: 'Was polite' }),
        metric('tool_called', { tool: 'lookup', arguments: { id: '1' } }),
        metric('tool_not_called', { tool: 'refund' }),
        metric('contains', { text: 'order', caseSensitive: false }),
        metric('not_contains', { text: 'sorry' }),
        metric('regex', { pattern: '\\d{5}', flags: 'i' }),
        metric('max_turns', { max: 10 }),
        metric('max_latency_ms', { max: 1500 }),
        metric('ended_by', { who: 'agent' }, { critical: true, weight: 3 }),
      ];
      const res = await s.ws('POST', '/scorecards', { name: 'Support', metrics });
      expect(res.status).toBe(201);
      const card = res.body.data.scorecard;
      expect(card.passThreshold).toBe(70);
      expect(card.metrics).toHaveLength(9);
      expect(card.metrics[0]).toMatchObject({
        id: expect.stringMatching(/^met_/),
        weight: 1,
        critical: false,
        category: 'accuracy',
      });
      expect(card.metrics[8]).toMatchObject({
        weight: 3,
        critical: true,
        config: { who: 'agent' },
      });
    });

    it('checks config per metric type and names the bad field', async () => {
      const cases: [unknown, string][] = [
        [metric('llm_judge', {}), 'metrics[0].config.criterion'],
        [metric('regex', { pattern: '(' }), 'metrics[0].config.pattern'],
        // Backreferences and lookaround need backtracking: not linear time, so refused.
        [metric('regex', { pattern: '(a)\\1' }), 'metrics[0].config.pattern'],
        [metric('regex', { pattern: '(?<=a)b' }), 'metrics[0].config.pattern'],
        [metric('max_turns', { max: 0 }), 'metrics[0].config.max'],
        [metric('ended_by', { who: 'nobody' }), 'metrics[0].config.who'],
        [metric('contains', { text: 'x', extra: 1 }), 'metrics[0].config.extra'],
        [metric('sentiment', {}), 'metrics[0].type'],
        [metric('contains', { text: 'x' }, { weight: -1 }), 'metrics[0].weight'],
      ];
      for (const [m, path] of cases) {
        const res = await s.ws('POST', '/scorecards', { name: 'Bad', metrics: [m] });
        expect(res.status, JSON.stringify(m)).toBe(400);
        expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
      }
      expect(
        (await s.ws('POST', '/scorecards', { name: 'X', metrics: [], passThreshold: 101 })).status,
      ).toBe(400);
    });

    it('updates keep the ids of metrics sent back, and list, get and delete work', async () => {
      const card = (
        await s.ws('POST', '/scorecards', {
          name: 'Keep',
          metrics: [metric('contains', { text: 'a' })],
        })
      ).body.data.scorecard;
      const kept = card.metrics[0];
      const res = await s.ws('PUT', `/scorecards/${card.id}`, {
        metrics: [{ ...kept, name: 'renamed' }, metric('contains', { text: 'b' })],
        passThreshold: 80,
      });
      expect(res.status).toBe(200);
      expect(res.body.data.scorecard.metrics[0]).toMatchObject({ id: kept.id, name: 'renamed' });
      expect(res.body.data.scorecard.metrics[1].id).not.toBe(kept.id);
      expect(res.body.data.scorecard.passThreshold).toBe(80);
      expect((await s.ws('GET', `/scorecards/${card.id}`)).body.data.scorecard.name).toBe('Keep');
      expect((await s.ws('GET', '/scorecards')).body.data.pagination.total).toBeGreaterThanOrEqual(
        2,
      );
      expect((await s.ws('DELETE', `/scorecards/${card.id}`)).body.data).toEqual({
        deleted: true,
        id: card.id,
      });
      expect((await s.ws('GET', `/scorecards/${card.id}`)).status).toBe(404);
    });
  });

  describe('scenarios', () => {
    let scorecard: string;
    // A card of each test's own: other tests delete scorecards of this workspace.
    beforeEach(async () => {
      scorecard = (await s.ws('POST', '/scorecards', { name: 'Card', metrics: [] })).body.data
        .scorecard.id;
    });

    it('creates with every field and answers it back', async () => {
      const body = {
        name: 'Late order',
        prompt: 'Your order {{order_id}} is late.',
        tags: ['orders'],
        promptVariables: [{ name: 'order_id', type: 'string', defaultValue: 'A-1' }],
        personas: [persona],
        targetAgents: [agent],
        scorecard,
        expectedOutcome: 'Agent gives tracking info',
        expectedBehavior: { toolCalls: ['order_status'], providesTrackingInfo: true },
        script: [{ say: 'Where is {{order_id}}?', expect: { contains: 'tracking' } }],
        maxTurns: 12,
        maxDurationMs: 60_000,
      };
      const res = await s.ws('POST', '/scenarios', body);
      expect(res.status, JSON.stringify(res.body.error)).toBe(201);
      expect(res.body.data.scenario).toMatchObject({
        ...body,
        id: expect.stringMatching(/^scn_/),
        created_by: { name: 'first key' },
      });
    });

    it('refuses a {{variable}} its promptVariables do not declare, on create and on update', async () => {
      const undeclared = await s.ws('POST', '/scenarios', {
        name: 'Undeclared',
        prompt: 'Order {{order_id}} is late.',
        promptVariables: [{ name: 'customer' }],
        script: [{ say: 'Hi, I am {{customer}} about {{parcel}}.' }],
      });
      expect(undeclared.status).toBe(400);
      expect(undeclared.body.error.details).toEqual([
        { path: 'prompt', message: '{{order_id}} is used but not declared in promptVariables' },
        {
          path: 'script[0].say',
          message: '{{parcel}} is used but not declared in promptVariables',
        },
      ]);
      const made = await s.ws('POST', '/scenarios', {
        name: 'Declared',
        prompt: 'Order {{order_id}} is late.',
        promptVariables: [{ name: 'order_id' }],
      });
      expect(made.status).toBe(201);
      const id = made.body.data.scenario.id as string;
      // Dropping the declaration the prompt uses is refused; the scenario stays as it was.
      const dropped = await s.ws('PUT', `/scenarios/${id}`, { promptVariables: [] });
      expect(dropped.body.error.details).toEqual([
        { path: 'prompt', message: '{{order_id}} is used but not declared in promptVariables' },
      ]);
      const after = (await s.ws('GET', `/scenarios/${id}`)).body.data.scenario;
      expect(after.promptVariables).toEqual([
        { name: 'order_id', type: 'string', defaultValue: '' },
      ]);
      expect((await s.ws('PUT', `/scenarios/${id}`, { tags: ['ok'] })).status).toBe(200);
    });

    it('requires name and prompt, and names every missing reference', async () => {
      const missing = await s.ws('POST', '/scenarios', {});
      expect(missing.body.error.details.map((d: { path: string }) => d.path)).toEqual([
        'name',
        'prompt',
      ]);
      const refs = await s.ws('POST', '/scenarios', {
        name: 'x',
        prompt: 'p',
        personas: [persona, 'per_nope'],
        targetAgents: ['agt_nope'],
        scorecard: 'scd_nope',
      });
      expect(refs.status).toBe(400);
      expect(refs.body.error.details).toEqual([
        { path: 'personas', message: 'unknown persona id(s): per_nope' },
        { path: 'targetAgents', message: expect.stringContaining('unknown agent id(s): agt_nope') },
        { path: 'scorecard', message: 'unknown scorecard id: scd_nope' },
      ]);
    });

    it("refuses a script line's expect.regex that cannot run in linear time, naming it", async () => {
      const res = await s.ws('POST', '/scenarios', {
        name: 'x',
        prompt: 'p',
        script: [{ say: 'hi' }, { say: 'again', expect: { regex: '(\\w+) \\1' } }],
      });
      expect(res.status).toBe(400);
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(
        'script[1].expect.regex',
      );
    });

    it('rejects a misspelt field such as persona for personas', async () => {
      const res = await s.ws('POST', '/scenarios', { name: 'x', prompt: 'p', persona: [persona] });
      expect(res.body.error.details).toEqual([
        { path: 'persona', message: 'is not a field of this resource' },
      ]);
    });

    it('lists with name and tag filters, sorting and paging', async () => {
      await s.ws('POST', '/scenarios', { name: 'Refund request', prompt: 'p', tags: ['billing'] });
      clock.advance(1_000);
      await s.ws('POST', '/scenarios', {
        name: 'Refund denied',
        prompt: 'p',
        tags: ['billing', 'hard'],
      });
      const byName = await s.ws('GET', '/scenarios?name=refund&sortBy=name&sortOrder=asc');
      expect(byName.body.data.scenarios.map((x: { name: string }) => x.name)).toEqual([
        'Refund denied',
        'Refund request',
      ]);
      const byTag = await s.ws('GET', '/scenarios?tags=billing,hard');
      expect(byTag.body.data.scenarios.map((x: { name: string }) => x.name)).toEqual([
        'Refund denied',
      ]);
      const page = await s.ws('GET', '/scenarios?limit=1');
      expect(page.body.data.pagination).toMatchObject({ limit: 1, has_more: true });
    });

    it('gets one with stats, updates a subset (null clears), deletes, and treats /stats as a fixed word', async () => {
      const scn = (
        await s.ws('POST', '/scenarios', { name: 'Upd', prompt: 'p', scorecard, maxTurns: 5 })
      ).body.data.scenario;
      const got = await s.ws('GET', `/scenarios/${scn.id}`);
      expect(got.body.data.scenario.stats).toEqual({
        total_simulations: 0,
        errored_simulations: 0,
        avg_score: null,
        success_rate: null,
        last_run: null,
      });
      const upd = await s.ws('PUT', `/scenarios/${scn.id}`, {
        name: 'Updated',
        prompt: 'new',
        scorecard: null,
        maxTurns: null,
      });
      expect(upd.body.data.scenario).toMatchObject({
        id: scn.id,
        name: 'Updated',
        prompt: 'new',
        scorecard: null,
        maxTurns: null,
      });
      expect((await s.ws('PUT', `/scenarios/${scn.id}`, { personas: ['per_gone'] })).status).toBe(
        400,
      );
      expect((await s.ws('GET', '/scenarios/stats')).status).toBe(200);
      expect((await s.ws('DELETE', `/scenarios/${scn.id}`)).body.data).toEqual({
        deleted: true,
        id: scn.id,
      });
      expect((await s.ws('GET', `/scenarios/${scn.id}`)).status).toBe(404);
    });

    it('a scorecard in use cannot be deleted', async () => {
      await s.ws('POST', '/scenarios', { name: 'Uses the card', prompt: 'p', scorecard });
      const res = await s.ws('DELETE', `/scorecards/${scorecard}`);
      expect(res.status).toBe(409);
      expect(res.body.error.message).toMatch(
        /^Scorecard '.+' is used by \d+ scenarios?: .*Uses the card/,
      );
      expect(res.body.error.message).not.toContain(scorecard);
    });

    it('computes scenario and workspace statistics from stored simulations', async () => {
      const a = (await s.ws('POST', '/scenarios', { name: 'Stats A', prompt: 'p' })).body.data
        .scenario.id;
      const b = (await s.ws('POST', '/scenarios', { name: 'Stats B', prompt: 'p' })).body.data
        .scenario.id;
      await storedRows(
        s.stored,
        "INSERT INTO executions (id, workspace_id, scenario_id, status, created_at) VALUES ('exe_a', ?, ?, 'completed', '2026-06-09T00:00:00Z')",
        [s.workspaceId, a],
      );
      const sim = (...args: unknown[]) =>
        storedRows(
          s.stored,
          "INSERT INTO simulations (id, workspace_id, execution_id, scenario_id, status, score, passed, created_at, ended_at) VALUES (?, ?, 'exe_a', ?, ?, ?, ?, ?, ?)",
          args,
        );
      await sim(
        's1',
        s.workspaceId,
        a,
        'completed',
        90,
        1,
        '2026-06-09T00:00:00Z',
        '2026-06-09T00:01:00Z',
      );
      await sim(
        's2',
        s.workspaceId,
        a,
        'completed',
        50,
        0,
        '2026-06-09T00:00:00Z',
        '2026-06-09T00:02:00Z',
      );
      await sim(
        's3',
        s.workspaceId,
        a,
        'failed',
        null,
        null,
        '2026-06-09T00:00:00Z',
        '2026-06-09T00:03:00Z',
      );
      await sim('s4', s.workspaceId, a, 'cancelled', null, null, '2026-06-09T00:00:00Z', null);
      await sim(
        's5',
        s.workspaceId,
        a,
        'completed',
        10,
        0,
        '2026-04-01T00:00:00Z',
        '2026-04-01T00:01:00Z',
      );
      const stats = (await s.ws('GET', `/scenarios/${a}`)).body.data.scenario.stats;
      // s3 ended in error: counted as not passed (1 of 4 judged passed), and on its own.
      expect(stats).toEqual({
        total_simulations: 4,
        errored_simulations: 1,
        avg_score: 50,
        success_rate: 25,
        last_run: '2026-06-09T00:03:00Z',
      });
      const ws = (await s.ws('GET', '/scenarios/stats')).body.data.stats;
      expect(ws.total_simulations).toBe(4);
      expect(ws.errored_simulations).toBe(1);
      expect(ws.avg_score_last_30_days).toBe(70);
      expect(ws.most_used_scenario).toEqual({ id: a, name: 'Stats A', simulation_count: 4 });
      expect(ws.active_scenarios).toBe(1);
      await s.ws('POST', '/schedules', { name: 'nightly', scenarioId: b, periodicity: 'daily' });
      expect((await s.ws('GET', '/scenarios/stats')).body.data.stats.active_scenarios).toBe(2);
      expect(ws.total_scenarios).toBeGreaterThanOrEqual(2);
      const blocked = await s.ws('DELETE', `/scenarios/${b}`);
      expect(blocked.status).toBe(409);
      expect(blocked.body.error.message).toBe(
        "Scenario 'Stats B' is run by 1 schedule: nightly; delete them first",
      );
    });
  });
});
