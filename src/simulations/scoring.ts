export type { MetricResult, Turn } from '../domain/simulations.js';
import { compileUserPattern, patternProblem } from '../domain/patterns.js';
import type { MetricConfigOf, MetricType } from '../domain/metrics.js';
import type { MetricResult, Turn } from '../domain/simulations.js';
import type { Metric } from '../store/scorecards.js';

/** A turn of a simulated conversation, as the simulation resource records it. */
export type EndReason = 'agent_ended' | 'caller_ended' | 'max_turns' | 'max_duration' | 'error';

export interface Conversation {
  turns: Turn[];
  endReason: EndReason;
}

/** Asks the judge model to score a criterion on a conversation: 0 to 100 and its reasoning. */
export type Judge = (
  criterion: string,
  conversation: Conversation,
) => Promise<{ score: number; reasoning: string }>;

const agentText = (c: Conversation) => c.turns.filter((t) => t.role === 'agent').map((t) => t.text);

/** `expected` values must all be in `actual` (objects compared key by key, recursively). */
function includes(actual: unknown, expected: unknown): boolean {
  if (expected && typeof expected === 'object' && !Array.isArray(expected)) {
    if (!actual || typeof actual !== 'object') return false;
    return Object.entries(expected).every(([k, v]) =>
      includes((actual as Record<string, unknown>)[k], v),
    );
  }
  return JSON.stringify(actual) === JSON.stringify(expected);
}

const verdict = (m: Metric, passed: boolean, reasoning: string): MetricResult => ({
  metric_id: m.id,
  name: m.name,
  category: m.category,
  type: m.type,
  score: passed ? 100 : 0,
  passed,
  reasoning,
});

/** The deterministic metric types score 100 or 0; llm_judge asks the judge. */
export async function evaluateMetric(
  m: Metric,
  c: Conversation,
  judge: Judge | null,
): Promise<MetricResult> {
  // Configs were validated against METRIC_CONFIGS when the scorecard was saved.
  const configOf = <T extends MetricType>(_type: T) => m.config as MetricConfigOf<T>;
  switch (m.type) {
    case 'contains':
    case 'not_contains': {
      const cfg = configOf('contains');
      const norm = (s: string) => (cfg.caseSensitive ? s : s.toLowerCase());
      const found = agentText(c).some((t) => norm(t).includes(norm(cfg.text)));
      const passed = m.type === 'contains' ? found : !found;
      return verdict(m, passed, `The agent ${found ? 'said' : 'never said'} "${cfg.text}".`);
    }
    case 'regex': {
      const cfg = configOf('regex');
      // Saved before patterns were checked at save, a pattern may not compile: a failed metric.
      const problem = patternProblem(cfg.pattern, cfg.flags);
      if (problem) return verdict(m, false, `The pattern ${problem}.`);
      const re = compileUserPattern(cfg.pattern, cfg.flags);
      const hit = agentText(c).find((t) => re.test(t));
      return verdict(
        m,
        hit !== undefined,
        hit !== undefined
          ? `Matched in: "${hit.slice(0, 120)}"`
          : `No agent turn matches /${cfg.pattern}/${cfg.flags ?? ''}.`,
      );
    }
    case 'tool_called':
    case 'tool_not_called': {
      const cfg = configOf('tool_called');
      const calls = c.turns.filter((t) => t.tool?.name === cfg.tool);
      const matching = cfg.arguments
        ? calls.filter((t) => includes(t.tool!.arguments, cfg.arguments))
        : calls;
      if (m.type === 'tool_not_called')
        return verdict(
          m,
          calls.length === 0,
          calls.length
            ? `${cfg.tool} was called ${calls.length} time(s).`
            : `${cfg.tool} was not called.`,
        );
      const why = matching.length
        ? `${cfg.tool} was called${cfg.arguments ? ' with the expected arguments' : ''}.`
        : calls.length
          ? `${cfg.tool} was called, but never with ${JSON.stringify(cfg.arguments)}.`
          : `${cfg.tool} was never called.`;
      return verdict(m, matching.length > 0, why);
    }
    case 'max_turns': {
      const cfg = configOf('max_turns');
      const replies = c.turns.filter((t) => t.role === 'agent').length;
      return verdict(m, replies <= cfg.max, `${replies} agent replies (at most ${cfg.max}).`);
    }
    case 'max_latency_ms': {
      const cfg = configOf('max_latency_ms');
      const slowest = Math.max(
        0,
        ...c.turns.filter((t) => t.role === 'agent').map((t) => t.latency_ms ?? 0),
      );
      return verdict(
        m,
        slowest <= cfg.max,
        `The slowest agent reply took ${slowest} ms (at most ${cfg.max}).`,
      );
    }
    case 'ended_by': {
      const cfg = configOf('ended_by');
      const who =
        c.endReason === 'agent_ended' ? 'agent' : c.endReason === 'caller_ended' ? 'caller' : null;
      return verdict(
        m,
        who === cfg.who,
        `The call ended by ${who ?? c.endReason.replace('_', ' ')}; expected the ${cfg.who}.`,
      );
    }
    case 'llm_judge': {
      const cfg = configOf('llm_judge');
      if (!judge)
        return {
          ...verdict(m, false, 'No judge model is configured.'),
          score: null,
          error: 'no judge model configured',
        };
      try {
        const { score, reasoning } = await judge(cfg.criterion, c);
        return {
          metric_id: m.id,
          name: m.name,
          category: m.category,
          type: m.type,
          score,
          passed: score >= 50,
          reasoning,
        };
      } catch (err) {
        // A judge that cannot answer is an error, never a silent pass.
        return {
          ...verdict(m, false, 'The judge could not score this criterion.'),
          score: null,
          error: (err as Error).message,
        };
      }
    }
    default:
      return {
        ...verdict(m, false, `Unknown metric type ${m.type}.`),
        score: null,
        error: `unknown metric type ${m.type}`,
      };
  }
}

/**
 * The metrics a simulation is scored on: the scorecard's, plus a tool_called check per tool in
 * expectedBehavior.toolCalls and a judge criterion for expectedOutcome (weight 1 each).
 */
export function metricsFor(
  scorecard: { metrics: Metric[] } | null,
  expected: { toolCalls?: string[] } | null,
  expectedOutcome: string | null,
): Metric[] {
  const metrics = [...(scorecard?.metrics ?? [])];
  for (const tool of expected?.toolCalls ?? []) {
    metrics.push({
      id: `expected_tool_${tool}`,
      name: `Calls ${tool}`,
      category: 'expected behavior',
      type: 'tool_called',
      description: null,
      weight: 1,
      critical: false,
      config: { tool },
    });
  }
  if (expectedOutcome) {
    metrics.push({
      id: 'expected_outcome',
      name: 'Expected outcome',
      category: 'expected outcome',
      type: 'llm_judge',
      description: null,
      weight: 1,
      critical: false,
      config: { criterion: expectedOutcome },
    });
  }
  return metrics;
}

export interface Score {
  score: number | null;
  passed: boolean | null;
  results: MetricResult[];
}

/**
 * Weighted mean of the metric scores; passed at or above the threshold with no critical metric
 * failed and no metric in error. With no metric at all, score and passed are null.
 */
export async function scoreConversation(
  metrics: Metric[],
  c: Conversation,
  passThreshold: number,
  judge: Judge | null,
): Promise<Score> {
  if (metrics.length === 0) return { score: null, passed: null, results: [] };
  const results = await Promise.all(metrics.map((m) => evaluateMetric(m, c, judge)));
  let weighted = 0;
  let weights = 0;
  results.forEach((r, i) => {
    if (r.score === null) return;
    weighted += r.score * metrics[i]!.weight;
    weights += metrics[i]!.weight;
  });
  const score = weights === 0 ? null : Math.round((100 * weighted) / weights) / 100;
  const criticalFailed = results.some((r, i) => metrics[i]!.critical && !r.passed);
  const errored = results.some((r) => r.error);
  return {
    score,
    passed: score !== null && score >= passThreshold && !criticalFailed && !errored,
    results,
  };
}
