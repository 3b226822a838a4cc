import { validationError } from '../errors.js';
import type { StoredTool } from '../store/tools.js';
import { applyAuth, staticAuth, type TargetAuth } from './auth.js';
import { runComposite } from './composite.js';
import { maskConnection, runQuery, type DatabaseConfig } from './database.js';
import { compileCondition } from './expressions.js';
import { buildRequest, parseBody, send, type HttpConfig } from './http.js';
import { applyMapping } from './mapping.js';
import { CallFailed, ToolFailure, type FailureType } from './outcome.js';
import { resolveParameters } from './params.js';
import { rawAnswer } from './raw-answer.js';
import { redact } from './secrets.js';
import type { ExecuteTool, Handler, RuntimeDeps, ToolAnswer, ToolCall, ToolDef } from './types.js';

export const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_DEPTH = 8;

interface Produced {
  result: unknown;
  statusCode: number | null;
  attempts: number;
  warnings: string[];
  raw?: ToolAnswer['raw'];
}

const HANDLER_KEY: Partial<Record<FailureType, keyof NonNullable<ToolDef['errorHandling']>>> = {
  timeout: 'onTimeout',
  auth_error: 'onAuthError',
  not_found: 'onNotFound',
};

/**
 * Calls a tool exactly as an agent would: parameters checked and completed, rules applied, the
 * call made with its auth, errors classified and handled, the answer mapped, the call logged.
 * Bad parameters are the caller's mistake (a 400); a failing tool is an answer with success false.
 */
export const executeTool: ExecuteTool = async (tool, params, given) => {
  const call = withContext(given);
  const { deps, context } = call;
  const def = tool.definition as unknown as ToolDef;
  const { values, errors } = resolveParameters(def.parameters ?? [], params, context);
  if (errors.length)
    throw validationError(
      `Invalid parameters: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}`,
      errors,
    );

  const rules = def.rules ?? [];
  const scope = rules.length ? { ...context, ...values } : {};
  for (const rule of rules) {
    if (compileCondition(rule.condition).evaluate(scope)) {
      return {
        success: false,
        approvalRequired: true,
        message: rule.message,
        responseTime: 0,
        result: null,
        statusCode: null,
        attempts: 0,
        warnings: [],
      };
    }
  }
  if (call.dryRun) return dryRun(tool, def, values, deps);
  if ((call.depth ?? 0) > MAX_DEPTH)
    throw validationError('Composite tools nest too deeply', [
      { path: 'steps', message: `more than ${MAX_DEPTH} levels` },
    ]);

  const startedMs = deps.now();
  const started = performance.now();
  let answer: ToolAnswer;
  try {
    const produced = await produce(tool, def, values, call);
    if ('approvalRequired' in produced) return produced;
    answer = { success: true, responseTime: elapsed(started), ...produced };
  } catch (err) {
    if (!(err instanceof CallFailed)) throw err;
    answer = {
      success: false,
      responseTime: elapsed(started),
      result: null,
      statusCode: err.failure.statusCode,
      attempts: err.attempts,
      warnings: [],
      error: err.describe(),
    };
    if (call.captureRaw && err.failure.answer) answer.raw = rawAnswer(err.failure.answer);
    const handler = handlerFor(def, err.failure.type);
    if (handler)
      answer.fallback = { message: handler.fallbackMessage ?? null, action: handler.action };
  }
  // A target that echoes a secret back (in an error page, a body) never gets it stored or answered.
  answer = redact(answer, deps.secretsOf(tool));
  await deps.record({
    toolId: tool.id,
    toolName: tool.name,
    agentId: call.agentId ?? null,
    source: call.source,
    startedMs,
    durationMs: answer.responseTime,
    outcome: answer.success ? 'success' : (answer.error!.type as FailureType),
    statusCode: answer.statusCode,
    attempts: answer.attempts,
    errorMessage: answer.error?.message.slice(0, 500) ?? null,
    parameters: def.logPayloads ? values : null,
    result: def.logPayloads ? answer.result : null,
  });
  return answer;
};

const elapsed = (since: number): number => Math.round(performance.now() - since);

/**
 * The call with a context, as given when it has one. Taking the call apart with a rest pattern and
 * spreading it together again with its context cost about a microsecond of every tool call.
 */
const withContext = (call: ToolCall): ToolCall & { context: Record<string, unknown> } =>
  call.context
    ? (call as ToolCall & { context: Record<string, unknown> })
    : { ...call, context: {} };
const handlerFor = (def: ToolDef, type: FailureType): Handler | undefined => {
  const key = HANDLER_KEY[type];
  return key ? def.errorHandling?.[key] : undefined;
};

async function produce(
  tool: StoredTool,
  def: ToolDef,
  values: Record<string, unknown>,
  call: Required<Pick<ToolCall, 'context'>> & ToolCall,
): Promise<Produced | ToolAnswer> {
  const { deps, context } = call;
  switch (def.type) {
    case 'routing': {
      const scope = { ...context, ...values };
      const decided = (def.conditions ?? []).find((c) => compileCondition(c.check).evaluate(scope));
      const config = def.config as { transferTo: string; priority?: string };
      return {
        result: {
          transferTo: config.transferTo,
          priority: config.priority ?? null,
          allowed: decided?.action === 'allow',
        },
        statusCode: null,
        attempts: 1,
        warnings: [],
      };
    }
    case 'composite':
      return runComposite({ def, values, call, execute: executeTool });
    case 'database': {
      const config = deps.openConfig(tool) as unknown as DatabaseConfig;
      const rows = await withHandling(def, deps, () =>
        runQuery(config, values, config.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      );
      const mapped = applyMapping(rows.value, def.responseMapping);
      return {
        result: mapped.result,
        statusCode: null,
        attempts: rows.attempts,
        warnings: mapped.warnings,
      };
    }
    default: {
      const config = deps.openConfig(tool) as unknown as HttpConfig & {
        auth?: TargetAuth;
        timeoutMs?: number;
      };
      const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const needsJson = Object.keys(def.responseMapping ?? {}).length > 0;
      let authRetried = false;
      const answer = await withHandling(def, deps, async () => {
        // Only an OAuth2 token is waited for; any other auth is the config's own.
        const auth =
          config.auth?.type === 'oauth2'
            ? await applyAuth(config.auth, deps.oauth, timeoutMs)
            : staticAuth(config.auth);
        try {
          return await send(buildRequest(config, values, auth), timeoutMs, auth);
        } catch (err) {
          // An OAuth2 token the target no longer accepts: fetch a new one, once.
          if (
            err instanceof ToolFailure &&
            err.statusCode === 401 &&
            config.auth?.type === 'oauth2' &&
            !authRetried
          ) {
            authRetried = true;
            deps.oauth.invalidate(config.auth);
            const renewed = await applyAuth(config.auth, deps.oauth, timeoutMs);
            return send(buildRequest(config, values, renewed), timeoutMs, renewed);
          }
          throw err;
        }
      });
      const body = withAttempts(() => parseBody(answer.value, needsJson), answer.attempts);
      const mapped = applyMapping(body, def.responseMapping);
      // One shape whether or not the raw answer is kept (an added field would change it).
      return {
        result: mapped.result,
        statusCode: answer.value.status,
        attempts: answer.attempts,
        warnings: mapped.warnings,
        raw: call.captureRaw ? rawAnswer(answer.value) : undefined,
      };
    }
  }
}

const withAttempts = <T>(fn: () => T, attempts: number): T => {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ToolFailure) throw new CallFailed(err, attempts);
    throw err;
  }
};

/** Runs one call, repeating it when the failure's handler says retry (exponential backoff, jitter). */
async function withHandling<T>(
  def: ToolDef,
  deps: RuntimeDeps,
  call: () => Promise<T>,
): Promise<{ value: T; attempts: number }> {
  let attempts = 0;
  let retries = 0;
  for (;;) {
    attempts++;
    try {
      return { value: await call(), attempts };
    } catch (err) {
      if (!(err instanceof ToolFailure)) throw err;
      const handler = handlerFor(def, err.type);
      if (handler?.action === 'retry' && retries < (handler.maxRetries ?? 3)) {
        retries++;
        await deps.sleep(deps.retryBaseMs * 2 ** (retries - 1) + Math.random() * deps.retryBaseMs);
        continue;
      }
      throw new CallFailed(err, attempts);
    }
  }
}

/** The exact request a call would send, secrets masked, nothing sent. */
async function dryRun(
  tool: StoredTool,
  def: ToolDef,
  values: Record<string, unknown>,
  deps: RuntimeDeps,
): Promise<ToolAnswer> {
  const base = {
    success: true,
    dryRun: true as const,
    responseTime: 0,
    result: null,
    statusCode: null,
    attempts: 0,
    warnings: [],
  };
  const config = deps.maskedConfig(tool) as Record<string, unknown> & { auth?: TargetAuth };
  switch (def.type) {
    case 'api':
    case 'action': {
      // The masked auth stands in for the real one; an OAuth2 token would be fetched at call time.
      const auth =
        config.auth?.type === 'oauth2'
          ? {
              headers: { authorization: 'Bearer <token from the OAuth2 token endpoint>' },
              query: {},
            }
          : await applyAuth(config.auth, deps.oauth, 0);
      return { ...base, request: buildRequest(config as unknown as HttpConfig, values, auth) };
    }
    case 'database': {
      const db = config as unknown as DatabaseConfig;
      return {
        ...base,
        request: {
          driver: db.driver,
          connection: maskConnection(db.connection),
          query: db.query,
          parameters: values,
        },
      };
    }
    case 'composite':
      return {
        ...base,
        request: {
          steps: (def.steps ?? []).map((s) => ({
            tool: s.tool,
            dependsOn: s.dependsOn ?? null,
            parameters: Object.fromEntries(
              s.params.filter((p) => p in values).map((p) => [p, values[p]]),
            ),
          })),
        },
      };
    default:
      return { ...base, request: { routing: true, parameters: values } };
  }
}
