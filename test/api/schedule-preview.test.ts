import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeCron } from '../../src/schedules/preview.js';
import { startServer, testClock, type TestServer } from '../helpers/server.js';

describe('schedules.preview: the next runs of a periodicity, in words', () => {
  let s: TestServer;
  // A Sunday, 28 November 2026, 10:00 UTC.
  const clock = testClock(Date.parse('2026-11-29T10:00:00Z'));
  beforeAll(async () => {
    s = await startServer({ clock });
  });
  afterAll(() => s.stop());

  const preview = (body: Record<string, unknown>) => s.ws('POST', '/schedules/preview', body);

  it('answers the next three runs in the time zone given, and a description', async () => {
    const res = await preview({ periodicity: '0 9 * * *', timezone: 'Europe/Paris' });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      nextRuns: [
        '2026-11-30T08:00:00.000Z',
        '2026-12-01T08:00:00.000Z',
        '2026-12-02T08:00:00.000Z',
      ],
      description: 'every day at 09:00',
    });
  });

  it('reads named periodicities and takes a count', async () => {
    const res = await preview({ periodicity: 'weekly', count: 2 });
    expect(res.body.data).toEqual({
      nextRuns: ['2026-11-30T00:00:00.000Z', '2026-12-07T00:00:00.000Z'],
      description: 'every Monday at 00:00',
    });
  });

  it('refuses what a save refuses, with the same message, naming the field', async () => {
    const res = await preview({ periodicity: '*/61 * * * *' });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toEqual([
      {
        path: 'periodicity',
        message: 'is not a valid cron expression: the minute step 61 is wider than 0-59',
      },
    ]);
    const scenario = await s.ws('POST', '/scenarios', { name: 'S', prompt: 'p' });
    const saved = await s.ws('POST', '/schedules', {
      name: 'x',
      scenarioId: scenario.body.data.scenario.id,
      periodicity: '*/61 * * * *',
    });
    expect(saved.body.error.details).toContainEqual(res.body.error.details[0]);
    const zone = await preview({ periodicity: 'daily', timezone: 'Mars/Olympus' });
    expect(zone.body.error.details.map((d: { path: string }) => d.path)).toEqual(['timezone']);
  });
});

describe('describeCron', () => {
  it.each([
    ['0 9 * * *', 'every day at 09:00'],
    ['30 8 * * 1-5', 'every Monday to Friday at 08:30'],
    ['0 18 * * 1,3', 'every Monday and Wednesday at 18:00'],
    ['15 6 1 * *', 'on the 1st of every month at 06:15'],
    ['0 0 22 * *', 'on the 22nd of every month at 00:00'],
    ['*/15 * * * *', 'every 15 minutes'],
    ['5 * * * *', 'every hour at minute 5'],
    ['0 */6 * * *', 'every 6 hours at minute 0'],
    ['* * * * *', 'every minute'],
    ['0 9 * 1 *', null],
    ['0 9-17 * * *', null],
  ])('%s: %s', (cron, words) => {
    expect(describeCron(cron)).toBe(words);
  });
});
