import {
  DEFAULT_TREND_ALPHA,
  inStartOrder,
  outcomesOf,
  passRateOf,
  scoredCallOf,
  trendGap,
  type ScoredCall,
} from '../domain/production.js';
import type { StoredAlert } from '../store/alerts.js';
import type { Store } from '../store/index.js';
import { durationMs, type Measurement } from './measure.js';

/** The production conditions: figures of the evaluations of an agent's monitored calls. */
export const PRODUCTION_CONDITIONS: readonly string[] = [
  'production_pass_rate',
  'production_trend',
];

/** The window a production condition reads when it names none. */
export const DEFAULT_PRODUCTION_WINDOW = '1d';

/**
 * The evaluations of the agent's calls started since `from` with its monitoring scorecard now in
 * force (an evaluation by a scorecard since replaced measures something else); null when the agent
 * is gone or has never been monitored.
 */
async function monitoredCalls(
  store: Store,
  agentId: string,
  fromIso: string,
): Promise<ScoredCall[] | null> {
  const agent = await store.agents.get(agentId);
  const scorecardId = agent?.monitoring?.scorecardId;
  if (!scorecardId) return null;
  const evaluations = await store.callEvaluations.listForAgent(agentId, {
    from: fromIso,
    scorecardId,
  });
  return inStartOrder(evaluations.map(scoredCallOf));
}

/**
 * production_pass_rate: percent of the window's evaluated calls that passed (with metricId: whose
 * result for it passed, not applicable ones left out). production_trend: that pass rate minus the
 * EWMA of the outcomes in start order, in points. Samples: the outcomes counted.
 */
export function productionFigure(
  condition: StoredAlert['definition']['condition'],
  calls: ScoredCall[],
): Measurement {
  const outcomes = outcomesOf(calls, condition.metricId);
  const value =
    condition.type === 'production_trend'
      ? trendGap(outcomes, condition.alpha ?? DEFAULT_TREND_ALPHA)
      : passRateOf(outcomes);
  return { value, samples: outcomes.length };
}

/**
 * Measures every production alert. Alerts on the same agent and window read its evaluations once.
 * An agent never monitored gives no measurement: nothing changes.
 */
export async function measureProduction(
  store: Store,
  alerts: StoredAlert[],
  now: number,
): Promise<Map<string, Measurement>> {
  const out = new Map<string, Measurement>();
  const read = new Map<string, Promise<ScoredCall[] | null>>();
  for (const alert of alerts) {
    const c = alert.definition.condition;
    if (!PRODUCTION_CONDITIONS.includes(c.type) || !c.agentId) continue;
    const window = c.timeWindow ?? DEFAULT_PRODUCTION_WINDOW;
    const key = `${c.agentId}\n${window}`;
    if (!read.has(key)) {
      const from = new Date(now - durationMs(window)).toISOString();
      read.set(key, monitoredCalls(store, c.agentId, from));
    }
    const calls = await read.get(key)!;
    if (calls) out.set(alert.id, productionFigure(c, calls));
  }
  return out;
}
