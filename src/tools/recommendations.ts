export interface RecommendationInput {
  usage: { totalCalls: number };
  performance: {
    successRate: number;
    p95ResponseTime: number;
    timeoutRate: number;
    errorRate: number;
  };
  errors: { type: string; count: number; percentage: number }[];
  /** The call timeout, or null for tools that make no timed call (routing, composite). */
  timeoutMs: number | null;
  /** errorHandling keys the tool has (onTimeout, onAuthError, onNotFound). */
  handlers: string[];
  retried: number;
  retriedOk: number;
}

interface Rule {
  applies(i: RecommendationInput): boolean;
  say(i: RecommendationInput): string;
}

const share = (i: RecommendationInput, type: string) => i.errors.find((e) => e.type === type);

/**
 * Rules that turn a tool's figures into advice a QA tester can act on. Each is small and tested on
 * its own; the order is the order of importance.
 */
export const RULES: Rule[] = [
  {
    applies: (i) => (share(i, 'auth_error')?.count ?? 0) > 0,
    say: (i) =>
      `${share(i, 'auth_error')!.count} call(s) failed authentication: check the credentials in config.auth; they may have expired or been rotated.`,
  },
  {
    applies: (i) =>
      i.timeoutMs !== null &&
      i.usage.totalCalls >= 5 &&
      i.performance.p95ResponseTime >= 0.8 * i.timeoutMs,
    say: (i) =>
      `The p95 response time (${i.performance.p95ResponseTime} ms) is within 20% of the ${i.timeoutMs} ms timeout: speed up the target or raise config.timeoutMs before calls start timing out.`,
  },
  {
    applies: (i) => i.performance.timeoutRate > 2 && !i.handlers.includes('onTimeout'),
    say: (i) =>
      `${i.performance.timeoutRate}% of calls time out and the tool has no errorHandling.onTimeout: add one so the agent says something useful instead of going silent.`,
  },
  {
    applies: (i) => (share(i, 'not_found')?.percentage ?? 0) > 5,
    say: (i) =>
      `${share(i, 'not_found')!.percentage}% of calls end in not_found: check the URL template and the identifiers the agent passes${i.handlers.includes('onNotFound') ? '' : ', and add errorHandling.onNotFound (ask_for_clarification) so the agent asks the caller again'}.`,
  },
  {
    applies: (i) => i.retried >= 5 && i.retriedOk / i.retried < 0.5,
    say: (i) =>
      `Retries rarely help: only ${Math.round((100 * i.retriedOk) / i.retried)}% of the ${i.retried} retried calls succeeded. Escalate instead of retrying, so callers do not wait for nothing.`,
  },
  {
    applies: (i) => i.usage.totalCalls >= 20 && i.performance.errorRate > 10,
    say: (i) =>
      `${i.performance.errorRate}% of calls fail with errors other than timeouts: look at the most common error above.`,
  },
  {
    applies: (i) => i.usage.totalCalls === 0,
    say: () =>
      'No calls in this window: test the tool, or check that agents are still assigned it.',
  },
];

export function recommend(input: RecommendationInput): string[] {
  return RULES.filter((r) => r.applies(input)).map((r) => r.say(input));
}
