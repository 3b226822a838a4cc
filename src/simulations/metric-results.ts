import type { MetricResult } from '../domain/simulations.js';
import type { Metric } from '../store/scorecards.js';

/*
 * The shapes a metric's result takes, with its status: judged (passed or failed), not evaluated
 * (an error, never a silent pass), or not applicable (left out of the score and the verdict).
 */

/** A judged result: 100 or 0. */
export const verdict = (m: Metric, passed: boolean, reasoning: string): MetricResult => ({
  metric_id: m.id,
  name: m.name,
  category: m.category,
  type: m.type,
  score: passed ? 100 : 0,
  passed,
  status: passed ? 'passed' : 'failed',
  reasoning,
});

/** A metric that could not be evaluated: an error, never a silent pass. */
export const unevaluated = (m: Metric, reasoning: string, error: string): MetricResult => ({
  ...verdict(m, false, reasoning),
  score: null,
  status: 'error',
  error,
});

/**
 * A metric the conversation cannot measure (an audio figure in a text run, a recognition figure
 * of an imported call): score and passed null, a reasoning, no error; `not_applicable: true` is
 * kept beside the status for what read results before it.
 */
export const notApplicable = (m: Metric, reasoning: string): MetricResult => ({
  ...verdict(m, false, `Not applicable: ${reasoning}`),
  score: null,
  passed: null,
  status: 'not_applicable',
  not_applicable: true,
});
