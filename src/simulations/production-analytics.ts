import {
  byDay,
  byVersion,
  categoryScores,
  groupFigures,
  inStartOrder,
  scoredCallOf,
} from '../domain/production.js';
import { spanOf, type WindowAsk } from '../domain/trends.js';
import type { Store } from '../store/index.js';

/**
 * The `production` block of the agent analytics: the evaluations, with the monitoring scorecard now
 * in force, of the agent's calls started in the window. Rates are percents, days UTC.
 */
export interface ProductionFigures {
  workspaceId: string;
  scorecardId: string;
  evaluated: number;
  passed: number;
  passRate: number | null;
  avgScore: number | null;
  categoryBreakdown: { category: string; score: number }[];
  byDay: { date: string; evaluated: number; passRate: number | null; avgScore: number | null }[];
  byVersion: {
    version: number | null;
    evaluated: number;
    passRate: number | null;
    avgScore: number | null;
  }[];
}

/** Null when the agent has never been monitored (monitoring never set, or set to null). */
export async function productionAnalytics(
  store: Store,
  agentId: string,
  asked: WindowAsk,
  now: number,
): Promise<ProductionFigures | null> {
  const monitoring = (await store.agents.get(agentId))?.monitoring;
  if (!monitoring) return null;
  const { workspaceId, scorecardId } = monitoring;
  // All time: every evaluation, from the first call on.
  const span = await spanOf(asked, now, () => Promise.resolve(0));
  const evaluations = await store.callEvaluations.listForAgent(agentId, {
    from: new Date(span.from).toISOString(),
    // The window's end included: a call started at this very instant is in it.
    to: new Date(span.to + 1).toISOString(),
    scorecardId,
  });
  const calls = inStartOrder(evaluations.map(scoredCallOf));
  return {
    workspaceId,
    scorecardId,
    ...groupFigures(calls),
    categoryBreakdown: categoryScores(calls),
    byDay: byDay(calls),
    byVersion: byVersion(calls),
  };
}
