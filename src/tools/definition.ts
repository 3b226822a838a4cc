import { z } from 'zod';
import { Parameter, TOOL_TYPES, ToolDefinition } from '../domain/tools.js';
import { compileCondition, ExpressionError } from './expressions.js';
import { countStatements, scanNamedParameters } from './sql-params.js';
import { readStatementProblem } from './sql-statement.js';
import type { ErrorDetail } from '../errors.js';

export { Parameter, TOOL_TYPES };
export const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

const Secret = z.string().min(1).max(4_096);
const HttpUrl = z.url({ protocol: /^https?$/ }).max(2_048);

export const Auth = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('none') }),
  z.strictObject({ type: z.literal('bearer'), token: Secret }),
  z.strictObject({
    type: z.literal('api_key'),
    key: Secret,
    location: z.enum(['header', 'query']).default('header'),
    paramName: z.string().min(1).max(128).default('X-API-Key'),
  }),
  z.strictObject({
    type: z.literal('oauth2'),
    clientId: z.string().min(1).max(512),
    clientSecret: Secret,
    tokenUrl: HttpUrl,
    scope: z.string().max(2_048).optional(),
  }),
  z.strictObject({
    type: z.literal('basic'),
    username: z.string().min(1).max(512),
    password: Secret,
  }),
]);

/** Fields of config.auth that are secrets: sealed at rest and masked in answers. */
export const SECRET_AUTH_FIELDS = ['token', 'key', 'clientSecret', 'password'] as const;

const HttpConfig = {
  url: z
    .string()
    .min(1)
    .max(2_048)
    .describe('http(s) URL; may contain {parameterName} placeholders'),
  auth: Auth.optional(),
  headers: z.record(z.string().min(1).max(256), z.string().max(8_192)).optional(),
  timeoutMs: z.number().int().min(1).max(120_000).optional().describe('Default 10000'),
};

export const CONFIG_BY_TYPE = {
  api: z.strictObject({ method: z.enum(METHODS).default('GET'), ...HttpConfig }),
  action: z.strictObject({ method: z.enum(METHODS).default('POST'), ...HttpConfig }),
  routing: z.strictObject({
    transferTo: z.string().min(1).max(512),
    priority: z.string().max(64).optional(),
  }),
  database: z.strictObject({
    driver: z.enum(['sqlite', 'postgres']),
    connection: z
      .string()
      .min(1)
      .max(2_048)
      .describe('SQLite file path, or a PostgreSQL connection URI'),
    query: z
      .string()
      .min(1)
      .max(20_000)
      .describe('SQL with named parameters (:name) bound, never interpolated'),
    timeoutMs: z.number().int().min(1).max(120_000).optional(),
  }),
} as const;

const Handler = z.strictObject({
  fallbackMessage: z.string().max(2_000).optional(),
  action: z.enum(['escalate', 'retry', 'ask_for_clarification']),
  maxRetries: z.number().int().min(1).max(10).optional().describe('For retry; default 3'),
});

/** What a caller sends: the tool's definition, with the rules its fields follow on input. */
export const ToolInput = ToolDefinition.extend({
  name: z.string().regex(TOOL_NAME, 'must be 1 to 64 letters, digits, _ or -'),
  description: z.string().max(5_000).default(''),
  config: z
    .record(z.string(), z.unknown())
    .optional()
    .describe(
      'Per type: api/action {method, url, auth, headers, timeoutMs}; routing {transferTo, priority}; database {driver, connection, query}',
    ),
  parameters: z.array(Parameter).max(100).default([]),
  responseMapping: z.record(z.string().min(1).max(128), z.string().min(1).max(512)).optional(),
  rules: z
    .array(
      z.strictObject({
        condition: z.string().min(1).max(2_000),
        action: z.enum(['require_approval']),
        message: z.string().max(2_000).default(''),
      }),
    )
    .max(50)
    .optional(),
  conditions: z
    .array(
      z.strictObject({ check: z.string().min(1).max(2_000), action: z.enum(['allow', 'deny']) }),
    )
    .max(50)
    .optional(),
  steps: z
    .array(
      z.strictObject({
        tool: z.string().regex(TOOL_NAME),
        params: z.array(z.string()).max(100).default([]),
        dependsOn: z.string().optional(),
      }),
    )
    .max(50)
    .optional(),
  errorHandling: z
    .strictObject({
      onTimeout: Handler.optional(),
      onAuthError: Handler.optional(),
      onNotFound: Handler.optional(),
    })
    .optional(),
  logPayloads: z
    .boolean()
    .optional()
    .describe('Store full parameters and results in the call log (secrets never)'),
}).shape;

export type ToolInputValue = z.output<z.ZodObject<typeof ToolInput>>;

const prefix = (path: string, issues: z.core.$ZodIssue[]): ErrorDetail[] =>
  issues.flatMap((i) =>
    i.code === 'unrecognized_keys'
      ? i.keys.map((k) => ({
          path: [path, ...i.path, k].join('.'),
          message: 'is not a field of this resource',
        }))
      : [{ path: [path, ...i.path].join('.'), message: i.message }],
  );

type StepLookup = (name: string) => { steps?: { tool: string }[] } | undefined;

/**
 * The checks a schema cannot express: config per type, parameter consistency, URL placeholders,
 * a query of one statement, expressions that parse, steps that form no cycle. Returns the
 * normalised definition and every problem found at once.
 */
export function checkToolDefinition(
  input: ToolInputValue,
  lookupSteps: StepLookup,
): { definition: ToolInputValue; details: ErrorDetail[] } {
  const { definition, details } = checkConfig(input);
  const names = new Set(input.parameters.map((p) => p.name));
  details.push(
    ...checkParameters(input.parameters),
    ...checkUrl(definition, names),
    ...checkQuery(definition, names),
    ...checkExpressions(input),
    ...checkSteps(input, lookupSteps),
  );
  return { definition, details };
}

function checkConfig(input: ToolInputValue): {
  definition: ToolInputValue;
  details: ErrorDetail[];
} {
  const details: ErrorDetail[] = [];
  const definition: ToolInputValue = { ...input };
  if (input.type === 'composite') {
    if (input.config !== undefined)
      details.push({ path: 'config', message: 'composite tools have steps instead of a config' });
    if (!input.steps?.length)
      details.push({ path: 'steps', message: 'a composite tool needs at least one step' });
    return { definition, details };
  }
  if (input.config === undefined) details.push({ path: 'config', message: 'is required' });
  else {
    const parsed = CONFIG_BY_TYPE[input.type].safeParse(input.config);
    if (parsed.success) definition.config = parsed.data;
    else details.push(...prefix('config', parsed.error.issues));
  }
  if (input.steps?.length)
    details.push({ path: 'steps', message: 'only composite tools have steps' });
  return { definition, details };
}

function checkParameters(parameters: ToolInputValue['parameters']): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const seen = new Set<string>();
  parameters.forEach((p, i) => {
    const at = `parameters[${i}]`;
    if (seen.has(p.name))
      details.push({ path: `${at}.name`, message: `duplicate parameter name ${p.name}` });
    seen.add(p.name);
    if (p.type !== 'number' && (p.min !== undefined || p.max !== undefined))
      details.push({ path: at, message: 'min and max apply to number parameters only' });
    if (p.min !== undefined && p.max !== undefined && p.min > p.max)
      details.push({ path: at, message: 'min is greater than max' });
    const defaultProblem = checkDefault(p);
    if (defaultProblem) details.push({ path: `${at}.default`, message: defaultProblem });
    if (p.enum?.some((v) => typeof v !== (p.type === 'boolean' ? 'string' : p.type))) {
      details.push({
        path: `${at}.enum`,
        message: `values must be ${p.type === 'number' ? 'numbers' : 'strings'}`,
      });
    }
  });
  return details;
}

function checkDefault(p: ToolInputValue['parameters'][number]): string | null {
  if (p.default === undefined) return null;
  if (typeof p.default !== p.type) return `must be a ${p.type}`;
  if (p.enum && !p.enum.includes(p.default as string | number))
    return 'is not one of the enum values';
  const outside =
    typeof p.default === 'number' &&
    ((p.min !== undefined && p.default < p.min) || (p.max !== undefined && p.default > p.max));
  return outside ? 'is outside min..max' : null;
}

function checkUrl(def: ToolInputValue, names: Set<string>): ErrorDetail[] {
  const url =
    (def.type === 'api' || def.type === 'action') && typeof def.config?.url === 'string'
      ? def.config.url
      : undefined;
  if (!url) return [];
  const details: ErrorDetail[] = [];
  for (const [, name] of url.matchAll(/\{([^{}]*)\}/g)) {
    if (!names.has(name!))
      details.push({ path: 'config.url', message: `placeholder {${name}} names no parameter` });
  }
  if (!HttpUrl.safeParse(url.replace(/\{[^{}]*\}/g, 'x')).success)
    details.push({ path: 'config.url', message: 'must be an http or https URL' });
  return details;
}

/**
 * A database tool's query: one statement (never a batch a driver might run), known parameters.
 * On PostgreSQL, one read statement by parsing: a READ ONLY transaction still runs DO and COPY.
 */
export function checkQuery(def: ToolInputValue, names: Set<string>): ErrorDetail[] {
  if (def.type !== 'database' || typeof def.config?.query !== 'string') return [];
  const query = def.config.query;
  const details: ErrorDetail[] = [];
  const problem =
    def.config.driver === 'postgres'
      ? readStatementProblem(query)
      : countStatements(query) > 1 &&
        'must be one statement: database tools run a single read-only query';
  if (problem) details.push({ path: 'config.query', message: problem });
  for (const name of scanNamedParameters(query).names) {
    if (!names.has(name))
      details.push({ path: 'config.query', message: `:${name} names no parameter` });
  }
  return details;
}

function checkExpressions(input: ToolInputValue): ErrorDetail[] {
  const expressions: [string, string][] = [
    ...(input.rules ?? []).map((r, i): [string, string] => [`rules[${i}].condition`, r.condition]),
    ...(input.conditions ?? []).map((c, i): [string, string] => [
      `conditions[${i}].check`,
      c.check,
    ]),
  ];
  const details: ErrorDetail[] = [];
  for (const [path, source] of expressions) {
    try {
      compileCondition(source);
    } catch (err) {
      details.push({
        path,
        message: err instanceof ExpressionError ? err.message : 'does not parse',
      });
    }
  }
  if (input.conditions?.length && input.type !== 'routing')
    details.push({ path: 'conditions', message: 'conditions apply to routing tools only' });
  return details;
}

function checkSteps(input: ToolInputValue, lookupSteps: StepLookup): ErrorDetail[] {
  if (input.type !== 'composite' || !input.steps?.length) return [];
  const details: ErrorDetail[] = [];
  const stepTools = input.steps.map((s) => s.tool);
  input.steps.forEach((s, i) => {
    if (s.tool === input.name)
      details.push({ path: `steps[${i}].tool`, message: 'a composite tool cannot call itself' });
    else if (!lookupSteps(s.tool))
      details.push({ path: `steps[${i}].tool`, message: `unknown tool ${s.tool}` });
    if (s.dependsOn !== undefined && !stepTools.slice(0, i).includes(s.dependsOn)) {
      details.push({ path: `steps[${i}].dependsOn`, message: `must name an earlier step's tool` });
    }
  });
  const cycle = findCycle(input.name, stepTools, lookupSteps);
  if (cycle)
    details.push({ path: 'steps', message: `composite steps form a cycle: ${cycle.join(' -> ')}` });
  return details;
}

/** Depth-first search through composite steps, starting from the tool being saved. */
function findCycle(root: string, rootSteps: string[], lookup: StepLookup): string[] | null {
  const stack = [root];
  const done = new Set<string>();
  const visit = (steps: string[]): string[] | null => {
    for (const name of steps) {
      if (stack.includes(name)) return [...stack.slice(stack.indexOf(name)), name];
      if (done.has(name)) continue;
      stack.push(name);
      const found = visit((lookup(name)?.steps ?? []).map((s) => s.tool));
      if (found) return found;
      stack.pop();
      done.add(name);
    }
    return null;
  };
  return visit(rootSteps);
}
