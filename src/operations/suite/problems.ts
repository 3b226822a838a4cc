import { z } from 'zod';
import { AppError, type ErrorDetail } from '../../errors.js';
import { describeIssues } from '../invoke.js';
import { fieldName, fieldPath, type PathSegment, type Position } from './field-paths.js';

/** What is wrong with a suite, where: the file, the 1-based line and column, the field's path. */
export const SuiteProblem = z.object({
  file: z.string(),
  line: z.number().int().describe('1-based; 1 when the problem concerns the whole file'),
  column: z.number().int().describe('1-based; 1 when the problem concerns the whole file'),
  field: z.string().describe('Dotted path of the field (`config.auth.token`); empty: the file'),
  message: z.string(),
});
export type SuiteProblem = z.infer<typeof SuiteProblem>;

/** Anything that can say where a field of its file is (a YAML file; a CSV file or JSON: 1:1). */
export interface Locator {
  readonly file: string;
  position(path: readonly PathSegment[], how?: { onKey?: boolean }): Position;
}

/** A locator for a file without positions of its own (a problem of the whole file). */
export const wholeFile = (file: string): Locator => ({
  file,
  position: () => ({ line: 1, column: 1 }),
});

export function problemAt(
  where: Locator,
  path: readonly PathSegment[],
  message: string,
  how: { onKey?: boolean } = {},
): SuiteProblem {
  return { file: where.file, ...where.position(path, how), field: fieldName(path), message };
}

/** Schema issues of one file's value: one problem per bad field, at its node. */
export function issueProblems(where: Locator, issues: z.core.$ZodIssue[]): SuiteProblem[] {
  const out: SuiteProblem[] = [];
  for (const issue of issues) {
    const details = describeIssues([issue]);
    const paths: PathSegment[][] =
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((k) => [...(issue.path as PathSegment[]), k])
        : [issue.path as PathSegment[]];
    details.forEach((d, i) =>
      out.push(
        problemAt(where, paths[i] ?? fieldPath(d.path), d.message, {
          onKey: issue.code === 'unrecognized_keys',
        }),
      ),
    );
  }
  return out;
}

/** A file's value checked against its schema: the parsed value, or the problems. */
export function checkAgainst<T>(
  where: Locator,
  schema: z.ZodType<T>,
  value: unknown,
): { data: T; problems: [] } | { data: undefined; problems: SuiteProblem[] } {
  const passed = schema.safeParse(value);
  if (passed.success) return { data: passed.data, problems: [] };
  // The same wording as the API's 400s ("is required" rather than zod's own).
  const worded = schema.safeParse(value, {
    error: (iss) =>
      iss.code === 'invalid_type' && iss.input === undefined ? 'is required' : undefined,
  });
  return { data: undefined, problems: issueProblems(where, worded.error?.issues ?? []) };
}

/**
 * What an operation said of one file's input (a 400 with details by field, or a 409 or 404 of the
 * whole), as problems at the fields it named: the file's fields are the input's, by the same names.
 */
export function errorProblems(where: Locator, err: AppError): SuiteProblem[] {
  const details = Array.isArray(err.details) ? (err.details as unknown[]) : [];
  const named = details.filter(
    (d): d is ErrorDetail =>
      typeof d === 'object' &&
      d !== null &&
      typeof (d as ErrorDetail).path === 'string' &&
      typeof (d as ErrorDetail).message === 'string',
  );
  if (!named.length) return [problemAt(where, [], err.message)];
  return named.map((d) => problemAt(where, fieldPath(d.path), d.message));
}

/** The 400 that an apply with problems answers: its details are the problems themselves. */
export function suiteInvalid(problems: SuiteProblem[]): AppError {
  const first = problems[0]!;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
  return new AppError(
    'suite_invalid',
    400,
    `The suite has ${problems.length} problem${problems.length === 1 ? '' : 's'}: ${first.file}:${first.line}:${first.column}: ${first.field ? `${first.field}: ` : ''}${first.message}${more}`,
    problems,
  );
}

/** Problems in a stable order: by file, then line and column (as a person reads them). */
export const sortProblems = (problems: SuiteProblem[]): SuiteProblem[] =>
  [...problems].sort(
    (a, b) =>
      (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line || a.column - b.column,
  );
