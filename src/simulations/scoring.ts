export type { MetricResult, Turn } from '../domain/simulations.js';
import { compileUserPattern, patternProblem } from '../domain/patterns.js';
import type { MetricConfigOf } from '../domain/metrics.js';
import type { ScriptLine } from '../domain/scenarios.js';
import type { MetricResult } from '../domain/simulations.js';
import type { Metric } from '../store/scorecards.js';
import type { Conversation, Judge } from './scoring-types.js';
import { judgedMetric } from './judged-metric.js';
import { notApplicable, unevaluated, verdict } from './metric-results.js';
import { audioMetric, callerMetric } from './audio-metrics.js';

export type { Conversation, Judge, JudgeVerdict, Rubric } from './scoring-types.js';

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

/** Did the agent say (or never say) the text. */
function textMetric(m: Metric, c: Conversation): MetricResult {
  const cfg = m.config as MetricConfigOf<'contains'>;
  const norm = (s: string) => (cfg.caseSensitive ? s : s.toLowerCase());
  const found = agentText(c).some((t) => norm(t).includes(norm(cfg.text)));
  const passed = m.type === 'contains' ? found : !found;
  return verdict(m, passed, `The agent ${found ? 'said' : 'never said'} "${cfg.text}".`);
}

/** Does an agent reply match the pattern (RE2: linear time). */
function regexMetric(m: Metric, c: Conversation): MetricResult {
  const cfg = m.config as MetricConfigOf<'regex'>;
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

/** Was the tool called (with the expected arguments), or never called. */
function toolMetric(m: Metric, c: Conversation): MetricResult {
  const cfg = m.config as MetricConfigOf<'tool_called'>;
  const calls = c.turns.filter((t) => t.tool?.name === cfg.tool);
  if (m.type === 'tool_not_called')
    return verdict(
      m,
      calls.length === 0,
      calls.length
        ? `${cfg.tool} was called ${calls.length} time(s).`
        : `${cfg.tool} was not called.`,
    );
  const matching = cfg.arguments
    ? calls.filter((t) => includes(t.tool!.arguments, cfg.arguments))
    : calls;
  const why = matching.length
    ? `${cfg.tool} was called${cfg.arguments ? ' with the expected arguments' : ''}.`
    : calls.length
      ? `${cfg.tool} was called, but never with ${JSON.stringify(cfg.arguments)}.`
      : `${cfg.tool} was never called.`;
  return verdict(m, matching.length > 0, why);
}

/** Limits on the conversation: agent replies, the slowest reply, who ended the call. */
function limitMetric(m: Metric, c: Conversation): MetricResult {
  const replies = c.turns.filter((t) => t.role === 'agent');
  if (m.type === 'max_turns') {
    const { max } = m.config as MetricConfigOf<'max_turns'>;
    return verdict(m, replies.length <= max, `${replies.length} agent replies (at most ${max}).`);
  }
  if (m.type === 'max_latency_ms') {
    const { max } = m.config as MetricConfigOf<'max_latency_ms'>;
    const slowest = Math.max(0, ...replies.map((t) => t.latency_ms ?? 0));
    return verdict(
      m,
      slowest <= max,
      `The slowest agent reply took ${slowest} ms (at most ${max}).`,
    );
  }
  const cfg = m.config as MetricConfigOf<'ended_by'>;
  const who =
    c.endReason === 'agent_ended' ? 'agent' : c.endReason === 'caller_ended' ? 'caller' : null;
  return verdict(
    m,
    who === cfg.who,
    `The call ended by ${who ?? c.endReason.replace('_', ' ')}; expected the ${cfg.who}.`,
  );
}

/** Did every expectation of the script hold (checked on its turns as the conversation ran). */
function scriptMetric(m: Metric, c: Conversation): MetricResult {
  const failed = c.failedExpectations ?? [];
  return verdict(
    m,
    failed.length === 0,
    failed.length === 0 ? 'Every expectation of the script held.' : failed.join(' '),
  );
}

/**
 * Metric types that pass or fail a simulation without weighing in its score: a script's
 * expectations gate the verdict, and a simulation scored by them alone passes when they hold.
 */
const GATES = new Set(['script']);

const DETERMINISTIC: Record<string, (m: Metric, c: Conversation) => MetricResult> = {
  script: scriptMetric,
  max_barge_in_stop_ms: callerMetric,
  max_false_yields: callerMetric,
  reprompts_after_silence: callerMetric,
  max_asr_wer: callerMetric,
  max_response_latency_ms: audioMetric,
  max_time_to_first_audio_ms: audioMetric,
  max_talk_over_ms: audioMetric,
  contains: textMetric,
  not_contains: textMetric,
  regex: regexMetric,
  tool_called: toolMetric,
  tool_not_called: toolMetric,
  max_turns: limitMetric,
  max_latency_ms: limitMetric,
  ended_by: limitMetric,
};

/**
 * The deterministic metric types score 100 or 0; llm_judge asks the judge. Configs were validated
 * against METRIC_CONFIGS when the scorecard was saved. A type the conversation says it cannot
 * compute (Conversation.notApplicable) is not applicable, whatever it is.
 */
export async function evaluateMetric(
  m: Metric,
  c: Conversation,
  judge: Judge | null,
): Promise<MetricResult> {
  const cannot = c.notApplicable?.[m.type];
  if (cannot !== undefined) return notApplicable(m, cannot);
  if (m.type === 'llm_judge') return judgedMetric(m, c, judge);
  const evaluate = DETERMINISTIC[m.type];
  return evaluate
    ? evaluate(m, c)
    : unevaluated(m, `Unknown metric type ${m.type}.`, `unknown metric type ${m.type}`);
}

/** The script's expectations as one metric, when a line of it expects anything. */
const SCRIPT_METRIC: Metric = {
  id: 'script',
  name: 'Script expectations',
  category: 'script',
  type: 'script',
  description: null,
  weight: 0,
  critical: true,
  config: {},
};

/**
 * The metrics a simulation is scored on: the scorecard's, plus a tool_called check per tool in
 * expectedBehavior.toolCalls and a judge criterion for expectedOutcome (weight 1 each), and last
 * the script's expectations (a gate: see GATES).
 */
export function metricsFor(
  scorecard: { metrics: Metric[] } | null,
  expected: { toolCalls?: string[] } | null,
  expectedOutcome: string | null,
  script: ScriptLine[] | null = null,
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
  if (script?.some((l) => l.expect)) metrics.push(SCRIPT_METRIC);
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
function weigh(
  scored: { m: Metric; r: MetricResult }[],
  passThreshold: number,
): Omit<Score, 'results'> {
  if (scored.length === 0) return { score: null, passed: null };
  let weighted = 0;
  let weights = 0;
  for (const { m, r } of scored) {
    if (r.score === null) continue;
    weighted += r.score * m.weight;
    weights += m.weight;
  }
  const score = weights === 0 ? null : Math.round((100 * weighted) / weights) / 100;
  const criticalFailed = scored.some(({ m, r }) => m.critical && r.passed === false);
  const errored = scored.some(({ r }) => r.error);
  return {
    score,
    passed: score !== null && score >= passThreshold && !criticalFailed && !errored,
  };
}

/**
 * Scores a conversation: the weighed metrics' mean and verdict (see weigh), then the gates: a
 * gate that failed fails the simulation, and gates that held pass one nothing else judged.
 */
export async function scoreConversation(
  metrics: Metric[],
  c: Conversation,
  passThreshold: number,
  judge: Judge | null,
): Promise<Score> {
  const results = await Promise.all(metrics.map((m) => evaluateMetric(m, c, judge)));
  const paired = metrics.map((m, i) => ({ m, r: results[i]! }));
  const gates = paired.filter(({ m }) => GATES.has(m.type));
  const { score, passed } = weigh(
    paired.filter(({ m, r }) => !GATES.has(m.type) && r.status !== 'not_applicable'),
    passThreshold,
  );
  if (gates.length === 0) return { score, passed, results };
  return { score, passed: gates.every(({ r }) => r.passed) ? (passed ?? true) : false, results };
}
