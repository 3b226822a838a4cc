/** Shapes of tool calls that the store logs and the tool runtime makes. */

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
