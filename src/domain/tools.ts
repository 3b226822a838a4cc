/**
 * The tool, defined once, and the shapes of the calls the store logs and the tool runtime makes.
 * The store reads and writes tools through column maps typed by these records, the operations
 * build their schemas from them, and the renderer takes the type list from the catalogue.
 */

import { z } from 'zod';
import { IdentifierName } from './names.js';
import type { CallToolCall } from './providers.js';
import { Timestamp, UserRef } from './records.js';

/** The kinds of tool; the order is the one the API publishes (and its error messages list). */
export const TOOL_TYPES = ['api', 'routing', 'composite', 'database', 'action'] as const;

const Scalar = z.union([z.string(), z.number(), z.boolean()]);
/** One parameter a tool takes, with the rules its value must follow. */
export const Parameter = z.strictObject({
  name: IdentifierName,
  type: z.enum(['string', 'number', 'boolean']).default('string'),
  description: z.string().max(2_000).optional(),
  required: z.boolean().default(false),
  default: Scalar.optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  enum: z
    .array(z.union([z.string(), z.number()]))
    .min(1)
    .max(200)
    .optional(),
  dynamicValue: z
    .strictObject({ basedOn: z.string().min(1).max(256), mapping: z.record(z.string(), Scalar) })
    .optional(),
});

/**
 * The tool as the API answers it (field order = answer order). Its `config` holds the same fields
 * at rest and in answers, but the secrets in it (auth fields, credential headers, a database
 * connection) are sealed at rest and masked in answers: the tool operations' `present` is the one
 * place that turns the one into the other. The nested lists are checked on input (the tool's
 * definition rules) and kept loose here, as every stored version reads back.
 */
export const Tool = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  type: z.enum(TOOL_TYPES),
  config: z.record(z.string(), z.unknown()).optional(),
  parameters: z.array(Parameter),
  responseMapping: z.record(z.string(), z.string()).optional(),
  rules: z.array(z.record(z.string(), z.unknown())).optional(),
  conditions: z.array(z.record(z.string(), z.unknown())).optional(),
  steps: z.array(z.record(z.string(), z.unknown())).optional(),
  aggregateResults: z.boolean().optional(),
  errorHandling: z.record(z.string(), z.unknown()).optional(),
  logPayloads: z
    .boolean()
    .optional()
    .describe('Full parameters and results are kept in the call log (secrets never)'),
  version: z.number().int(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Tool = z.infer<typeof Tool>;

/**
 * What a tool's author writes: everything but the identity and the bookkeeping. Each version
 * stores it whole (the `definition` column), its secrets sealed.
 */
export const ToolDefinition = Tool.omit({
  id: true,
  version: true,
  created_at: true,
  updated_at: true,
});
export type ToolDefinition = z.infer<typeof ToolDefinition>;

/**
 * A row of the `tools` table: the tool's definition in one JSON column, with its name and type
 * copied beside it so that lookups and filters need not read the JSON.
 */
export type StoredTool = Pick<
  Tool,
  'id' | 'name' | 'type' | 'version' | 'created_at' | 'updated_at'
> & {
  /** The suite key when stored (first export or import); null: not yet (answers derive it). */
  key: string | null;
  definition: ToolDefinition;
};

/** One version of a tool (a row of `tool_versions`): its definition, what changed, when, by whom. */
export const ToolVersion = z.object({
  version: z.number().int(),
  change: z.string().describe('created, updated, or rollback to version N'),
  created_at: Timestamp,
  created_by: UserRef,
  definition: ToolDefinition,
});
export type ToolVersion = z.infer<typeof ToolVersion>;

/** How a tool call ended. Every failure is one of these kinds, so analytics and handlers agree. */
export const FAILURE_TYPES = [
  'timeout',
  'auth_error',
  'not_found',
  'http_error',
  'network_error',
  'invalid_response',
  'response_too_large',
  // Database tools only: the SQL itself failed (syntax, a write attempted on a read-only tool).
  'query_error',
  // Team servers: the target's address is internal (loopback, private, link-local, metadata).
  'blocked_address',
] as const;
export type FailureType = (typeof FAILURE_TYPES)[number];
export type Outcome = 'success' | FailureType;

export type CallSource = 'test' | 'simulation' | 'production';

/** One row of the call log. */
export interface ToolCallRecord {
  toolId: string;
  toolName: string;
  agentId: string | null;
  source: CallSource;
  startedMs: number;
  durationMs: number;
  outcome: Outcome;
  statusCode: number | null;
  attempts: number;
  errorMessage: string | null;
  parameters: unknown;
  result: unknown;
}

/**
 * The call log row for a reported tool call: we did not make it, so there is no status code and
 * one attempt; a failure the agent reports is an http_error with its result as the message.
 */
export function reportedCallRecord(
  call: CallToolCall,
  where: {
    toolId: string;
    agentId: string | null;
    source: CallSource;
    startedMs: number;
    /** The tool's logPayloads: arguments and result are kept only when it says so. */
    logPayloads: boolean;
  },
): ToolCallRecord {
  const failed = call.success === false;
  return {
    toolId: where.toolId,
    toolName: call.name,
    agentId: where.agentId,
    source: where.source,
    startedMs: where.startedMs,
    durationMs: call.latencyMs ?? 0,
    outcome: failed ? 'http_error' : 'success',
    statusCode: null,
    attempts: 1,
    errorMessage: failed ? String(JSON.stringify(call.result) ?? '').slice(0, 500) : null,
    parameters: where.logPayloads ? (call.arguments ?? null) : null,
    result: where.logPayloads ? (call.result ?? null) : null,
  };
}
