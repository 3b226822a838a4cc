export type { CallSource, ToolCallRecord } from '../domain/tools.js';
import type { CallSource, ToolCallRecord } from '../domain/tools.js';
import type { StoredTool } from '../store/tools.js';
import type { ParameterDefinition } from './params.js';
import type { OAuthTokenCache, TargetAuth } from './auth.js';
import type { RawToolAnswer } from '../domain/tool-raw.js';

export interface Handler {
  fallbackMessage?: string;
  action: 'escalate' | 'retry' | 'ask_for_clarification';
  maxRetries?: number;
}

/** A tool definition as the runtime reads it (validated when it was saved). */
export interface ToolDef {
  name: string;
  type: 'api' | 'routing' | 'composite' | 'database' | 'action';
  config?: Record<string, unknown> & { auth?: TargetAuth; timeoutMs?: number };
  parameters?: ParameterDefinition[];
  responseMapping?: Record<string, string>;
  rules?: { condition: string; action: 'require_approval'; message: string }[];
  conditions?: { check: string; action: 'allow' | 'deny' }[];
  steps?: { tool: string; params: string[]; dependsOn?: string }[];
  aggregateResults?: boolean;
  errorHandling?: { onTimeout?: Handler; onAuthError?: Handler; onNotFound?: Handler };
  logPayloads?: boolean;
}

/** The answer of a tool call, as `POST /v1/tools/{name}/test` gives it. */
export interface ToolAnswer {
  success: boolean;
  responseTime: number;
  result: unknown;
  statusCode: number | null;
  attempts: number;
  warnings: string[];
  approvalRequired?: true;
  message?: string;
  error?: { type: string; message: string; step?: string };
  fallback?: { message: string | null; action: string };
  dryRun?: true;
  request?: unknown;
  /** HTTP tools, when the call asked for it: the target's answer as it came, secrets masked. */
  raw?: RawToolAnswer;
}

export interface RuntimeDeps {
  findTool(name: string): Promise<StoredTool | undefined>;
  /** The tool's config with its secrets in clear (for the call only, never answered or logged). */
  openConfig(tool: StoredTool): ToolDef['config'];
  /** The tool's config as answers show it (secrets masked). */
  maskedConfig(tool: StoredTool): ToolDef['config'];
  /** The tool's secrets in clear, to take out of whatever the target echoes back. */
  secretsOf(tool: StoredTool): string[];
  oauth: OAuthTokenCache;
  now(): number;
  sleep(ms: number): Promise<void>;
  retryBaseMs: number;
  record(call: ToolCallRecord): Promise<void>;
}

export interface CallOptions {
  source: CallSource;
  agentId?: string | null;
  dryRun?: boolean;
  depth?: number;
  /** Keep the target's raw answer on the answer (a tool test shows it; agents never need it). */
  captureRaw?: boolean;
}

/** One call of a tool: who asks and how, in what context, with which runtime. */
export interface ToolCall extends CallOptions {
  deps: RuntimeDeps;
  /** Values a tool's parameters and rules may read besides the parameters themselves. */
  context?: Record<string, unknown>;
}

/** The runtime's entry point, as composite steps call it back (a value import would be circular). */
export type ExecuteTool = (
  tool: StoredTool,
  params: Record<string, unknown>,
  call: ToolCall,
) => Promise<ToolAnswer>;
