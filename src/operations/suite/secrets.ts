import { placeholderName, readPath, type FileObject } from './kinds.js';
import { problemAt, type Locator, type SuiteProblem } from './problems.js';
import { fieldPath, type PathSegment } from './field-paths.js';

/**
 * The secrets of a suite's files (#38): a secret field holds a `${secret:NAME}` placeholder whose
 * value comes from the plan's `secrets`, and never from the engine's environment. What a plan
 * finds: a secret in clear, a placeholder outside a secret field, a reserved `CALLBENCH_` name, and
 * (for a resource being created) a placeholder with no value. A value equal to the stored secret
 * changes nothing; another one is an update of that field.
 */

/** Names the engine's own settings use: never a suite's, even with a value. */
const RESERVED = /^CALLBENCH_/i;
const ANY_PLACEHOLDER = /\$\{secret:/;

/** One secret field of a file: its path and the placeholder's name. */
export interface SecretField {
  path: string;
  name: string;
}

/** Every string in a value with its path, for finding placeholders where no secret belongs. */
function strings(value: unknown, path: PathSegment[], out: [PathSegment[], string][]): void {
  if (typeof value === 'string') out.push([path, value]);
  else if (Array.isArray(value)) value.forEach((v, i) => strings(v, [...path, i], out));
  else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) strings(v, [...path, k], out);
}

/**
 * The secret fields of a file and the problems of its placeholders. `secretPaths` are the kind's
 * secret fields present in the file; `values` the plan's secrets.
 */
export function readSecretFields(
  where: Locator,
  file: FileObject,
  secretPaths: string[],
): { fields: SecretField[]; problems: SuiteProblem[] } {
  const fields: SecretField[] = [];
  const problems: SuiteProblem[] = [];
  const secret = new Set(secretPaths);
  for (const path of secretPaths) {
    const name = placeholderName(readPath(file, path));
    if (name === null)
      problems.push(
        problemAt(
          where,
          fieldPath(path),
          "is a secret in clear: write a ${secret:NAME} placeholder and send its value in the plan's secrets",
        ),
      );
    else if (RESERVED.test(name))
      problems.push(
        problemAt(
          where,
          fieldPath(path),
          `${name}: a CALLBENCH_ name is the engine's own, never a suite secret`,
        ),
      );
    else fields.push({ path, name });
  }
  const found: [PathSegment[], string][] = [];
  strings(file, [], found);
  for (const [path, text] of found) {
    if (!ANY_PLACEHOLDER.test(text) || secret.has(path.join('.'))) continue;
    problems.push(
      problemAt(where, path, 'a ${secret:...} placeholder is allowed only in a secret field'),
    );
  }
  return { fields, problems };
}

/** What a plan does with one secret field of a resource it matched (or creates: `stored` absent). */
export function secretChange(
  field: SecretField,
  values: Readonly<Record<string, string>>,
  stored: string | undefined,
): 'unchanged' | 'changed' | 'missing' {
  const value = Object.hasOwn(values, field.name) ? values[field.name] : undefined;
  if (value === undefined) return stored === undefined ? 'missing' : 'unchanged';
  return value === stored ? 'unchanged' : 'changed';
}
