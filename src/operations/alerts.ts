import { z } from 'zod';
import { isoNow } from '../clock.js';
import { notFound, validationError, type ErrorDetail } from '../errors.js';
import { newId } from '../ids.js';
import {
  Alert,
  AlertCondition,
  AlertEditable,
  Duration,
  OPERATORS,
  THRESHOLD_RANGES,
  TOOL_METRICS,
  type AlertDefinition,
  type Notifications,
  type StoredAlert,
  type StoredNotifications,
} from '../domain/alerts.js';
import { isSealed, mask, type Sealed } from '../kernel/secret-box.js';
import { describeIssues } from './invoke.js';
import { Deleted, Id, Timestamp, deleted } from './common.js';
import { defineOperation, type OperationContext } from './types.js';
import { SuiteKey } from '../domain/suite-keys.js';
import { withKeys } from './suite-key-answers.js';
import { nullableOptionals, withoutNulls } from './removable-keys.js';
import { checkProductionCondition, withProductionDefaults } from './production-alerts.js';

export { CONDITION_TYPES, OPERATORS, SEVERITIES, TOOL_METRICS } from '../domain/alerts.js';

const Condition = AlertCondition;

/** What a caller sets: the alert's editable fields, with the rules of its name. */
const AlertInput = AlertEditable.extend({ name: z.string().trim().min(1).max(200) });

/** A new alert's fields (and a merged update's): what is left out takes its default. */
const AlertBody = AlertInput.extend({
  severity: Alert.shape.severity.default('medium'),
  notifications: Alert.shape.notifications.default({}),
  isActive: Alert.shape.isActive.default(true),
}).shape;
/** A new alert's fields (the suite files are written from it too). */
export const AlertBodySchema = z.strictObject(AlertBody);

/**
 * A change: any of the fields; the condition and the notifications merged key by key (a null
 * removes a key: a channel, a condition's minSamples), a null cooldown removes it.
 */
const AlertPatch = AlertInput.extend({
  condition: z.strictObject({
    ...nullableOptionals(Condition.shape),
    type: Condition.shape.type.optional(),
  }),
  notifications: z.strictObject(nullableOptionals(Alert.shape.notifications.shape)),
  cooldown: Duration.nullable(),
}).partial();

/** The answer: the alert record, its notification secrets masked (see `present`). */
const AlertSchema = Alert;

/** The operator and a threshold within the metric's range (a metric not known has none). */
const needsThreshold = (
  c: z.output<typeof Condition>,
  metric: string | undefined,
  details: ErrorDetail[],
) => {
  if (!c.operator)
    details.push({ path: 'condition.operator', message: `is required (${OPERATORS.join(', ')})` });
  const range = metric === undefined ? undefined : THRESHOLD_RANGES[metric];
  if (c.threshold === undefined)
    details.push({ path: 'condition.threshold', message: 'is required' });
  else if (range && (c.threshold < range.min || c.threshold > (range.max ?? Infinity)))
    details.push({
      path: 'condition.threshold',
      message: `must be ${range.max === undefined ? `at least ${range.min}` : `${range.min} to ${range.max}`} for ${metric}`,
    });
};

/**
 * A condition with what the engine fills when it is left out: the one metric a type has, and the
 * type's time window. The suite files read their conditions through it too, so a file that leaves
 * them out does not differ from the alert it created.
 */
export function withConditionDefaults<C extends z.output<typeof Condition>>(c: C): C {
  switch (c.type) {
    case 'tool_performance':
      return { ...c, timeWindow: c.timeWindow ?? '15m' };
    case 'agent_score':
      return { ...c, metric: c.metric ?? 'avg_score', timeWindow: c.timeWindow ?? '1d' };
    case 'scenario_failure':
      return { ...c, metric: c.metric ?? 'pass_rate', timeWindow: c.timeWindow ?? '1d' };
    case 'production_pass_rate':
    case 'production_trend':
      return withProductionDefaults(c);
    default:
      return c;
  }
}

/** Checks what depends on the condition type and on the store; resolves a tool name to its id. */
async function checkCondition(
  ctx: OperationContext,
  c: z.output<typeof Condition>,
): Promise<z.output<typeof Condition>> {
  const details: ErrorDetail[] = [];
  // A copy: the checks below fill it (a tool's id for its name).
  const out = { ...withConditionDefaults(c) };
  if (c.type === 'tool_performance') {
    const tool = c.toolId ? await ctx.store.tools.find(c.toolId) : undefined;
    if (!c.toolId)
      details.push({ path: 'condition.toolId', message: 'is required for tool_performance' });
    else if (!tool)
      details.push({ path: 'condition.toolId', message: `unknown tool: ${c.toolId}` });
    else out.toolId = tool.id;
    if (!c.metric || !(TOOL_METRICS as readonly string[]).includes(c.metric)) {
      details.push({
        path: 'condition.metric',
        message: `must be one of: ${TOOL_METRICS.join(', ')}`,
      });
    }
    needsThreshold(c, c.metric, details);
  } else if (
    c.type === 'agent_score' ||
    c.type === 'agent_config_changed' ||
    c.type === 'agent_regression'
  ) {
    if (!c.agentId)
      details.push({ path: 'condition.agentId', message: `is required for ${c.type}` });
    else if (!(await ctx.store.agents.existing([c.agentId])).has(c.agentId))
      details.push({ path: 'condition.agentId', message: `unknown agent: ${c.agentId}` });
    if (c.type === 'agent_score') {
      if (c.metric && c.metric !== 'avg_score')
        details.push({ path: 'condition.metric', message: 'must be avg_score' });
      needsThreshold(c, out.metric, details);
    }
  } else if (c.type === 'production_pass_rate' || c.type === 'production_trend') {
    await checkProductionCondition(ctx, c, { details, needsThreshold });
  } else {
    if (!c.scenarioId)
      details.push({ path: 'condition.scenarioId', message: 'is required for scenario_failure' });
    else if (!(await ctx.store.scenarios.existsAnywhere(c.scenarioId)))
      details.push({ path: 'condition.scenarioId', message: `unknown scenario: ${c.scenarioId}` });
    if (c.metric && c.metric !== 'pass_rate')
      details.push({ path: 'condition.metric', message: 'must be pass_rate' });
    needsThreshold(c, out.metric, details);
  }
  if (details.length)
    throw validationError(details.map((d) => `${d.path} ${d.message}`).join('; '), details);
  return out;
}

/** Webhook secrets and Slack webhook URLs (which embed a secret) are sealed; a masked echo keeps them. */
function sealNotifications(
  ctx: OperationContext,
  n: Notifications,
  before?: StoredNotifications,
): StoredNotifications {
  const keep = (value: string, stored: unknown) =>
    isSealed(stored) && value === mask(ctx.secrets.open(stored)) ? stored : ctx.secrets.seal(value);
  const out: StoredNotifications = { ...n };
  if (n.slack)
    out.slack = { ...n.slack, webhookUrl: keep(n.slack.webhookUrl, before?.slack?.webhookUrl) };
  if (n.webhook?.secret)
    out.webhook = { ...n.webhook, secret: keep(n.webhook.secret, before?.webhook?.secret) };
  return out;
}

/** The answer form of stored notifications: what `sealNotifications` sealed is masked. */
function maskNotifications(ctx: OperationContext, n: StoredNotifications): Notifications {
  const shown = (v: string | Sealed): string => (isSealed(v) ? mask(ctx.secrets.open(v)) : v);
  // Each sealed field is replaced in place, so the answer keeps the stored order of the keys.
  return {
    ...n,
    ...(n.slack && { slack: { ...n.slack, webhookUrl: shown(n.slack.webhookUrl) } }),
    ...(n.webhook?.secret && { webhook: { ...n.webhook, secret: shown(n.webhook.secret) } }),
  } as Notifications;
}

/** The answer form of a stored alert: the record, its notification secrets masked. */
function present(ctx: OperationContext, a: StoredAlert): Alert {
  return {
    id: a.id,
    ...a.definition,
    notifications: maskNotifications(ctx, a.definition.notifications),
    isActive: a.isActive,
    state: a.state,
    created_at: a.created_at,
    updated_at: a.updated_at,
  };
}

/** GET and list answer the suite key too (stored, or the one an export would give), after the id. */
const KeyedAlertSchema = z.object({
  id: AlertSchema.shape.id,
  key: SuiteKey,
  ...AlertSchema.omit({ id: true }).shape,
});

/** The answers of GET and list: each alert with its suite key after its id. */
async function presentKeyed(ctx: OperationContext, alerts: StoredAlert[]) {
  const shown = alerts.map((a) => ({ ...present(ctx, a), key: a.key }));
  return (await withKeys(ctx.store, 'alert', null, shown)).map(({ id, key, ...rest }) => ({
    id,
    key,
    ...rest,
  }));
}

async function build(
  ctx: OperationContext,
  body: z.output<typeof AlertBodySchema>,
  before?: AlertDefinition,
): Promise<{ definition: AlertDefinition; isActive: boolean }> {
  const { isActive, ...rest } = body;
  const definition = {
    ...rest,
    condition: await checkCondition(ctx, body.condition),
    notifications: sealNotifications(ctx, body.notifications, before?.notifications),
  };
  return { definition, isActive };
}

const ItemParams = { alert_id: Id };
const getAlert = async (ctx: OperationContext, id: string): Promise<StoredAlert> => {
  const alert = await ctx.store.alerts.get(id);
  if (!alert) throw notFound('alert', id);
  return alert;
};

/** What one channel did with a notification (a test's or an alert event's). */
const DeliverySchema = z.object({
  channel: z.string(),
  delivered: z.boolean(),
  error: z.string().nullable(),
  where: z
    .enum(['desktop', 'console'])
    .optional()
    .describe(
      'OS notifications: shown on a desktop session, or, with none (serve, browser mode), only written to the engine console',
    ),
});

export const alertOperations = [
  defineOperation({
    name: 'alerts.create',
    summary:
      'Create an alert on tool performance, agent score, scenario failures or agent configuration changes',
    http: { method: 'POST', path: '/v1/alerts', status: 201 },
    body: AlertBody,
    output: AlertSchema,
    async handler(input, ctx) {
      const { definition, isActive } = await build(ctx, input);
      const now = isoNow(ctx.clock);
      return present(
        ctx,
        await ctx.store.alerts.insert({
          id: newId('alr', ctx.clock.now()),
          key: null,
          definition,
          isActive,
          state: 'ok',
          created_at: now,
          updated_at: now,
        }),
      );
    },
  }),
  defineOperation({
    name: 'alerts.list',
    summary: 'List alerts',
    http: { method: 'GET', path: '/v1/alerts' },
    output: z.object({ alerts: z.array(KeyedAlertSchema) }),
    async handler(_input, ctx) {
      return { alerts: await presentKeyed(ctx, await ctx.store.alerts.list()) };
    },
  }),
  defineOperation({
    name: 'alerts.get',
    summary: 'Get one alert',
    http: { method: 'GET', path: '/v1/alerts/:alert_id' },
    params: ItemParams,
    output: KeyedAlertSchema,
    async handler({ alert_id }, ctx) {
      return (await presentKeyed(ctx, [await getAlert(ctx, alert_id)]))[0]!;
    },
  }),
  defineOperation({
    name: 'alerts.update',
    summary:
      'Change an alert: top-level fields are replaced, condition and notifications are merged key by key (a null removes a key)',
    http: { method: 'PATCH', path: '/v1/alerts/:alert_id' },
    params: ItemParams,
    body: AlertPatch.shape,
    output: AlertSchema,
    async handler({ alert_id, ...patch }, ctx) {
      const current = await getAlert(ctx, alert_id);
      const shown = present(ctx, current);
      const merged = {
        name: patch.name ?? shown.name,
        condition: withoutNulls({ ...shown.condition, ...(patch.condition ?? {}) }),
        severity: patch.severity ?? shown.severity,
        notifications: withoutNulls({ ...shown.notifications, ...(patch.notifications ?? {}) }),
        cooldown: patch.cooldown === null ? undefined : (patch.cooldown ?? shown.cooldown),
        isActive: patch.isActive ?? current.isActive,
      };
      const parsed = AlertBodySchema.safeParse(merged);
      if (!parsed.success) {
        const details = describeIssues(parsed.error.issues);
        throw validationError(details.map((d) => `${d.path} ${d.message}`).join('; '), details);
      }
      const { definition, isActive } = await build(ctx, parsed.data, current.definition);
      return present(
        ctx,
        (await ctx.store.alerts.replace(alert_id, definition, isActive, isoNow(ctx.clock)))!,
      );
    },
  }),
  defineOperation({
    name: 'alerts.evaluate',
    summary:
      'Evaluate every active alert now (they are evaluated every minute anyway); answers the state changes',
    http: { method: 'POST', path: '/v1/alerts/evaluate' },
    output: z.object({
      changes: z.array(
        z.object({
          alertId: z.string(),
          state: z.enum(['firing', 'resolved']),
          value: z.number().nullable(),
        }),
      ),
    }),
    async handler(_input, ctx) {
      return { changes: await ctx.evaluator.evaluate() };
    },
  }),
  defineOperation({
    name: 'alerts.test',
    summary:
      'Send a test notification to every channel of the alert; answers what each channel did',
    http: { method: 'POST', path: '/v1/alerts/:alert_id/test' },
    params: ItemParams,
    output: z.object({
      results: z.array(DeliverySchema),
    }),
    async handler({ alert_id }, ctx) {
      return { results: await ctx.alerts.notify(await getAlert(ctx, alert_id), 'test', null) };
    },
  }),
  defineOperation({
    name: 'alerts.events',
    summary:
      "The alert's state changes (firing, resolved), newest first, with each channel's delivery",
    http: { method: 'GET', path: '/v1/alerts/:alert_id/events' },
    params: ItemParams,
    output: z.object({
      events: z.array(
        z.object({
          id: z.string(),
          state: z.enum(['firing', 'resolved']),
          value: z.number().nullable(),
          threshold: z.number().nullable(),
          timeWindow: z.string().nullable(),
          at: Timestamp,
          deliveries: z.array(DeliverySchema),
        }),
      ),
    }),
    async handler({ alert_id }, ctx) {
      await getAlert(ctx, alert_id);
      return { events: await ctx.store.alertEvents.list(alert_id) };
    },
  }),
  defineOperation({
    name: 'alerts.delete',
    summary: 'Delete an alert',
    http: { method: 'DELETE', path: '/v1/alerts/:alert_id' },
    params: ItemParams,
    output: Deleted,
    async handler({ alert_id }, ctx) {
      if (!(await ctx.store.alerts.delete(alert_id))) throw notFound('alert', alert_id);
      return deleted(alert_id);
    },
  }),
];
