import type { AlertCondition } from '../domain/alerts.js';
import type { ErrorDetail } from '../errors.js';
import { DEFAULT_TREND_ALPHA } from '../domain/production.js';
import { DEFAULT_PRODUCTION_WINDOW } from '../alerts/production-measure.js';
import type { OperationContext } from './types.js';

/** Checks the operator and the threshold against the range of the figure named. */
type ThresholdCheck = (c: AlertCondition, figure: string, details: ErrorDetail[]) => void;

/** A metricId must be one of the agent's monitoring scorecard: else it would never be measured. */
async function checkMetricId(
  ctx: OperationContext,
  c: AlertCondition,
  details: ErrorDetail[],
): Promise<void> {
  if (c.metricId === undefined || !c.agentId) return;
  const monitoring = (await ctx.store.agents.get(c.agentId))?.monitoring;
  if (!monitoring) {
    details.push({
      path: 'condition.metricId',
      message: `agent ${c.agentId} has no monitoring scorecard (set one with PATCH /v1/agents/{id} monitoring)`,
    });
    return;
  }
  const scorecard = await ctx.store.scorecards.get(monitoring.workspaceId, monitoring.scorecardId);
  if (!scorecard?.metrics.some((m) => m.id === c.metricId))
    details.push({
      path: 'condition.metricId',
      message: `is not a metric of the agent's monitoring scorecard ${monitoring.scorecardId}`,
    });
}

/**
 * production_pass_rate and production_trend: an existing agent, a metricId of its monitoring
 * scorecard if any, a threshold in points. A trend fires above its threshold only: its operator
 * is greater_than (filled in by withProductionDefaults, so the notification reads "above").
 */
export async function checkProductionCondition(
  ctx: OperationContext,
  c: AlertCondition,
  check: { details: ErrorDetail[]; needsThreshold: ThresholdCheck },
): Promise<void> {
  const { details } = check;
  if (!c.agentId) details.push({ path: 'condition.agentId', message: `is required for ${c.type}` });
  else if (!(await ctx.store.agents.existing([c.agentId])).has(c.agentId))
    details.push({ path: 'condition.agentId', message: `unknown agent: ${c.agentId}` });
  else await checkMetricId(ctx, c, details);
  if (c.type === 'production_trend') {
    if (c.operator !== undefined && c.operator !== 'greater_than')
      details.push({
        path: 'condition.operator',
        message: 'must be greater_than: a trend fires when the drop exceeds the threshold',
      });
    check.needsThreshold({ ...c, operator: 'greater_than' }, c.type, details);
  } else {
    if (c.alpha !== undefined)
      details.push({ path: 'condition.alpha', message: 'is for production_trend only' });
    check.needsThreshold(c, c.type, details);
  }
}

/**
 * What a production condition left out is filled with: the window, and for a trend its operator
 * (it fires above its threshold only) and alpha. The suite files read conditions through it too.
 */
export function withProductionDefaults<C extends AlertCondition>(c: C): C {
  const timeWindow = c.timeWindow ?? DEFAULT_PRODUCTION_WINDOW;
  if (c.type !== 'production_trend') return { ...c, timeWindow };
  return {
    ...c,
    operator: c.operator ?? 'greater_than',
    alpha: c.alpha ?? DEFAULT_TREND_ALPHA,
    timeWindow,
  };
}
