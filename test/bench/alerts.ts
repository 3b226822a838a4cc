import { rmSync } from 'node:fs';
import type { AlertCondition } from '../../src/domain/alerts.js';
import { createEngine } from '../../src/engine.js';
import { newId } from '../../src/ids.js';
import { toolAnalytics } from '../../src/tools/analytics.js';
import { tempDir } from '../helpers/server.js';
import { median, round, type Figure } from './harness.js';

/** One evaluation round of 1,000 tool alerts over 1,000,000 calls vs 1,000 analytics one by one. */
export async function alertsBench(): Promise<Figure[]> {
  const dir = tempDir();
  const now = Date.now();
  const engine = createEngine({ dataDir: dir, exclusive: false, clock: { now: () => now } });
  await engine.start();
  const store = engine.store;
  const at = new Date(now).toISOString();
  const tools: string[] = [];
  await store.transaction(async (tx) => {
    for (let t = 0; t < 1_000; t++) {
      const id = newId('tool', now + t);
      await tx.tools.insert(
        {
          id,
          key: null,
          name: `tool_${t}`,
          type: 'api',
          definition: {
            name: `tool_${t}`,
            description: '',
            type: 'api',
            config: { url: 'http://127.0.0.1:1' },
            parameters: [],
          },
          created_at: at,
          updated_at: at,
        },
        { id: 'u', name: 'bench' },
      );
      tools.push(id);
    }
    const insert = store.db.prepare(
      'INSERT INTO tool_calls (tool_id, tool_name, agent_id, source, started_ms, duration_ms, outcome, status_code, attempts) VALUES (?,?,?,?,?,?,?,?,1)',
    );
    // 1,000 calls per tool over the last 7 days; the alerts and the analytics read the last day.
    for (let i = 0; i < 1_000_000; i++) {
      const t = i % 1_000;
      insert.run(
        tools[t],
        `tool_${t}`,
        null,
        'production',
        now - (i % 7) * 86_400_000 - (i % 86_000_000),
        40 + (i % 500),
        i % 13 === 0 ? 'timeout' : 'success',
        200,
      );
    }
    for (let t = 0; t < 1_000; t++) {
      // Half watch a rate, half the p95: thresholds that never hold, so nothing is sent.
      const condition: AlertCondition =
        t % 2
          ? {
              type: 'tool_performance',
              toolId: tools[t],
              metric: 'success_rate',
              operator: 'less_than',
              threshold: 0,
              timeWindow: '1d',
            }
          : {
              type: 'tool_performance',
              toolId: tools[t],
              metric: 'p95_response_time',
              operator: 'greater_than',
              threshold: 1e9,
              timeWindow: '1d',
            };
      await tx.alerts.insert({
        id: newId('alr', now + t),
        key: null,
        definition: {
          name: `alert ${t}`,
          condition,
          severity: 'low',
          notifications: { os: false },
        },
        isActive: true,
        state: 'ok',
        created_at: at,
        updated_at: at,
      });
    }
  });
  store.db.exec('ANALYZE');
  const { createAlertEvaluator } = await import('../../src/alerts/evaluator.js');
  const { createAlertService } = await import('../../src/alerts/service.js');
  const { dataDirSecretBox } = await import('../../src/secrets.js');
  const clock = { now: () => now };
  const evaluator = createAlertEvaluator({
    store,
    clock,
    events: engine.events,
    alerts: createAlertService({
      store,
      secrets: await dataDirSecretBox(dir, store),
      clock,
      events: engine.events,
    }),
    log: () => {},
  });

  const roundTimes: number[] = [];
  const oneByOne: number[] = [];
  for (let r = 0; r < 3; r++) {
    let t = performance.now();
    const changes = await evaluator.evaluate();
    roundTimes.push(performance.now() - t);
    if (changes.length) throw new Error('no alert should fire in the benchmark');
    t = performance.now();
    for (const id of tools)
      await toolAnalytics(store.toolCalls, (await store.tools.find(id))!, 1, now);
    oneByOne.push(performance.now() - t);
  }
  await engine.stop();
  rmSync(dir, { recursive: true, force: true });
  const ratio = median(roundTimes) / median(oneByOne);
  return [
    {
      name: 'one evaluation round of 1,000 tool alerts over 1,000,000 calls vs the same 1,000 analytics one by one',
      value: round(ratio),
      goal: '<= 1',
      met: ratio <= 1,
      detail: `${Math.round(median(roundTimes))} ms against ${Math.round(median(oneByOne))} ms`,
    },
  ];
}
