import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, testClock, type TestServer } from '../helpers/server.js';
import { storedRows } from '../helpers/store-under-test.js';

describe('schedules', () => {
  let s: TestServer;
  const clock = testClock(Date.parse('2026-06-10T12:34:00Z')); // a Wednesday
  let scenarioId: string;

  beforeAll(async () => {
    s = await startServer({ clock });
    scenarioId = (await s.ws('POST', '/scenarios', { name: 'S', prompt: 'p' })).body.data.scenario
      .id;
  });
  afterAll(() => s.stop());

  const create = (body: Record<string, unknown>) =>
    s.ws('POST', '/schedules', { name: 'n', scenarioId, ...body });

  it('computes nextRun for each named periodicity (UTC)', async () => {
    const expected: Record<string, string> = {
      hourly: '2026-06-10T13:00:00.000Z',
      daily: '2026-06-11T00:00:00.000Z',
      weekly: '2026-06-15T00:00:00.000Z',
      monthly: '2026-07-01T00:00:00.000Z',
      '*/15 * * * *': '2026-06-10T12:45:00.000Z',
    };
    for (const [periodicity, nextRun] of Object.entries(expected)) {
      const res = await create({ periodicity });
      expect(res.status).toBe(201);
      expect(res.body.data.schedule).toMatchObject({
        periodicity,
        nextRun,
        lastRun: null,
        isActive: true,
        periodEndCondition: 'never',
        timezone: 'UTC',
        id: expect.stringMatching(/^sch_/),
      });
    }
  });

  it("reads the periodicity in the schedule's time zone", async () => {
    const res = await create({ periodicity: 'daily', timezone: 'America/New_York' });
    expect(res.body.data.schedule.nextRun).toBe('2026-06-11T04:00:00.000Z');
    expect(
      (await create({ periodicity: 'daily', timezone: 'Mars/Olympus' })).body.error.details[0].path,
    ).toBe('timezone');
  });

  it('accepts after:N and until:date end conditions and refuses anything else', async () => {
    expect((await create({ periodicity: 'daily', periodEndCondition: 'after:3' })).status).toBe(
      201,
    );
    expect(
      (await create({ periodicity: 'daily', periodEndCondition: 'until:2026-12-31' })).status,
    ).toBe(201);
    for (const bad of ['after:0', 'after:x', 'until:soon', 'sometimes']) {
      const res = await create({ periodicity: 'daily', periodEndCondition: bad });
      expect(res.status, bad).toBe(400);
      expect(res.body.error.details[0].path).toBe('periodEndCondition');
    }
    const past = await create({ periodicity: 'daily', periodEndCondition: 'until:2020-01-01' });
    expect(past.body.error.details[0].message).toContain('already passed');
  });

  it('refuses a cron step wider than its field, which cron-parser would run once a span', async () => {
    for (const [periodicity, message] of [
      ['*/61 * * * *', 'the minute step 61 is wider than 0-59'],
      ['*/60 * * * *', 'the minute step 60 is wider than 0-59'],
      ['0 */24 * * *', 'the hour step 24 is wider than 0-23'],
      ['0 0 */31 * *', 'the day-of-month step 31 is wider than 1-31'],
      ['0 0 1 */12 *', 'the month step 12 is wider than 1-12'],
      ['0 0 * * */7', 'the weekday step 7 is wider than 0-6'],
      ['5-10/6 * * * *', 'the minute step 6 is wider than 5-10'],
      ['50/10 * * * *', 'the minute step 10 is wider than 50-59'],
    ]) {
      const res = await create({ periodicity });
      expect(res.status, periodicity).toBe(400);
      expect(res.body.error.details, periodicity).toEqual([
        { path: 'periodicity', message: `is not a valid cron expression: ${message}` },
      ]);
    }
    // Steps that still run more than once a span are what they say.
    for (const periodicity of [
      '*/59 * * * *',
      '0 */23 * * *',
      '*/15 9-17 * * 1-5',
      '5-10/5 * * * *',
    ]) {
      expect((await create({ periodicity })).status, periodicity).toBe(201);
    }
    // One saved before the rule runs as it was accepted, and a change that leaves it alone passes.
    const saved = (await create({ periodicity: 'hourly' })).body.data.schedule;
    await storedRows(s.stored, 'UPDATE schedules SET periodicity = ? WHERE id = ?', [
      '*/61 * * * *',
      saved.id,
    ]);
    const renamed = await s.ws('PATCH', `/schedules/${saved.id}`, { name: 'renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.schedule.nextRun).toBe('2026-06-10T13:00:00.000Z');
    const resent = await s.ws('PATCH', `/schedules/${saved.id}`, { periodicity: '*/61 * * * *' });
    expect(resent.body.error.details[0].path).toBe('periodicity');
  });

  it('refuses a bad periodicity, a missing scenario and missing fields', async () => {
    for (const periodicity of ['fortnightly', '* * * *', '61 * * * *', '* * * * * *']) {
      const res = await create({ periodicity });
      expect(res.status, periodicity).toBe(400);
      expect(res.body.error.details[0].path).toBe('periodicity');
    }
    const noScenario = await create({ periodicity: 'daily', scenarioId: 'scn_nope' });
    expect(noScenario.body.error.details).toEqual([
      { path: 'scenarioId', message: 'unknown scenario id: scn_nope' },
    ]);
    const empty = await s.ws('POST', '/schedules', {});
    expect(empty.body.error.details.map((d: { path: string }) => d.path)).toEqual([
      'name',
      'scenarioId',
      'periodicity',
    ]);
  });

  it('an inactive schedule has no nextRun; PATCH recomputes it', async () => {
    const sch = (await create({ periodicity: 'daily', isActive: false })).body.data.schedule;
    expect(sch.nextRun).toBeNull();
    const on = await s.ws('PATCH', `/schedules/${sch.id}`, {
      isActive: true,
      periodicity: 'hourly',
    });
    expect(on.body.data.schedule).toMatchObject({
      isActive: true,
      periodicity: 'hourly',
      nextRun: '2026-06-10T13:00:00.000Z',
    });
    expect((await s.ws('PATCH', `/schedules/${sch.id}`, { periodicity: 'never' })).status).toBe(
      400,
    );
    expect((await s.ws('GET', `/schedules/${sch.id}`)).body.data.schedule.periodicity).toBe(
      'hourly',
    );
  });

  it('lists, gets, deletes and 404s', async () => {
    const made = await create({ name: 'Listed', periodicity: 'daily' });
    const list = await s.ws('GET', '/schedules');
    const listed = list.body.data.schedules.find(
      (x: { id: string }) => x.id === made.body.data.schedule.id,
    );
    expect(listed).toMatchObject({ name: 'Listed', scenarioId, periodicity: 'daily' });
    expect((await s.ws('GET', `/schedules/${listed.id}`)).body.data.schedule).toEqual(listed);
    const id = listed.id as string;
    expect((await s.ws('DELETE', `/schedules/${id}`)).body.data).toEqual({ deleted: true, id });
    expect((await s.ws('GET', `/schedules/${id}`)).status).toBe(404);
    expect((await s.ws('PATCH', `/schedules/${id}`, { name: 'x' })).status).toBe(404);
  });
});
