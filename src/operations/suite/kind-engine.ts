import { z } from 'zod';
import type { Alert } from '../../domain/alerts.js';
import type { Tool } from '../../domain/tools.js';
import { isCredentialHeader } from '../../net/outbound.js';
import { CONFIG_BY_TYPE, SECRET_AUTH_FIELDS, ToolInput } from '../../tools/definition.js';
import { AlertBodySchema, withConditionDefaults } from '../alerts.js';
import { fileHead, readPath, type FileObject } from './file-common.js';
import { ordered } from './file-order.js';
import { kindSpec } from './kind-spec.js';

/** The engine-wide suite kinds (tools and alerts): exported as far as the workspace uses them. */

const ToolInputSchema = z.strictObject(ToolInput);
type ConfiguredType = keyof typeof CONFIG_BY_TYPE;
const configSchemaOf = (type: unknown): z.ZodObject | undefined =>
  typeof type === 'string' && type in CONFIG_BY_TYPE
    ? CONFIG_BY_TYPE[type as ConfiguredType]
    : undefined;

/**
 * A tool file: the create input, its `config` checked by the tool's type as the tool operations
 * check it (so a problem names `config.auth.token`, not the whole config). The published JSON
 * Schema says the same with one `if type then config` per type (json-schemas.ts).
 */
export const ToolFile = z
  .strictObject({ ...fileHead, ...ToolInput })
  .superRefine((file, ctx) => {
    const schema = configSchemaOf(file.type);
    if (!schema || file.config === undefined) return;
    const parsed = schema.safeParse(file.config);
    for (const issue of parsed.error?.issues ?? [])
      ctx.addIssue({ ...issue, path: ['config', ...issue.path] });
  })
  .overwrite(withConfigDefaults);

/**
 * The file's `config` as its type's schema reads it, defaults filled (an api tool's `method`,
 * an api_key auth's `location`): what the tool operations store, so a file that leaves them out
 * does not differ from the tool it created. The JSON Schema is unchanged (an overwrite has none).
 */
function withConfigDefaults<T extends { type: unknown; config?: Record<string, unknown> }>(
  file: T,
): T {
  const parsed = configSchemaOf(file.type)?.safeParse(file.config);
  return parsed?.success ? { ...file, config: parsed.data } : file;
}

/** A tool's secret fields: auth secrets, credential-named headers, a database connection. */
function toolSecretPaths(file: FileObject): string[] {
  const config = file.config as Record<string, unknown> | undefined;
  if (!config || typeof config !== 'object') return [];
  const auth = (config.auth ?? {}) as Record<string, unknown>;
  const headers = (config.headers ?? {}) as Record<string, unknown>;
  return [
    ...SECRET_AUTH_FIELDS.filter((f) => typeof auth[f] === 'string').map((f) => `config.auth.${f}`),
    ...Object.keys(headers)
      .filter(isCredentialHeader)
      .map((name) => `config.headers.${name}`),
    ...(file.type === 'database' && typeof config.connection === 'string'
      ? ['config.connection']
      : []),
  ];
}

export const toolSpec = kindSpec<Tool>({
  kind: 'tool',
  dir: 'tools',
  input: ToolInputSchema,
  fileSchema: ToolFile,
  references: [],
  secretPaths: toolSecretPaths,
  fields(tool): FileObject {
    const fields = ordered(ToolInputSchema, tool) as FileObject;
    const schema = configSchemaOf(tool.type);
    // The config's record type says nothing of its order: its type's schema does.
    if (schema && tool.config) fields.config = ordered(schema, tool.config);
    return fields;
  },
});

/** The paths of an alert's secrets: the webhook's signing secret and the Slack URL (it embeds one). */
const ALERT_SECRETS = ['notifications.webhook.secret', 'notifications.slack.webhookUrl'];

const alertShape = AlertBodySchema.shape;
const conditionShape = alertShape.condition.shape;
const AlertFile = z.strictObject({
  ...fileHead,
  ...alertShape,
  condition: alertShape.condition
    .extend({
      toolId: conditionShape.toolId.describe('tool_performance: the tool key'),
      agentId: conditionShape.agentId.describe(
        'agent_score, agent_config_changed, agent_regression: the agent key',
      ),
      scenarioId: conditionShape.scenarioId.describe('scenario_failure: the scenario key'),
    })
    // What alerts.create fills, filled here too: a file that leaves it out is not a change.
    .overwrite(withConditionDefaults),
});

export const alertSpec = kindSpec<Alert>({
  kind: 'alert',
  dir: 'alerts',
  input: AlertBodySchema,
  fileSchema: AlertFile,
  references: [
    { path: 'condition.toolId', kind: 'tool', many: false },
    { path: 'condition.agentId', kind: 'agent', many: false },
    { path: 'condition.scenarioId', kind: 'scenario', many: false },
  ],
  secretPaths: (file) => ALERT_SECRETS.filter((path) => typeof readPath(file, path) === 'string'),
});
