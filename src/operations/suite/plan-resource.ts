import { readCasesCsv } from './cases-csv.js';
import { changedPaths } from './diff.js';
import { inputFields, KIND_SPECS, readPath, type FileObject, type RefKind } from './kinds.js';
import type { ParsedSuite, ResourceFile } from './parse.js';
import type { ResourceStep } from './plan-types.js';
import { problemAt, type SuiteProblem } from './problems.js';
import { readSecretFields, secretChange } from './secrets.js';
import type { StoredResource, StoredSuite } from './stored.js';
import { fieldPath } from './field-paths.js';

/**
 * One resource file's part of a plan (#38): its references, secrets and cases checked, then
 * matched by key with what the workspace holds and compared field by field.
 */

export interface PlanScope {
  parsed: ParsedSuite;
  stored: StoredSuite;
  /** The plan's `secrets`: placeholder values. */
  values: Readonly<Record<string, string>>;
  /** Whether a key of the kind is defined: by a file, by the workspace (unless pruned), or in callbench.yaml (agents). */
  known(kind: RefKind, key: string): boolean;
  /** The key of a stored agent (callbench.yaml's), for comparing a stored resource's references. */
  agentKeyOf(id: string): string | undefined;
}

const KIND_WORDS: Record<RefKind, string> = {
  persona: 'persona',
  scorecard: 'scorecard',
  scenario: 'scenario',
  schedule: 'schedule',
  tool: 'tool',
  alert: 'alert',
  agent: 'agent in callbench.yaml',
};

/** Every key a file names must be defined somewhere: a problem at each that is not. */
function referenceProblems(scope: PlanScope, file: ResourceFile): SuiteProblem[] {
  const problems: SuiteProblem[] = [];
  for (const ref of KIND_SPECS[file.kind].references) {
    const value = readPath(file.data, ref.path);
    const keys: [string, (string | number)[]][] =
      ref.many && Array.isArray(value)
        ? value.map((v, i) => [String(v), [...fieldPath(ref.path), i]])
        : typeof value === 'string'
          ? [[value, fieldPath(ref.path)]]
          : [];
    for (const [key, path] of keys)
      if (!scope.known(ref.kind, key))
        problems.push(
          problemAt(
            file.source,
            path,
            `no ${KIND_WORDS[ref.kind]} has the key '${key}'${ref.kind === 'agent' ? '' : ' (in the files or the workspace)'}`,
          ),
        );
  }
  return problems;
}

type Cases = { variables: Record<string, string> }[];

/** A scenario's cases: its CSV read (columns must be variables), or its inline list checked. */
function readCases(
  scope: PlanScope,
  file: ResourceFile,
): { rows?: Cases; problems: SuiteProblem[] } {
  const cases = file.data.cases;
  const declared = ((file.data.promptVariables as { name: string }[] | undefined) ?? []).map(
    (v) => v.name,
  );
  const notVariable = (name: string) =>
    `${name} is not a variable of this scenario (promptVariables: ${declared.join(', ') || 'none'})`;
  if (Array.isArray(cases))
    return {
      problems: (cases as Cases).flatMap((c, i) =>
        Object.keys(c.variables)
          .filter((name) => !declared.includes(name))
          .map((name) =>
            problemAt(file.source, ['cases', i, 'variables', name], notVariable(name), {
              onKey: true,
            }),
          ),
      ),
    };
  if (typeof cases !== 'string') return { problems: [] };
  const csvPath = `${file.path.slice(0, file.path.lastIndexOf('/') + 1)}${cases}`;
  const text = scope.parsed.csv.get(csvPath);
  if (text === undefined)
    return {
      problems: [problemAt(file.source, ['cases'], `there is no file ${csvPath} in the suite`)],
    };
  const read = readCasesCsv(text);
  const at = (line: number, column: number, field: string, message: string): SuiteProblem => ({
    file: csvPath,
    line,
    column,
    field,
    message,
  });
  const problems = [
    ...read.problems.map((p) => at(p.line, p.column, '', p.message)),
    ...read.columns
      .filter((c) => c.name && !declared.includes(c.name))
      .map((c) => at(c.line, c.column, c.name, notVariable(c.name))),
  ];
  if (read.rows.length > 1_000)
    problems.push(at(read.rows[1_000]!.line, 1, '', 'a scenario holds at most 1000 cases'));
  return { rows: read.rows.map((r) => ({ variables: r.variables })), problems };
}

/** The changed fields of a matched resource, its secrets compared with the plan's values apart. */
function changesOf(
  scope: PlanScope,
  step: Omit<ResourceStep, 'entry'>,
  stored: StoredResource,
): string[] {
  const spec = KIND_SPECS[step.kind];
  const keyOf = (kind: RefKind, id: string) =>
    (kind === 'agent' ? scope.agentKeyOf(id) : scope.stored.keyOf(kind, id)) ?? id;
  const raw = spec.toFile(stored.resource as never, { keyOf });
  // The stored side passes the same schema as the file: defaults and canonical forms alike.
  const normalized = spec.fileSchema.safeParse(raw);
  let before = (normalized.success ? normalized.data : raw) as FileObject;
  let after = step.file.data;
  if (step.kind === 'scenario') {
    before = { ...before, cases: stored.resource.cases ?? null };
    after = step.csvCases ? { ...after, cases: step.csvCases } : after;
  }
  const secretPaths = new Set(spec.secretPaths(raw));
  for (const field of step.secretFields)
    if (secretPaths.has(field.path)) {
      before = maskAt(before, field.path);
      after = maskAt(after, field.path);
    }
  // `$schema` and `key` are the file's, not the resource's: a key is matched, never changed.
  const changes = changedPaths(inputFields(before), inputFields(after));
  for (const field of step.secretFields)
    if (
      secretPaths.has(field.path) &&
      secretChange(field, scope.values, stored.secrets.get(field.path)) === 'changed'
    )
      changes.push(field.path);
  return changes;
}

/** The object with the value at a dotted path blanked (secrets are compared apart). */
function maskAt(object: FileObject, path: string): FileObject {
  const [head, ...rest] = path.split('.');
  const child = object[head!];
  if (!rest.length) return { ...object, [head!]: '' };
  if (typeof child !== 'object' || child === null) return object;
  return { ...object, [head!]: maskAt(child as FileObject, rest.join('.')) };
}

/** One resource file planned: its step and the problems found in it. */
export function planResource(
  scope: PlanScope,
  file: ResourceFile,
): { step: ResourceStep; problems: SuiteProblem[] } {
  const spec = KIND_SPECS[file.kind];
  const stored = scope.stored.find(file.kind, file.key);
  const secrets = readSecretFields(file.source, file.data, spec.secretPaths(file.data));
  const cases = file.kind === 'scenario' ? readCases(scope, file) : { problems: [] };
  const problems = [...referenceProblems(scope, file), ...secrets.problems, ...cases.problems];
  for (const field of secrets.fields)
    if (secretChange(field, scope.values, stored?.secrets.get(field.path)) === 'missing')
      problems.push(
        problemAt(
          file.source,
          fieldPath(field.path),
          `no value for the secret ${field.name}: send it in the plan's secrets`,
        ),
      );
  const partial = {
    kind: file.kind,
    file,
    stored,
    secretFields: secrets.fields,
    ...('rows' in cases && cases.rows ? { csvCases: cases.rows } : {}),
  };
  const changes = stored ? changesOf(scope, partial, stored) : [];
  const action = !stored ? 'create' : changes.length ? 'update' : 'unchanged';
  const name = typeof file.data.name === 'string' ? file.data.name : file.key;
  return {
    step: {
      ...partial,
      entry: { kind: file.kind, key: file.key, name, file: file.path, action, changes },
    },
    problems,
  };
}
