import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startFakeBrain } from '../helpers/fake-brain.js';
import { startServer, tempDir, testClock, type TestServer } from '../helpers/server.js';
import { promptOnlySnapshot, replicaAgent } from '../helpers/support-sam.js';

describe('schedules run scenarios on a moved clock', () => {
  let s: TestServer;
  let brain: Awaited<ReturnType<typeof startFakeBrain>>;
  let slow: Awaited<ReturnType<typeof startFakeBrain>>;
  let clock = testClock(Date.parse('2026-06-10T12:34:00Z'));
  let dataDir = tempDir();
  let scenarioId: string;
  const options = () => ({
    dataDir,
    clock,
    llmDefault: { kind: 'openai' as const, baseUrl: brain.url, apiKey: 'k', model: 'fake' },
    modelPolicy: { attempts: 1, baseDelayMs: 1, timeoutMs: 10_000 },
  });

  beforeAll(async () => {
    [brain, slow] = await Promise.all([startFakeBrain(), startFakeBrain({ delayMs: 1_500 })]);
  });
  afterAll(() => Promise.all([brain.stop(), slow.stop()]));

  // Each test moves a clock of its own over an engine of its own, from the same instant.
  beforeEach(async () => {
    clock = testClock(Date.parse('2026-06-10T12:34:00Z'));
    dataDir = tempDir();
    s = await startServer(options());
    const now = new Date(clock.now()).toISOString();
    await s.engine.store.agents.insert(
      replicaAgent({
        id: 'agt_sam',
        providerAgentId: 'a1',
        snapshot: promptOnlySnapshot('Sam', 'You are Sam.'),
        at: now,
      }),
    );
    const persona = (await s.ws('POST', '/personas', { name: 'Frank', prompt: 'Busy.' })).body.data
      .persona.id;
    scenarioId = (
      await s.ws('POST', '/scenarios', {
        name: 'Nightly',
        prompt: 'p',
        personas: [persona],
        targetAgents: ['agt_sam'],
        script: [{ say: 'Thanks, bye' }],
      })
    ).body.data.scenario.id;
  });
  afterEach(() => s.stop());

  const schedule = async (body: Record<string, unknown>) =>
    (await s.ws('POST', '/schedules', { name: 'n', scenarioId, ...body })).body.data.schedule;
  const get = async (id: string) => (await s.ws('GET', `/schedules/${id}`)).body.data.schedule;
  const runs = async (id: string) => (await s.ws('GET', `/schedules/${id}/runs`)).body.data.runs;
  const at = (iso: string) => {
    clock.set(iso);
    return s.engine.scheduler.tick();
  };

  it('daily runs at 00:00 UTC: nothing before the slot, one run at it, nextRun and lastRun kept true', async () => {
    const sch = await schedule({ periodicity: 'daily' });
    expect(sch.nextRun).toBe('2026-06-11T00:00:00.000Z');
    expect(
      (await at('2026-06-10T23:59:00Z')).filter((r) => r.scheduledFor === sch.nextRun),
    ).toEqual([]);
    await at('2026-06-11T00:00:20Z');
    const after = await get(sch.id);
    expect(after).toMatchObject({
      lastRun: '2026-06-11T00:00:20.000Z',
      nextRun: '2026-06-12T00:00:00.000Z',
      isActive: true,
    });
    const [run] = await runs(sch.id);
    expect(run).toMatchObject({
      trigger: 'schedule',
      outcome: 'started',
      late: false,
      scheduledFor: '2026-06-11T00:00:00.000Z',
      executionId: expect.stringMatching(/^exe_/),
    });
    expect(
      (await s.ws('GET', `/executions/${run.executionId}?wait=20`)).body.data.execution.status,
    ).toBe('completed');
    // Each run answers its execution's result (the Runs rows of the Schedules screen show it).
    const [ran] = await runs(sch.id);
    expect(ran.result).toMatchObject({
      status: 'completed',
      counts: expect.objectContaining({ completed: expect.any(Number) }),
    });
    expect(ran.result).toHaveProperty('pass_rate');
    await s.ws('DELETE', `/schedules/${sch.id}`);
  });

  it('a five-field cron expression, and a time zone across the DST change', async () => {
    clock.set('2026-06-11T10:07:00Z');
    const cron = await schedule({ periodicity: '*/15 * * * *' });
    expect(cron.nextRun).toBe('2026-06-11T10:15:00.000Z');
    await at('2026-06-11T10:15:05Z');
    expect((await get(cron.id)).nextRun).toBe('2026-06-11T10:30:00.000Z');
    await s.ws('DELETE', `/schedules/${cron.id}`);

    clock.set('2026-03-07T12:00:00Z');
    const ny = await schedule({ periodicity: 'daily', timezone: 'America/New_York' });
    expect(ny.nextRun).toBe('2026-03-08T05:00:00.000Z'); // midnight EST
    await at('2026-03-08T05:00:10Z');
    expect((await get(ny.id)).nextRun).toBe('2026-03-09T04:00:00.000Z'); // midnight EDT
    await s.ws('DELETE', `/schedules/${ny.id}`);
  });

  it('after:2 ends after two scheduled runs; a run by hand does not count', async () => {
    clock.set('2026-07-01T00:30:00Z');
    const sch = await schedule({ periodicity: 'hourly', periodEndCondition: 'after:2' });
    const manual = await s.ws('POST', `/schedules/${sch.id}/run`);
    expect(manual.status).toBe(202);
    expect(manual.body.data.run).toMatchObject({
      trigger: 'manual',
      outcome: 'started',
      scheduledFor: null,
    });
    await s.ws('GET', `/executions/${manual.body.data.run.executionId}?wait=20`);
    await at('2026-07-01T01:00:05Z');
    expect(await get(sch.id)).toMatchObject({
      isActive: true,
      nextRun: '2026-07-01T02:00:00.000Z',
    });
    await s.ws('GET', `/executions/${(await runs(sch.id))[0].executionId}?wait=20`);
    await at('2026-07-01T02:00:05Z');
    expect(await get(sch.id)).toMatchObject({
      isActive: false,
      nextRun: null,
      endedReason: 'ended after 2 scheduled run(s)',
    });
    expect((await runs(sch.id)).map((r: { trigger: string }) => r.trigger)).toEqual([
      'schedule',
      'schedule',
      'manual',
    ]);
  });

  it('until: ends when no slot is left before the date', async () => {
    clock.set('2026-07-02T12:00:00Z');
    const sch = await schedule({
      periodicity: 'daily',
      periodEndCondition: 'until:2026-07-03T12:00:00Z',
    });
    await at('2026-07-03T00:00:05Z');
    expect(await get(sch.id)).toMatchObject({
      isActive: false,
      nextRun: null,
      endedReason: expect.stringContaining('until date'),
    });
    expect(await runs(sch.id)).toHaveLength(1);
  });

  it('after a long sleep, one catch-up run marked late (never one per missed slot)', async () => {
    clock.set('2026-07-10T08:00:00Z');
    const sch = await schedule({ periodicity: 'hourly' });
    await at('2026-07-15T08:30:00Z'); // five days, 120 missed slots
    const list = await runs(sch.id);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({
      late: true,
      outcome: 'started',
      scheduledFor: '2026-07-10T09:00:00.000Z',
    });
    expect((await get(sch.id)).nextRun).toBe('2026-07-15T09:00:00.000Z');
    await at('2026-07-15T08:45:00Z');
    expect(await runs(sch.id)).toHaveLength(1);
    await s.ws('GET', `/executions/${list[0].executionId}?wait=20`);
    await s.ws('DELETE', `/schedules/${sch.id}`);
  });

  it('a slot whose previous execution is still running is skipped and recorded', async () => {
    await s.call('PATCH', '/v1/settings', {
      llm: { replica: { kind: 'openai', baseUrl: slow.url, apiKey: 'k', model: 'slow' } },
    });
    clock.set('2026-07-20T00:50:00Z');
    const sch = await schedule({ periodicity: 'hourly' });
    await at('2026-07-20T01:00:01Z');
    await at('2026-07-20T02:00:01Z');
    const list = await runs(sch.id);
    expect(list.map((r: { outcome: string }) => r.outcome)).toEqual(['skipped', 'started']);
    expect(list[0].reason).toContain('still running');
    await s.ws('GET', `/executions/${list[1].executionId}?wait=20`);
    await s.call('PATCH', '/v1/settings', { llm: { replica: null } });
    await s.ws('DELETE', `/schedules/${sch.id}`);
  });

  it('a scenario that cannot run is recorded as failed_to_start, with the reason', async () => {
    const empty = (await s.ws('POST', '/scenarios', { name: 'Empty', prompt: 'p' })).body.data
      .scenario.id;
    clock.set('2026-08-01T00:10:00Z');
    const sch = (
      await s.ws('POST', '/schedules', { name: 'e', scenarioId: empty, periodicity: 'hourly' })
    ).body.data.schedule;
    await at('2026-08-01T01:00:01Z');
    expect((await runs(sch.id))[0]).toMatchObject({
      outcome: 'failed_to_start',
      reason: expect.stringContaining('no personas'),
    });
    await s.ws('DELETE', `/schedules/${sch.id}`);
  });

  it('a restart catches up at once from the stored nextRun', async () => {
    clock.set('2026-09-01T00:10:00Z');
    const sch = await schedule({ periodicity: 'hourly' });
    await s.stop();
    clock.set('2026-09-01T03:30:00Z');
    s = await startServer(options());
    // The catch-up tick starts with the engine and runs beside the first requests.
    const list = await vi.waitFor(
      async () => {
        const found = await runs(sch.id);
        expect(found).toHaveLength(1);
        return found;
      },
      { timeout: 5000 },
    );
    expect(list).toEqual([
      expect.objectContaining({ late: true, scheduledFor: '2026-09-01T01:00:00.000Z' }),
    ]);
    expect((await get(sch.id)).nextRun).toBe('2026-09-01T04:00:00.000Z');
    await s.ws('GET', `/executions/${list[0].executionId}?wait=20`);
  });
});
