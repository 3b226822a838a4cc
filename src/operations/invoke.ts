import { FileAnswer, fileData } from './file-answer.js';
import type { z } from 'zod';
import { assertShallow } from '../json-depth.js';
import { outputProblems } from './output-check.js';
import { AppError, forbidden, notFound, validationError, type ErrorDetail } from '../errors.js';
import {
  isWorkspaceOperation,
  WithStatus,
  type Caller,
  type EngineServices,
  type Operation,
  type OperationContext,
} from './types.js';

const pathOf = (path: PropertyKey[]): string =>
  path.reduce<string>(
    (acc, key) =>
      typeof key === 'number' ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key),
    '',
  );

const UNITS: Record<string, string> = {
  string: ' characters',
  array: ' items',
  set: ' items',
  file: ' bytes',
};

/** Says what a value must be, in words, for the bounds and types a schema checks. */
function plainMessage(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    // An exclusive bound (`gt`, `lt`) excludes the value itself: "at least 0" would allow it.
    case 'too_big':
      return `must be ${issue.inclusive === false ? 'less than' : 'at most'} ${String(issue.maximum)}${UNITS[issue.origin] ?? ''}`;
    case 'too_small':
      return issue.origin === 'string' && Number(issue.minimum) === 1
        ? 'must not be empty'
        : `must be ${issue.inclusive === false ? 'more than' : 'at least'} ${String(issue.minimum)}${UNITS[issue.origin] ?? ''}`;
    case 'invalid_type':
      return issue.message === 'is required'
        ? issue.message
        : `must be ${/^[aeiou]/.test(issue.expected) ? 'an' : 'a'} ${issue.expected}`;
    case 'invalid_format':
      return issue.format === 'regex' ? issue.message : `must be a valid ${issue.format}`;
    default:
      return issue.message;
  }
}

/** Turns schema issues into `details`: one entry per bad field, by its path, saying why. */
export function describeIssues(issues: z.core.$ZodIssue[]): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        details.push({
          path: pathOf([...issue.path, key]),
          message: 'is not a field of this resource',
        });
      }
    } else if (issue.code === 'invalid_value' && issue.values.length > 1) {
      details.push({
        path: pathOf(issue.path),
        message: `must be one of: ${issue.values.map(String).join(', ')}`,
      });
    } else {
      details.push({ path: pathOf(issue.path), message: plainMessage(issue) });
    }
  }
  return details;
}

const errorMap = (iss: z.core.$ZodRawIssue): string | undefined =>
  iss.code === 'invalid_type' && iss.input === undefined ? 'is required' : undefined;

export function parseInput(op: Operation, raw: unknown): unknown {
  // A custom error map turns off zod's compiled fast path for objects (four times the cost of a
  // parse that passes): the map only words the failures, so only a failed input is parsed with it.
  const passed = op.input.safeParse(raw ?? {});
  if (passed.success) return passed.data;
  const result = op.input.safeParse(raw ?? {}, { error: errorMap });
  if (result.success) return result.data;
  const details = describeIssues(result.error.issues);
  const summary = details.map((d) => (d.path ? `${d.path} ${d.message}` : d.message)).join('; ');
  throw validationError(`Invalid input: ${summary}`, details);
}

export interface InvokeResult {
  status: number;
  data: unknown;
}

/**
 * Runs an operation for a caller: authorises (a workspace token only on its own workspace, and
 * only on workspace operations), validates the input against the operation's schema, checks the
 * workspace exists, then calls the handler.
 */
export function createInvoker(
  catalogue: Operation[],
  services: EngineServices,
  options: { checkOutputs?: boolean } = {},
) {
  const byName = new Map(catalogue.map((op) => [op.name, op]));
  // Every call's context is this copy with its caller set: copying an object that already has a
  // `caller` field costs a few nanoseconds, while adding the field to a copy of the services cost
  // about 0.7 µs of every call (the copy changed shape as it grew).
  const withoutCaller: OperationContext = { ...services, caller: undefined as unknown as Caller };

  /** `binary`: the operation's own HTTP route, which streams a file answer as it is. */
  return async function invoke(
    name: string,
    raw: unknown,
    caller: Caller,
    how: { binary?: boolean } = {},
  ): Promise<InvokeResult> {
    const op = byName.get(name);
    if (!op) throw new AppError('unknown_operation', 404, `There is no operation named '${name}'`);
    // Every transport comes through here: HTTP, IPC and the CLI alike.
    assertShallow(raw);
    const input = (raw ?? {}) as Record<string, unknown>;
    if (caller.kind === 'token') {
      if (op.refuseTokens) throw forbidden(op.refuseTokens);
      if (!isWorkspaceOperation(op)) {
        throw forbidden(
          'A workspace access token is only valid on /api/v1/workspaces/{its workspace}/... paths; use an API key.',
        );
      }
      if (input.workspace_id !== caller.workspaceId) {
        throw forbidden('This access token belongs to another workspace.');
      }
    }
    const parsed = parseInput(op, input) as Record<string, unknown>;
    if (
      isWorkspaceOperation(op) &&
      !(await services.store.workspaces.get(parsed.workspace_id as string))
    ) {
      throw notFound('workspace', parsed.workspace_id as string);
    }
    let out = await op.handler(parsed, { ...withoutCaller, caller });
    if (out instanceof FileAnswer) {
      if (how.binary) return { status: op.http?.status ?? 200, data: out };
      out = await fileData(out);
    }
    const result: InvokeResult =
      out instanceof WithStatus
        ? { status: out.status, data: out.data }
        : { status: op.http?.status ?? 200, data: out };
    if (options.checkOutputs && op.output) assertDocumented(op, result.data);
    return result;
  };
}

/** Tests run with this on: an answer its OpenAPI schema does not describe is a 500, named. */
function assertDocumented(op: Operation, data: unknown): void {
  const problems = outputProblems(op.output!, data);
  if (problems.length)
    throw new AppError(
      'undocumented_output',
      500,
      `${op.name} answered outside its response schema: ${problems.slice(0, 10).join('; ')}`,
    );
}

export type Invoke = ReturnType<typeof createInvoker>;
