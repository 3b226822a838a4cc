import { z } from 'zod';
import { isSealed, type Sealed } from '../kernel/secret-box.js';
import { Timestamp } from './records.js';

/**
 * The alert, defined once: the store reads and writes it through a column map typed by its stored
 * form (derived below), the operations build their schemas from it, and the renderer takes its
 * enum lists from the catalogue (`renderer/src/generated/catalogue-enums.ts`).
 */

export const CONDITION_TYPES = [
  'tool_performance',
  'agent_score',
  'scenario_failure',
  'agent_config_changed',
  'agent_regression',
  'production_pass_rate',
  'production_trend',
] as const;
export const TOOL_METRICS = [
  'success_rate',
  'error_rate',
  'timeout_rate',
  'avg_response_time',
  'p95_response_time',
  'call_count',
] as const;
/**
 * The values a threshold may take, per metric: rates and scores are percentages, times and counts
 * are never negative. A threshold outside can never be crossed, or is crossed always.
 */
export const THRESHOLD_RANGES: Record<string, { min: number; max?: number }> = {
  success_rate: { min: 0, max: 100 },
  error_rate: { min: 0, max: 100 },
  timeout_rate: { min: 0, max: 100 },
  avg_response_time: { min: 0 },
  p95_response_time: { min: 0 },
  call_count: { min: 0 },
  avg_score: { min: 0, max: 100 },
  pass_rate: { min: 0, max: 100 },
  // Production alerts have no metric: their condition type names the figure.
  production_pass_rate: { min: 0, max: 100 },
  production_trend: { min: 0, max: 100 },
};

export const OPERATORS = [
  'less_than',
  'less_than_or_equal',
  'greater_than',
  'greater_than_or_equal',
  'equals',
] as const;
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export const ALERT_STATES = ['ok', 'firing', 'resolved'] as const;

/** A time window or a cooldown: a whole number of minutes, hours or days. */
export const Duration = z
  .string()
  .regex(
    /^[1-9]\d{0,5}[mhd]$/,
    'must be a whole number followed by m, h or d, such as 15m, 2h or 1d',
  );

/** What an alert watches; which fields a type needs is checked by the alert operations. */
export const AlertCondition = z.strictObject({
  type: z.enum(CONDITION_TYPES),
  toolId: z.string().optional().describe('tool_performance: the tool (id or name)'),
  agentId: z
    .string()
    .optional()
    .describe('agent_score, agent_config_changed, agent_regression, production_*'),
  scenarioId: z.string().optional().describe('scenario_failure'),
  metric: z
    .string()
    .optional()
    .describe(
      `tool_performance: ${TOOL_METRICS.join(', ')}; agent_score: avg_score; scenario_failure: pass_rate`,
    ),
  metricId: z
    .string()
    .optional()
    .describe(
      "production_*: one metric of the agent's monitoring scorecard (its results only; not applicable ones left out)",
    ),
  alpha: z
    .number()
    .gt(0)
    .max(1)
    .optional()
    .describe(
      'production_trend: the weight of each new call in the EWMA (0 < alpha <= 1, default 0.3)',
    ),
  operator: z.enum(OPERATORS).optional(),
  threshold: z.number().optional(),
  timeWindow: Duration.optional(),
  minSamples: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .optional()
    .describe('Default 5: fewer samples in the window never fire'),
});
export type AlertCondition = z.infer<typeof AlertCondition>;

const SlackChannel = z.strictObject({
  channel: z.string().min(1).max(200),
  webhookUrl: z.string().min(1).max(2_048),
});
const WebhookChannel = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  secret: z.string().min(1).max(1_024).optional(),
});

/** Where an alert notifies, as sent and as answered (the Slack URL and the secret masked). */
export const Notifications = z.strictObject({
  email: z.array(z.email()).max(50).optional(),
  slack: SlackChannel.optional(),
  webhook: WebhookChannel.optional(),
  os: z.boolean().optional().describe('Desktop notification; default true'),
});
export type Notifications = z.infer<typeof Notifications>;

// The order of the fields is the order the API publishes them in.
export const Alert = z.object({
  id: z.string(),
  name: z.string(),
  condition: AlertCondition,
  severity: z.enum(SEVERITIES),
  notifications: Notifications,
  cooldown: Duration.optional(),
  isActive: z.boolean(),
  state: z.enum(ALERT_STATES),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Alert = z.infer<typeof Alert>;

/** What a change may set: everything but the identity, the evaluator's state and the bookkeeping. */
export const AlertEditable = Alert.omit({
  id: true,
  state: true,
  created_at: true,
  updated_at: true,
});

/** A secret at rest: sealed (a value still in clear is sealed on its next save). */
const AtRest = z.union([z.string(), z.custom<Sealed>(isSealed)]);

/**
 * Where an alert notifies, as stored: the Slack webhook URL (which embeds its secret) and the
 * webhook secret sealed. The one difference from `Notifications`; the alert operations seal on
 * save and mask in answers.
 */
export const StoredNotifications = Notifications.extend({
  slack: SlackChannel.extend({ webhookUrl: AtRest }).optional(),
  webhook: WebhookChannel.extend({ secret: AtRest.optional() }).optional(),
});
export type StoredNotifications = z.infer<typeof StoredNotifications>;

/**
 * The definition the `definition` column holds: the alert's own fields but its activity, which
 * has a column of its own, its notifications' secrets sealed.
 */
export const AlertDefinition = AlertEditable.omit({ isActive: true }).extend({
  notifications: StoredNotifications,
});
export type AlertDefinition = z.infer<typeof AlertDefinition>;

/** A row of the `alerts` table (its name and watched tool are copied from the definition). */
export type StoredAlert = Pick<Alert, 'id' | 'isActive' | 'state' | 'created_at' | 'updated_at'> & {
  /** The suite key when stored (first export or import); null: not yet (answers derive it). */
  key: string | null;
  definition: AlertDefinition;
};
