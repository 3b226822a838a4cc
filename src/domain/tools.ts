/** Shapes of tool calls that the store logs and the tool runtime makes. */

import type { CallToolCall } from './providers.js';

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
