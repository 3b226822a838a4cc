import { newId } from '../ids.js';
import type { Scorecard } from '../store/scorecards.js';

/** The scorecard every workspace starts with, ready to pick; never added to a scenario implicitly. */
export function defaultScorecard(now: number, at: string): Scorecard {
  const metric = (
    name: string,
    category: string,
    type: string,
    config: Record<string, unknown>,
  ) => ({
    id: newId('met', now),
    name,
    category,
    type,
    description: null,
    weight: 1,
    critical: false,
    config,
  });
  return {
    id: newId('scd', now),
    key: null,
    name: 'Default scorecard',
    description:
      'Task completion, accuracy, tone, policy compliance and latency. Copy it or pick it as it is.',
    metrics: [
      metric('Task completed', 'task completion', 'llm_judge', {
        criterion: "The caller's need was resolved, or the caller was clearly told the next step.",
      }),
      metric('Accurate', 'accuracy', 'llm_judge', {
        criterion:
          'Everything the agent stated was correct and consistent with the tool results it received; it invented nothing.',
      }),
      metric('Tone', 'tone', 'llm_judge', {
        criterion: "The agent was polite, calm and empathetic, and adapted to the caller's mood.",
      }),
      metric('Policy compliance', 'policy compliance', 'llm_judge', {
        criterion:
          'The agent followed its instructions, protected personal data, and promised nothing it cannot do.',
      }),
      metric('Responsive', 'latency', 'max_latency_ms', { max: 3_000 }),
    ],
    passThreshold: 70,
    created_at: at,
    updated_at: at,
  };
}
