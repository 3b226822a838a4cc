import { placeholders } from '../store/db.js';
import type { StoredAlert } from '../store/alerts.js';
import type { Store } from '../store/index.js';
import { ratesOf } from '../tools/analytics.js';
import type { Condition } from './service.js';

export interface Measurement {
  value: number | null;
  samples: number;
}

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };
export const durationMs = (text: string): number => Number(text.slice(0, -1)) * UNIT_MS[text.slice(-1)]!;

const conditionOf = (a: StoredAlert) => a.definition.condition as Condition;

/**
 * Measures every alert's condition. Tool alerts are measured together, one query per distinct
 * window over all their tools, so a round costs about as much as the calls it reads, not one
 * analytics computation per alert.
 */
export function measureAll(store: Store, alerts: StoredAlert[], now: number): Map<string, Measurement> {
  const out = new Map<string, Measurement>();
  store.toolCalls.flush();
  const toolAlerts = alerts.filter((a) => conditionOf(a).type === 'tool_performance');
  const byWindow = new Map<string, StoredAlert[]>();
  for (const a of toolAlerts) {
    const w = conditionOf(a).timeWindow ?? '15m';
    byWindow.set(w, [...(byWindow.get(w) ?? []), a]);
  }
  for (const [window, group] of byWindow) {
    const from = now - durationMs(window);
    const ids = [...new Set(group.map((a) => conditionOf(a).toolId!))];
    const rows = store.db.prepare(
      `SELECT tool_id AS id, COUNT(*) AS total, AVG(duration_ms) AS avgMs, SUM(outcome = 'success') AS successes, SUM(outcome = 'timeout') AS timeouts
       FROM tool_calls WHERE tool_id IN (${placeholders(ids.length)}) AND started_ms >= ? AND started_ms <= ? GROUP BY tool_id`,
    ).all(...ids, from, now) as { id: string; total: number; avgMs: number; successes: number; timeouts: number }[];
    const figures = new Map(rows.map((r) => [r.id, r]));
    const p95 = new Map<string, number>();
    const p95Ids = [...new Set(group.filter((a) => conditionOf(a).metric === 'p95_response_time').map((a) => conditionOf(a).toolId!))];
    if (p95Ids.length) {
      // The nearest-rank 95th percentile, as tool analytics computes it: rank ceil(0.95 n).
      const ranked = store.db.prepare(
        `SELECT id, duration_ms AS ms FROM (
           SELECT tool_id AS id, duration_ms, ROW_NUMBER() OVER (PARTITION BY tool_id ORDER BY duration_ms) AS rn, COUNT(*) OVER (PARTITION BY tool_id) AS n
           FROM tool_calls WHERE tool_id IN (${placeholders(p95Ids.length)}) AND started_ms >= ? AND started_ms <= ?)
         WHERE rn = (n * 95 + 99) / 100`,
      ).all(...p95Ids, from, now) as { id: string; ms: number }[];
      for (const r of ranked) p95.set(r.id, r.ms);
    }
    for (const a of group) {
      const c = conditionOf(a);
      const f = figures.get(c.toolId!) ?? { total: 0, avgMs: 0, successes: 0, timeouts: 0 };
      const rates = ratesOf(f);
      const value: Record<string, number | null> = {
        success_rate: rates.successRate, error_rate: rates.errorRate, timeout_rate: rates.timeoutRate,
        avg_response_time: f.total ? Math.round(f.avgMs) : null, p95_response_time: p95.get(c.toolId!) ?? null, call_count: f.total,
      };
      out.set(a.id, { value: f.total === 0 && c.metric !== 'call_count' ? null : value[c.metric!] ?? null, samples: f.total });
    }
  }
  for (const a of alerts) {
    const c = conditionOf(a);
    const since = new Date(now - durationMs(c.timeWindow ?? '1d')).toISOString();
    if (c.type === 'agent_score') {
      const r = store.db.prepare("SELECT AVG(score) AS v, COUNT(score) AS n FROM simulations WHERE agent_id = ? AND status IN ('completed', 'failed') AND COALESCE(ended_at, created_at) >= ?")
        .get(c.agentId, since) as { v: number | null; n: number };
      out.set(a.id, { value: r.v === null ? null : Math.round(r.v * 100) / 100, samples: r.n });
    } else if (c.type === 'scenario_failure') {
      // The pass rate of executions that schedules started (runs by hand are someone watching already).
      const r = store.db.prepare(`SELECT 100.0 * SUM(passed = 1) / NULLIF(COUNT(passed), 0) AS v, COUNT(passed) AS n FROM simulations
        WHERE scenario_id = ? AND status IN ('completed', 'failed') AND COALESCE(ended_at, created_at) >= ?
          AND execution_id IN (SELECT execution_id FROM schedule_runs WHERE trig = 'schedule' AND execution_id IS NOT NULL)`)
        .get(c.scenarioId, since) as { v: number | null; n: number };
      out.set(a.id, { value: r.v === null ? null : Math.round(r.v * 100) / 100, samples: r.n });
    } else if (c.type === 'agent_config_changed') {
      const n = store.db.prepare('SELECT COUNT(*) FROM agent_versions WHERE agent_id = ? AND version > 1 AND synced_at >= ?').pluck().get(c.agentId, new Date(now - durationMs(c.timeWindow ?? '15m')).toISOString()) as number;
      out.set(a.id, { value: n, samples: Number.POSITIVE_INFINITY });
    }
  }
  return out;
}
