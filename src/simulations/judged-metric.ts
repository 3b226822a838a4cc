import type { MetricConfigOf } from '../domain/metrics.js';
import type { MetricResult } from '../domain/simulations.js';
import type { Metric } from '../store/scorecards.js';
import { rubricHash } from './judge.js';
import { evidenceProblems } from './judge-transcript.js';
import { unevaluated, verdict } from './metric-results.js';
import type { Conversation, Judge, JudgeVerdict, Rubric } from './scoring-types.js';

/*
 * An llm_judge metric: the judge's verdict, its evidence held to the turns it quotes, and with
 * requirements, the score as the share of them met. Every result records the rubric's hash and
 * the judge model that answered, so a later calibration can tell which judge and rubric it was.
 */

/** Passes at 50, as a judged criterion always has. */
const PASS_AT = 50;

/** The score: the share of requirements met (3 of 4: 75), else the judge's own. */
function scoreOf(rubric: Rubric, v: JudgeVerdict): number | string {
  const wanted = rubric.requirements?.length ?? 0;
  if (!wanted) return v.score ?? 'the judge gave no score';
  if (v.met?.length !== wanted)
    return `the judge answered ${v.met?.length ?? 0} of the ${wanted} requirements`;
  return Math.round((10_000 * v.met.filter(Boolean).length) / wanted) / 100;
}

/** The result of a verdict: an error when its evidence is not in the conversation. */
function judged(m: Metric, rubric: Rubric, v: JudgeVerdict, c: Conversation): MetricResult {
  const evidence = v.evidence ?? [];
  const requirements = rubric.requirements?.map((text, i) => ({ text, met: v.met?.[i] ?? false }));
  const recorded = {
    evidence,
    ...(requirements ? { requirements } : {}),
    judge_model: v.model ?? null,
    rubric_hash: rubricHash(rubric),
  };
  const score = scoreOf(rubric, v);
  if (typeof score === 'string') return { ...unevaluated(m, v.reasoning, score), ...recorded };
  const problems = evidenceProblems(c.turns, evidence);
  if (problems.length)
    return {
      ...unevaluated(
        m,
        v.reasoning,
        `the judge's evidence is not in the conversation: ${problems.join('; ')}`,
      ),
      ...recorded,
    };
  return { ...verdict(m, score >= PASS_AT, v.reasoning), score, ...recorded };
}

/** The judge model scores the criterion (passes at 50), answering every requirement at once. */
export async function judgedMetric(
  m: Metric,
  c: Conversation,
  judge: Judge | null,
): Promise<MetricResult> {
  const cfg = m.config as MetricConfigOf<'llm_judge'>;
  const rubric: Rubric = {
    criterion: cfg.criterion,
    ...(cfg.requirements ? { requirements: cfg.requirements } : {}),
  };
  const unjudged = { evidence: [], judge_model: null, rubric_hash: rubricHash(rubric) };
  if (!judge)
    return {
      ...unevaluated(m, 'No judge model is configured.', 'no judge model configured'),
      ...unjudged,
    };
  let v: JudgeVerdict;
  try {
    v = await judge(rubric, c);
  } catch (err) {
    return {
      ...unevaluated(m, 'The judge could not score this criterion.', (err as Error).message),
      ...unjudged,
    };
  }
  return judged(m, rubric, v, c);
}
