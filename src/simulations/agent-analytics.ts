import { figuresOverCalls } from '../voice/call-measures.js';
import type { Store } from '../store/index.js';
import type { EndedForAgent } from '../store/simulations.js';
import type { MetricResult } from './scoring.js';
import { spanOf, type WindowAsk } from '../domain/trends.js';
import { agentTrend } from './agent-trend.js';

/** A category's score must move by more than this many points to be a trend. */
export const TREND_MARGIN = 5;
export const GOOD_AT = 80;

export interface CategoryFigure {
  category: string;
  score: number;
  trend: 'improving' | 'declining' | 'stable';
  status: 'good' | 'needs_improvement';
  commonIssues: string[];
}

const mean = (xs: number[]) =>
  xs.length ? Math.round((100 * xs.reduce((a, b) => a + b, 0)) / xs.length) / 100 : null;

function byCategory(
  results: MetricResult[][],
): Map<string, { scores: number[]; issues: string[] }> {
  const out = new Map<string, { scores: number[]; issues: string[] }>();
  for (const list of results) {
    for (const r of list) {
      const c = out.get(r.category) ?? { scores: [], issues: [] };
      if (r.score !== null) c.scores.push(r.score);
      if (r.passed === false) c.issues.push(`${r.name}: ${r.reasoning}`);
      out.set(r.category, c);
    }
  }
  return out;
}

/**
 * How the window's simulations ended: passed, and errored (the agent could not be reached or
 * answered in error) on their own. Judged ones (a pass verdict, or an error) make the pass rate,
 * as everywhere else: an errored simulation counts as not passed.
 */
function simulationCounts(rows: EndedForAgent[]) {
  const errored = rows.filter((r) => r.status === 'failed').length;
  return {
    total: rows.length,
    passed: rows.filter((r) => r.passed === true).length,
    errored,
    judged: rows.filter((r) => r.passed !== null || r.status === 'failed').length,
  };
}

/** When the agent's first simulation ended, in epoch ms (null: none has). */
async function firstEnded(store: Store, agentId: string): Promise<number | null> {
  const at: unknown = await store.simulations.firstEndedForAgent(agentId);
  return at === null || at === undefined ? null : new Date(at as string | Date).getTime();
}

/**
 * The specification's Agent analytics record, from the agent's ended simulations, over the last
 * `days` or the `window` given, with the trend bucket by bucket.
 */
export async function agentAnalytics(store: Store, agentId: string, asked: WindowAsk, now: number) {
  const span = await spanOf(asked, now, () => firstEnded(store, agentId));
  const { from } = span;
  // The window before, of the same length, for each category's trend.
  const before = from - (now - from);
  const rows = await store.simulations.scoredForAgent(
    agentId,
    new Date(before).toISOString(),
    new Date(now).toISOString(),
  );
  const current = rows.filter((r) => Date.parse(r.at) >= from);
  const previous = rows.filter((r) => Date.parse(r.at) < from);
  const now_ = byCategory(current.map((r) => r.results));
  const then = byCategory(previous.map((r) => r.results));
  const categoryBreakdown: (CategoryFigure & { previous: number | null })[] = [...now_]
    .filter(([, c]) => c.scores.length)
    .map(([category, c]): CategoryFigure & { previous: number | null } => {
      const score = mean(c.scores)!;
      const earlier = mean(then.get(category)?.scores ?? []);
      const trend: CategoryFigure['trend'] =
        earlier === null || Math.abs(score - earlier) <= TREND_MARGIN
          ? 'stable'
          : score > earlier
            ? 'improving'
            : 'declining';
      const counts = new Map<string, number>();
      for (const issue of c.issues) counts.set(issue, (counts.get(issue) ?? 0) + 1);
      const commonIssues = [...counts]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .slice(0, 3)
        .map(([issue, n]) => `${issue} (${n}x)`);
      return {
        category,
        score,
        trend,
        status: score >= GOOD_AT ? 'good' : 'needs_improvement',
        commonIssues,
        previous: earlier,
      };
    })
    .sort((a, b) => a.category.localeCompare(b.category));
  const overallScore = mean(current.map((r) => r.score).filter((s): s is number => s !== null));
  const simulations = simulationCounts(current);
  const audio = await audioFigures(store, agentId, new Date(from).toISOString(), now);
  const advice = recommend(categoryBreakdown, current.length);
  if (simulations.errored)
    advice.unshift(
      `${simulations.errored} of ${simulations.total} simulations ended in error before they could be scored: test the agent's connection.`,
    );
  return {
    agent: agentId,
    timeRange: span.label,
    overallScore,
    simulations,
    passRate: simulations.judged
      ? Math.round((10_000 * simulations.passed) / simulations.judged) / 100
      : null,
    categoryBreakdown: categoryBreakdown.map(({ previous: _p, ...c }) => c),
    recommendations: advice,
    audio,
    trend: agentTrend(current, span),
  };
}

/** The window's audio calls: latency over every reply of every call, first audio over the calls. */
async function audioFigures(store: Store, agentId: string, fromIso: string, now: number) {
  const toIso = new Date(now).toISOString();
  return figuresOverCalls(await store.simulations.audioCalls({ agentId, fromIso, toIso }));
}

/** Advice from the breakdown; each rule is tested. */
export function recommend(
  categories: (CategoryFigure & { previous: number | null })[],
  simulations: number,
): string[] {
  if (simulations === 0)
    return ['No scored simulations in this window: execute a scenario that targets this agent.'];
  const out: string[] = [];
  for (const c of [...categories].sort((a, b) => a.score - b.score)) {
    if (c.status === 'needs_improvement')
      out.push(
        `Improve ${c.category}: ${c.score} is below ${GOOD_AT}${c.commonIssues[0] ? `; most common issue: ${c.commonIssues[0]}` : ''}.`,
      );
    if (c.trend === 'declining' && c.previous !== null)
      out.push(
        `${c.category} fell from ${c.previous} to ${c.score} against the previous window: look at configuration changes in that time.`,
      );
  }
  return out;
}
