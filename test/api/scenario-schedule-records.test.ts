import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Scenario, ScenarioStats } from '../../src/domain/scenarios.js';
import { Schedule, ScheduleRun } from '../../src/domain/schedules.js';
import { startServer, testClock, type TestServer } from '../helpers/server.js';

/** The record's fields in order, then any the answer adds: what the answer's keys must be. */
const keysOf = (record: { shape: object }, ...added: string[]) => [
  ...Object.keys(record.shape),
  ...added,
];
/** Create and update answers: the record but its suite key, which GET and lists answer (#38). */
const unkeyed = (record: { shape: object }) => keysOf(record).filter((k) => k !== 'key');

// The store reads and writes both through column maps typed by the records in src/domain: the
// answers must stay exactly the records (no field lost or added, the published order kept).
describe('scenario and schedule answers are their records', () => {
  let s: TestServer;
  const clock = testClock(Date.parse('2026-06-10T12:34:00Z'));
  beforeAll(async () => {
    s = await startServer({ clock });
  });
  afterAll(() => s.stop());

  it('a scenario answers its record, with its stats, and its JSON columns round-trip and clear', async () => {
    const created = await s.ws('POST', '/scenarios', {
      name: 'Full',
      prompt: 'Order {{order_id}}',
      promptVariables: [{ name: 'order_id' }],
      expectedBehavior: { toolCalls: ['order_status'] },
      script: [{ say: 'Hello', expect: { contains: 'hi' } }],
      audio: { enabled: true, line: 'phone' },
    });
    expect(created.status, JSON.stringify(created.body.error)).toBe(201);
    const scenario = created.body.data.scenario;
    expect(Object.keys(scenario)).toEqual(unkeyed(Scenario));

    const got = (await s.ws('GET', `/scenarios/${scenario.id}`)).body.data.scenario;
    expect(Object.keys(got)).toEqual(keysOf(Scenario, 'stats'));
    const { stats, ...record } = got;
    expect(Scenario.strict().safeParse(record).success).toBe(true);
    expect(record).toEqual({ ...scenario, key: 'full' });
    expect(Object.keys(stats)).toEqual(keysOf(ScenarioStats));
    // The input's defaults are stored: the variable's type and default value.
    expect(got.promptVariables).toEqual([{ name: 'order_id', type: 'string', defaultValue: '' }]);

    const cleared = await s.ws('PUT', `/scenarios/${scenario.id}`, {
      expectedBehavior: null,
      script: null,
      audio: null,
    });
    expect(cleared.status, JSON.stringify(cleared.body.error)).toBe(200);
    expect(cleared.body.data.scenario).toMatchObject({
      expectedBehavior: null,
      script: null,
      audio: null,
      promptVariables: got.promptVariables,
      updated_at: '2026-06-10T12:34:00.000Z',
    });
    const listed = (await s.ws('GET', '/scenarios')).body.data.scenarios;
    expect(Object.keys(listed[0])).toEqual(keysOf(Scenario, 'stats'));
  });

  it('a schedule and its runs answer their records', async () => {
    const scenarioId = (await s.ws('POST', '/scenarios', { name: 'S', prompt: 'p' })).body.data
      .scenario.id;
    const created = await s.ws('POST', '/schedules', {
      name: 'nightly',
      scenarioId,
      periodicity: 'daily',
    });
    expect(created.status, JSON.stringify(created.body.error)).toBe(201);
    const schedule = created.body.data.schedule;
    expect(Object.keys(schedule)).toEqual(unkeyed(Schedule));
    const got = (await s.ws('GET', `/schedules/${schedule.id}`)).body.data.schedule;
    expect(Object.keys(got)).toEqual(keysOf(Schedule));
    expect(got).toEqual({ ...schedule, key: 'nightly' });

    const paused = (await s.ws('PATCH', `/schedules/${schedule.id}`, { isActive: false })).body.data
      .schedule;
    expect(paused).toMatchObject({ isActive: false, nextRun: null, lastRun: null });
    expect(Object.keys(paused)).toEqual(unkeyed(Schedule));

    await s.ws('POST', `/schedules/${schedule.id}/run`);
    const runs = (await s.ws('GET', `/schedules/${schedule.id}/runs`)).body.data.runs;
    expect(runs).toHaveLength(1);
    expect(Object.keys(runs[0])).toEqual(keysOf(ScheduleRun, 'result'));
    expect(runs[0]).toMatchObject({ trigger: 'manual', late: false, scheduledFor: null });
  });

  it('a missing required field is named, on create only', async () => {
    const scenario = await s.ws('POST', '/scenarios', {});
    expect(scenario.body.error.details).toEqual([
      { path: 'name', message: 'is required' },
      { path: 'prompt', message: 'is required' },
    ]);
    const schedule = await s.ws('POST', '/schedules', {});
    expect(schedule.body.error.details).toEqual([
      { path: 'name', message: 'is required' },
      { path: 'scenarioId', message: 'is required' },
      { path: 'periodicity', message: 'is required' },
    ]);
  });
});
