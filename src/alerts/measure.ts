import type { StoredAlert } from '../store/alerts.js';
import type { Store } from '../store/index.js';
import { ratesOf } from '../tools/analytics.js';
import type { Condition } from './service.js';

/** What a notification adds about a measurement: words for people, fields for machines. */
export interface AlertDetail {
  text: string;
  data: Record<string, unknown>;
}

export interface Measurement {
  value: number | null;
  samples: number;
  /** What the notification names beyond the value (agent_regression: scenarios, comparison). */
  detail?: AlertDetail;
}

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };
export const durationMs = (text: string): number =>
  Number(text.slice(0, -1)) * UNIT_MS[text.slice(-1)]!;

const conditionOf = (a: StoredAlert): Condition => a.definition.condition;

/**
 * Measures every alert's condition. Tool alerts are measured together, one query per distinct
 * window over all their tools, so a round costs about as much as the calls it reads, not one
 * analytics computation per alert.
 */
export async function measureAll(
  store: Store,
  alerts: StoredAlert[],
  now: number,
): Promise<Map<string, Measurement>> {
  const out = new Map<string, Measurement>();
  const toolAlerts = alerts.filter((a) => conditionOf(a).type === 'tool_performance');
  const byWindow = new Map<string, StoredAlert[]>();
  for (const a of toolAlerts) {
    const w = conditionOf(a).timeWindow ?? '15m';
    if (!byWindow.has(w)) byWindow.set(w, []);
    byWindow.get(w)!.push(a);
  }
  for (const [window, group] of byWindow) {
    const from = now - durationMs(window);
    const ids = [...new Set(group.map((a) => conditionOf(a).toolId!))];
    const figures = await store.toolCalls.figuresOfTools(ids, from, now);
    const p95Ids = [
      ...new Set(
        group
          .filter((a) => conditionOf(a).metric === 'p95_response_time')
          .map((a) => conditionOf(a).toolId!),
      ),
    ];
    const p95 = p95Ids.length
      ? await store.toolCalls.p95OfTools(p95Ids, from, now)
      : new Map<string, number>();
    for (const a of group) {
      const c = conditionOf(a);
      const f = figures.get(c.toolId!) ?? { total: 0, avgMs: 0, successes: 0, timeouts: 0 };
      const rates = ratesOf(f);
      const value: Record<string, number | null> = {
        success_rate: rates.successRate,
        error_rate: rates.errorRate,
        timeout_rate: rates.timeoutRate,
        avg_response_time: f.total ? Math.round(f.avgMs) : null,
        p95_response_time: p95.get(c.toolId!) ?? null,
        call_count: f.total,
      };
      out.set(a.id, {
        value: f.total === 0 && c.metric !== 'call_count' ? null : (value[c.metric!] ?? null),
        samples: f.total,
      });
    }
  }
  for (const a of alerts) {
    const c = conditionOf(a);
    const since = new Date(now - durationMs(c.timeWindow ?? '1d')).toISOString();
    if (c.type === 'agent_score') {
      const r = await store.simulations.agentScore(c.agentId!, since);
      out.set(a.id, { value: r.avg === null ? null : Math.round(r.avg * 100) / 100, samples: r.n });
    } else if (c.type === 'scenario_failure') {
      // The pass rate of executions that schedules started (runs by hand are someone watching already).
      const r = await store.simulations.scheduledPassRate(c.scenarioId!, since);
      out.set(a.id, {
        value: r.rate === null ? null : Math.round(r.rate * 100) / 100,
        samples: r.n,
      });
    } else if (c.type === 'agent_config_changed') {
      const n = await store.agents.changesSince(
        c.agentId!,
        new Date(now - durationMs(c.timeWindow ?? '15m')).toISOString(),
      );
      out.set(a.id, { value: n, samples: Number.POSITIVE_INFINITY });
    }
  }
  return out;
}
