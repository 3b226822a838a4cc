import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, testClock, type TestServer } from '../helpers/server.js';

describe('running a schedule now', () => {
  let s: TestServer;
  const clock = testClock(Date.parse('2026-06-10T12:34:00Z'));
  beforeAll(async () => {
    s = await startServer({ clock });
  });
  afterAll(() => s.stop());

  it("sets the schedule's lastRun as a timed run does, and leaves its next timed run alone", async () => {
    const scenarioId = (await s.ws('POST', '/scenarios', { name: 'Now', prompt: 'p' })).body.data
      .scenario.id;
    const created = (
      await s.ws('POST', '/schedules', { name: 'daily', scenarioId, periodicity: 'daily' })
    ).body.data.schedule;
    expect(created.lastRun).toBeNull();
    const run = await s.ws('POST', `/schedules/${created.id}/run`);
    expect(run.status).toBe(202);
    const after = (await s.ws('GET', `/schedules/${created.id}`)).body.data.schedule;
    expect(after.lastRun).toBe('2026-06-10T12:34:00.000Z');
    expect(after.nextRun).toBe(created.nextRun);
  });
});
