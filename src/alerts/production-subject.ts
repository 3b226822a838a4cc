import type { AlertCondition } from '../domain/alerts.js';
import { DEFAULT_TREND_ALPHA } from '../domain/production.js';

/**
 * What a production alert watches, in words: the agent and the figure (and its metric); the
 * notification adds the value, the threshold and the window ("... was 62.5, below the threshold
 * of 80 over the last 1d").
 */
export function productionSubject(c: AlertCondition, agentName: string | undefined): string {
  const agent = `agent ${agentName ?? c.agentId}`;
  const metric = c.metricId ? ` on metric ${c.metricId}` : '';
  if (c.type === 'production_trend')
    return `the drop of the production pass rate${metric} of ${agent} below its recent trend (points, EWMA alpha ${c.alpha ?? DEFAULT_TREND_ALPHA})`;
  return `the production pass rate${metric} of ${agent} (percent of evaluated calls passed)`;
}
