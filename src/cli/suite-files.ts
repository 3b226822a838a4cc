import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { MANIFEST_FILE, SCHEMAS_DIR, SUITE_DIRS } from '../operations/suite/kinds.js';
import { CannotRun } from './local-api.js';

/*
 * A suite folder on disk as the `suite` commands see it: the files sent to plan and apply, the
 * suite's name and the placeholder values they take, and the export written back with what it no
 * longer holds removed (suite files only: nothing else in the folder is ever touched).
 */

export interface SuiteFile {
  path: string;
  content: string;
}

const MANIFEST = MANIFEST_FILE;
const SCHEMAS = SCHEMAS_DIR;
/** The resource folders (`personas`...), in the kinds' order. */
const FOLDERS: readonly string[] = Object.values(SUITE_DIRS);
/** What the suite's resource folders hold: YAML files and scenarios' cases CSV files. */
const SUITE_FILE = /\.(ya?ml|csv)$/;

/** A folder's files (not its subfolders), sorted; none when it does not exist. */
function filesIn(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name)
    .sort();
}

/** callbench.yaml and each YAML or CSV file of the resource folders, paths relative with `/`. */
export function readSuite(dir: string): SuiteFile[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new CannotRun(`No suite folder at ${dir}`);
  if (!existsSync(join(dir, MANIFEST)))
    throw new CannotRun(`No ${MANIFEST} in ${dir}: a suite folder starts with it`);
  const paths = [
    MANIFEST,
    ...FOLDERS.flatMap((folder) =>
      filesIn(join(dir, folder))
        .filter((name) => SUITE_FILE.test(name))
        .map((name) => `${folder}/${name}`),
    ),
  ];
  return paths.map((path) => ({ path, content: readFileSync(join(dir, path), 'utf8') }));
}

/** What the commands read of callbench.yaml themselves: the suite's name and declared secrets. */
export function manifestOf(files: SuiteFile[]): { name: string | null; secrets: string[] } {
  const text = files.find((f) => f.path === MANIFEST)?.content ?? '';
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch {
    // The engine's plan reports it with its position; the name is then unknown here.
    return { name: null, secrets: [] };
  }
  const manifest = (doc && typeof doc === 'object' ? doc : {}) as Record<string, unknown>;
  const name = typeof manifest.name === 'string' && manifest.name.trim() ? manifest.name : null;
  const secrets = Array.isArray(manifest.secrets)
    ? manifest.secrets.filter((s): s is string => typeof s === 'string')
    : [];
  return { name, secrets };
}

/** Every name the suite asks a value for: callbench.yaml's `secrets` and each `${secret:NAME}`. */
export function secretNames(files: SuiteFile[]): string[] {
  const names = new Set(manifestOf(files).secrets);
  for (const file of files)
    for (const match of file.content.matchAll(/\$\{secret:([^}\s]+)\}/g)) names.add(match[1]!);
  return [...names].sort();
}

/**
 * A secrets file: `NAME=value` lines, `#` comment and blank lines skipped; a value in matching
 * single or double quotes loses them. A line that is none of these is refused with its number.
 */
export function parseSecretsFile(text: string, file: string): Map<string, string> {
  const values = new Map<string, string>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)\s*=(.*)$/.exec(line);
    if (!match)
      throw new CannotRun(`${file}:${index + 1}: expected NAME=value, got "${line.slice(0, 40)}"`);
    const value = match[2]!.trim();
    const quoted = /^(["'])(.*)\1$/.exec(value);
    values.set(match[1]!, quoted ? quoted[2]! : value);
  });
  return values;
}

/**
 * The placeholder values to send: from the secrets file when one is given, else from this
 * process's environment; only for the names the suite uses. A CALLBENCH_ variable of the
 * environment is never sent (the engine refuses such a name, and the API key is one of them).
 */
export function secretValues(
  files: SuiteFile[],
  secretsFile: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  let source: (name: string) => string | undefined;
  if (secretsFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(secretsFile, 'utf8');
    } catch (err) {
      throw new CannotRun(`Cannot read the secrets file ${secretsFile} (${errorCode(err)})`);
    }
    const values = parseSecretsFile(text, secretsFile);
    source = (name) => values.get(name);
  } else source = (name) => (name.startsWith('CALLBENCH_') ? undefined : env[name]);
  const answer: Record<string, string> = {};
  for (const name of secretNames(files)) {
    const value = source(name);
    if (value !== undefined) answer[name] = value;
  }
  return answer;
}

const errorCode = (err: unknown): string =>
  (err as NodeJS.ErrnoException).code ?? (err as Error).message;

/** Whether an exported path is one a suite has: callbench.yaml, a resource file or a schema. */
function isSuitePath(path: string): boolean {
  if (path === MANIFEST) return true;
  const parts = path.split('/');
  if (parts.some((p) => p === '' || p === '.' || p === '..' || p.includes('\\'))) return false;
  if (parts.length === 2) return FOLDERS.includes(parts[0]!) && SUITE_FILE.test(parts[1]!);
  return parts.length === 3 && `${parts[0]}/${parts[1]}` === SCHEMAS && parts[2]!.endsWith('.json');
}

/** The suite files already in the folder: what an export may replace or remove. */
function existingSuiteFiles(dir: string): string[] {
  return [
    ...(existsSync(join(dir, MANIFEST)) ? [MANIFEST] : []),
    ...[...FOLDERS, SCHEMAS].flatMap((folder) =>
      filesIn(join(dir, folder)).map((name) => `${folder}/${name}`),
    ),
  ].filter(isSuitePath);
}

/**
 * Writes an export into `dir` (a file whose content is the same is left as it is) and removes the
 * suite files there that the export does not hold: a resource deleted in the app leaves git.
 * Answers what changed, paths relative to `dir`.
 */
export function writeSuite(
  dir: string,
  files: SuiteFile[],
): { written: string[]; removed: string[] } {
  const refused = files.find((f) => !isSuitePath(f.path));
  if (refused) throw new CannotRun(`The export holds a path outside a suite: ${refused.path}`);
  const written: string[] = [];
  for (const file of files) {
    const target = join(dir, file.path);
    if (existsSync(target) && readFileSync(target, 'utf8') === file.content) continue;
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.content);
    written.push(file.path);
  }
  const kept = new Set(files.map((f) => f.path));
  const removed = existingSuiteFiles(dir).filter((path) => !kept.has(path));
  for (const path of removed) unlinkSync(join(dir, path));
  return { written, removed };
}
