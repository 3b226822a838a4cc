import type { StoredTool } from '../store/tools.js';
import { spanOf, type ToolTrendBucket, type WindowAsk } from '../domain/trends.js';
import { toolTrend } from './trend.js';
import type { Store } from '../store/index.js';
import { recommend } from './recommendations.js';
import { DEFAULT_TIMEOUT_MS } from './runtime.js';
import type { ToolDef } from './types.js';

export interface ToolAnalytics {
  toolId: string;
  name: string;
  timeRange: string;
  usage: { totalCalls: number; uniqueAgents: number; avgCallsPerDay: number };
  performance: {
    successRate: number;
    avgResponseTime: number;
    p95ResponseTime: number;
    timeoutRate: number;
    errorRate: number;
  };
  errors: { type: string; count: number; percentage: number; message: string }[];
  recommendations: string[];
  trend: ToolTrendBucket[];
}

const pct = (part: number, total: number): number =>
  total === 0 ? 0 : Math.round((10_000 * part) / total) / 100;

/**
 * The specification's tool analytics record over the last `days` days. Rates are percentages that
 * add up to 100 (errorRate is every failure that is not a timeout, taken as the remainder so that
 * rounding never breaks the sum); times are over all calls.
 */
/** The three rates of a window, as analytics and alerts both report them. */
export function ratesOf(f: { total: number; successes: number; timeouts: number }): {
  successRate: number;
  timeoutRate: number;
  errorRate: number;
} {
  const successRate = pct(f.successes, f.total);
  const timeoutRate = pct(f.timeouts, f.total);
  return {
    successRate,
    timeoutRate,
    errorRate: f.total === 0 ? 0 : Math.round((100 - successRate - timeoutRate) * 100) / 100,
  };
}

export async function toolAnalytics(
  calls: Store['toolCalls'],
  tool: StoredTool,
  asked: number | WindowAsk,
  now: number,
): Promise<ToolAnalytics> {
  const { days, window } = typeof asked === 'number' ? { days: asked, window: undefined } : asked;
  const span = await spanOf({ days, window }, now, () => calls.firstCall(tool.id));
  const { from } = span;
  // A window shorter than a day still averages per day (a call in the last hour is 24 a day).
  const spanDays = (now - from) / 86_400_000;
  const f = await calls.figures(tool.id, from, now);
  const { successRate, timeoutRate, errorRate } = ratesOf(f);
  const p95 = (await calls.p95(tool.id, from, now, f.total)) ?? 0;
  const errors = (await calls.errors(tool.id, from, now)).map((e) => ({
    type: e.type,
    count: e.count,
    percentage: pct(e.count, f.total),
    message: e.message ?? '',
  }));
  const def = tool.definition as unknown as ToolDef;
  const analytics: Omit<ToolAnalytics, 'recommendations' | 'trend'> = {
    toolId: tool.id,
    name: tool.name,
    timeRange: span.label,
    usage: {
      totalCalls: f.total,
      uniqueAgents: f.agents,
      avgCallsPerDay: Math.round(f.total / (window ? spanDays : days)),
    },
    performance: {
      successRate,
      avgResponseTime: Math.round(f.avgMs ?? 0),
      p95ResponseTime: p95,
      timeoutRate,
      errorRate,
    },
    errors,
  };
  const recommendations = recommend({
    ...analytics,
    timeoutMs:
      def.type === 'api' || def.type === 'action' || def.type === 'database'
        ? (def.config?.timeoutMs ?? DEFAULT_TIMEOUT_MS)
        : null,
    handlers: Object.keys(def.errorHandling ?? {}),
    retried: f.retried,
    retriedOk: f.retriedOk,
  });
  return { ...analytics, recommendations, trend: await toolTrend(calls, tool.id, span) };
}
