import { z } from 'zod';
import { invalidField } from '../../errors.js';
import { KIND_SPECS } from './kinds.js';
import { SUITE_KINDS, type FileObject, type SuiteKind } from './file-common.js';
import { ManifestSchema, type Manifest } from './manifest.js';
import { checkAgainst, problemAt, wholeFile, type SuiteProblem } from './problems.js';
import { YamlSource } from './yaml-source.js';

/**
 * A suite's files as the plan reads them (#38): each path sorted into what it is (callbench.yaml,
 * a resource file of a kind, a scenario's cases CSV), each YAML file parsed with its positions and
 * checked against its kind's strict file schema. Everything found is a problem with its place;
 * nothing here reads the store.
 */

/** The most files one suite may hold, and the most bytes of one file. */
export const MAX_SUITE_FILES = 10_000;
export const MAX_FILE_BYTES = 1024 * 1024;
/** The most bytes of a plan or apply request's body (the files, JSON-encoded). */
export const SUITE_BODY_LIMIT = 32 * 1024 * 1024;

export const SuiteFile = z.strictObject({
  path: z
    .string()
    .min(1)
    .max(1_000)
    .describe('The path inside the suite folder (`personas/x.yaml`)'),
  content: z.string().describe("The file's text (UTF-8, at most 1 MiB)"),
});
export type SuiteFile = z.infer<typeof SuiteFile>;

export const SuiteFiles = z
  .array(SuiteFile)
  .max(MAX_SUITE_FILES, `a suite holds at most ${MAX_SUITE_FILES} files`);

/** A resource file's kind and key, whether or not the rest of it is valid. */
export interface Keyed {
  kind: SuiteKind;
  path: string;
  source: YamlSource;
  key: string;
}

/** A resource file whose value its kind's schema accepted. */
export interface ResourceFile {
  kind: SuiteKind;
  path: string;
  source: YamlSource;
  key: string;
  data: FileObject;
}

export interface ParsedSuite {
  manifest: { path: string; source: YamlSource; data: Manifest } | null;
  resources: ResourceFile[];
  /** Every key a file of the kind defines, valid or not (a bad file's key is still defined). */
  definedKeys: Map<SuiteKind, Set<string>>;
  /** Every file with a key, valid or not: two with one key are a problem either way. */
  keyed: Keyed[];
  /** The CSV files beside the scenarios, by path. */
  csv: Map<string, string>;
  problems: SuiteProblem[];
}

const MANIFEST = 'callbench.yaml';
const KIND_OF_DIR = new Map(SUITE_KINDS.map((kind) => [KIND_SPECS[kind].dir, kind]));

/** Refuses a suite past the limits with a 400 naming the limit (the files are not read). */
export function assertWithinLimits(files: SuiteFile[]): void {
  const index = files.findIndex((f) => Buffer.byteLength(f.content, 'utf8') > MAX_FILE_BYTES);
  if (index >= 0)
    throw invalidField(
      `files[${index}].content`,
      `${files[index]!.path} is larger than 1 MiB: a suite file holds at most ${MAX_FILE_BYTES} bytes`,
    );
}

type Sorted =
  | { what: 'manifest' }
  | { what: 'resource'; kind: SuiteKind }
  | { what: 'csv' }
  | { what: 'ignored' }
  | { what: 'unknown'; message: string };

/** What a path is in a suite folder. */
function sortPath(path: string): Sorted {
  if (path.startsWith('/') || path.split('/').some((p) => p === '..' || p === '.' || p === ''))
    return { what: 'unknown', message: 'must be a relative path inside the suite folder' };
  if (path === MANIFEST) return { what: 'manifest' };
  if (path.startsWith('.callbench/')) return { what: 'ignored' };
  const [dir, name, ...deeper] = path.split('/');
  const kind = KIND_OF_DIR.get(dir!);
  if (kind && name && !deeper.length) {
    if (name.endsWith('.yaml')) return { what: 'resource', kind };
    if (kind === 'scenario' && name.endsWith('.csv')) return { what: 'csv' };
  }
  return {
    what: 'unknown',
    message: `is not a suite file (${MANIFEST}, <kind folder>/<key>.yaml or scenarios/<key>.cases.csv)`,
  };
}

/** Reads every file of the suite; see the module's comment. */
export function parseSuite(files: SuiteFile[]): ParsedSuite {
  const out: ParsedSuite = {
    manifest: null,
    resources: [],
    definedKeys: new Map(SUITE_KINDS.map((k) => [k, new Set<string>()])),
    keyed: [],
    csv: new Map(),
    problems: [],
  };
  const seen = new Set<string>();
  for (const file of files) {
    if (seen.has(file.path)) {
      out.problems.push(problemAt(wholeFile(file.path), [], 'is sent twice'));
      continue;
    }
    seen.add(file.path);
    readFile(file, sortPath(file.path), out);
  }
  if (!seen.has(MANIFEST))
    out.problems.push(
      problemAt(wholeFile(MANIFEST), [], 'is missing: a suite names itself and its agents there'),
    );
  return out;
}

function readFile(file: SuiteFile, sorted: Sorted, out: ParsedSuite): void {
  switch (sorted.what) {
    case 'ignored':
      return;
    case 'unknown':
      out.problems.push(problemAt(wholeFile(file.path), [], sorted.message));
      return;
    case 'csv':
      out.csv.set(file.path, file.content);
      return;
    case 'manifest': {
      const source = new YamlSource(file.path, file.content);
      out.problems.push(...source.problems);
      if (source.problems.length) return;
      const checked = checkAgainst(source, ManifestSchema, source.value);
      out.problems.push(...checked.problems);
      if (checked.data) out.manifest = { path: file.path, source, data: checked.data };
      return;
    }
    case 'resource':
      readResource(file, sorted.kind, out);
  }
}

function readResource(file: SuiteFile, kind: SuiteKind, out: ParsedSuite): void {
  const source = new YamlSource(file.path, file.content);
  out.problems.push(...source.problems);
  if (source.problems.length) return;
  const raw = source.value;
  const rawKey =
    typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>).key : undefined;
  if (typeof rawKey === 'string') {
    out.definedKeys.get(kind)!.add(rawKey);
    out.keyed.push({ kind, path: file.path, source, key: rawKey });
  }
  const checked = checkAgainst(source, KIND_SPECS[kind].fileSchema, raw);
  out.problems.push(...checked.problems);
  if (checked.data)
    out.resources.push({
      kind,
      path: file.path,
      source,
      key: (checked.data as FileObject).key as string,
      data: checked.data,
    });
}

/** Two files of one kind with one key: a problem at each of their `key` fields. */
export function duplicateKeys(resources: Keyed[]): SuiteProblem[] {
  const byKey = new Map<string, Keyed[]>();
  for (const r of resources) {
    const id = `${r.kind}:${r.key}`;
    byKey.set(id, [...(byKey.get(id) ?? []), r]);
  }
  const problems: SuiteProblem[] = [];
  for (const group of byKey.values()) {
    if (group.length < 2) continue;
    for (const r of group) {
      const others = group.filter((o) => o !== r).map((o) => o.path);
      problems.push(
        problemAt(
          r.source,
          ['key'],
          `the ${r.kind} key '${r.key}' is also defined by ${others.join(', ')}`,
        ),
      );
    }
  }
  return problems;
}
