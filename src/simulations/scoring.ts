export type { MetricResult, Turn } from '../domain/simulations.js';
import { compileUserPattern, patternProblem } from '../domain/patterns.js';
import type { MetricConfigOf } from '../domain/metrics.js';
import type { ScriptLine } from '../domain/scenarios.js';
import type { AudioSummary } from '../domain/audio.js';
import type { MetricResult, Turn } from '../domain/simulations.js';
import type { Metric } from '../store/scorecards.js';
import type { EndReason } from '../conversation/end-reasons.js';

export interface Conversation {
  turns: Turn[];
  endReason: EndReason;
  /** Audio simulations: what the call measured. */
  audio?: AudioSummary | null;
  /** Scripted simulations: the script's expectations that did not hold, each said. */
  failedExpectations?: string[];
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

/** A metric that could not be evaluated: an error, never a silent pass. */
const unevaluated = (m: Metric, reasoning: string, error: string): MetricResult => ({
  ...verdict(m, false, reasoning),
  score: null,
  error,
});

/** The judge model scores the criterion (passes at 50). */
async function judgedMetric(
  m: Metric,
  c: Conversation,
  judge: Judge | null,
): Promise<MetricResult> {
  const cfg = m.config as MetricConfigOf<'llm_judge'>;
  if (!judge) return unevaluated(m, 'No judge model is configured.', 'no judge model configured');
  try {
    const { score, reasoning } = await judge(cfg.criterion, c);
    return { ...verdict(m, score >= 50, reasoning), score };
  } catch (err) {
    return unevaluated(m, 'The judge could not score this criterion.', (err as Error).message);
  }
}

/**
 * A metric the simulation cannot measure (an audio figure in a text run): not applicable, left out
 * of the score and the verdict, so one scorecard serves text and audio runs alike.
 */
const notApplicable = (m: Metric, reasoning: string): MetricResult => ({
  ...verdict(m, false, `Not applicable: ${reasoning}`),
  score: null,
  passed: null,
  not_applicable: true,
});

const TEXT_RUN = 'only audio simulations measure this, and this one ran in text mode.';

/** Figures only an audio call has: latency from the audio, first sound, talking over the caller. */
function audioMetric(m: Metric, c: Conversation): MetricResult {
  const a = c.audio;
  if (!a) return notApplicable(m, TEXT_RUN);
  const within = (figure: number | null, max: number, what: string) =>
    figure === null
      ? unevaluated(m, `No ${what} was measured (the agent never answered).`, `no ${what}`)
      : verdict(m, figure <= max, `The ${what} was ${figure} ms (at most ${max}).`);
  if (m.type === 'max_response_latency_ms') {
    const cfg = m.config as MetricConfigOf<'max_response_latency_ms'>;
    const on = cfg.on ?? 'p90';
    return within(a.response_latency_ms[on], cfg.max, `${on} response latency`);
  }
  if (m.type === 'max_time_to_first_audio_ms') {
    const cfg = m.config as MetricConfigOf<'max_time_to_first_audio_ms'>;
    return within(a.time_to_first_audio_ms, cfg.max, 'time to first audio');
  }
  const cfg = m.config as MetricConfigOf<'max_talk_over_ms'>;
  return verdict(
    m,
    a.talk_over.total_ms <= cfg.max,
    `The agent talked over the caller ${a.talk_over.count} time(s), ${a.talk_over.total_ms} ms in all (at most ${cfg.max}).`,
  );
}

/** Figures of how the agent took a realistic caller: barge-ins, backchannels, silences, recognition. */
function callerMetric(m: Metric, c: Conversation): MetricResult {
  if (!c.audio) return notApplicable(m, TEXT_RUN);
  const a = c.audio.caller;
  if (!a)
    return unevaluated(
      m,
      'This call kept no caller figures (it was placed before they were measured).',
      'no caller figures',
    );
  const none = (what: string) => unevaluated(m, `The caller never ${what} on this call.`, 'none');
  switch (m.type) {
    case 'max_barge_in_stop_ms': {
      const cfg = m.config as MetricConfigOf<'max_barge_in_stop_ms'>;
      const on = cfg.on ?? 'max';
      const ms = a.barge_ins.stop_ms[on];
      if (ms === null) return none('barged in while the agent spoke');
      return verdict(
        m,
        ms <= cfg.max,
        `After ${a.barge_ins.count} barge-in(s), the agent's audio stopped in ${ms} ms (${on}; at most ${cfg.max}).`,
      );
    }
    case 'max_false_yields': {
      const cfg = m.config as MetricConfigOf<'max_false_yields'>;
      // A call with no backchannel has no false yield to count: judged, not an error, which
      // would fail the whole simulation for what its persona happened not to do.
      if (!a.backchannels.count)
        return verdict(
          m,
          true,
          `No backchannel came up on this call, so the agent had none to stop for: 0 false yields (at most ${cfg.max}).`,
        );
      const n = a.backchannels.false_yields;
      return verdict(
        m,
        n <= cfg.max,
        `The agent stopped for ${n} of ${a.backchannels.count} backchannel(s) (at most ${cfg.max}).`,
      );
    }
    case 'reprompts_after_silence':
      return repromptVerdict(m, a.silences);
    default: {
      const cfg = m.config as MetricConfigOf<'max_asr_wer'>;
      if (!a.asr || a.asr.wer === null)
        return unevaluated(
          m,
          "The provider reported nothing of what its recognition heard (Vapi's call record and ElevenLabs' user_transcript do).",
          'no recognition reported',
        );
      const missed = a.asr.misheard.map(
        (x) => `"${x.said}" as ${x.heard === null ? 'nothing' : `"${x.heard}"`}`,
      );
      return verdict(
        m,
        a.asr.wer <= cfg.max,
        `The agent's recognition had a word error rate of ${a.asr.wer} over ${a.asr.words} words (at most ${cfg.max})${missed.length ? `; misheard ${missed.join(', ')}` : ''}.`,
      );
    }
  }
}

function repromptVerdict(
  m: Metric,
  silences: NonNullable<NonNullable<Conversation['audio']>['caller']>['silences'],
): MetricResult {
  const cfg = m.config as MetricConfigOf<'reprompts_after_silence'>;
  const within = cfg.withinMs ?? 10_000;
  if (!silences.length) return unevaluated(m, 'The caller never kept silent on this call.', 'none');
  const late = silences.filter((s) => s.reprompt_ms === null || s.reprompt_ms > within);
  const said = silences.map((s) =>
    s.reprompt_ms === null ? `no re-prompt in ${s.ms} ms` : `re-prompted after ${s.reprompt_ms} ms`,
  );
  return verdict(
    m,
    late.length === 0,
    `In ${silences.length} silence(s) the agent ${said.join('; ')} (within ${within} ms wanted).`,
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
 * against METRIC_CONFIGS when the scorecard was saved.
 */
export async function evaluateMetric(
  m: Metric,
  c: Conversation,
  judge: Judge | null,
): Promise<MetricResult> {
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
    paired.filter(({ m, r }) => !GATES.has(m.type) && !r.not_applicable),
    passThreshold,
  );
  if (gates.length === 0) return { score, passed, results };
  return { score, passed: gates.every(({ r }) => r.passed) ? (passed ?? true) : false, results };
}
