/**
 * A suite folder as files and back, in the page alone: what a folder picked with
 * `<input webkitdirectory>` holds (read as text, paths relative to the folder), the secret
 * placeholders the files name, and an export written into a folder (the File System Access API,
 * where the platform has it) or into a .zip download. The engine parses and checks everything:
 * the page only carries the text.
 */
import { strToU8, zipSync, type Zippable } from 'fflate';

export interface SuiteFile {
  path: string;
  content: string;
}

/** The folders an export writes one file per resource into (the layout). */
export const SUITE_DIRS = ['personas', 'scorecards', 'scenarios', 'schedules', 'tools', 'alerts'];

/** A placeholder in a secret field: `${secret:NAME}`. */
const PLACEHOLDER = /\$\{secret:([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * The path inside the picked folder: a folder input names each file from the folder itself
 * (`my-suite/personas/frank.yaml`), the suite's paths start below it.
 */
export function suitePath(relative: string): string {
  const parts = relative.split('/').filter(Boolean);
  return parts.slice(1).join('/');
}

/**
 * Whether a file of the picked folder is part of the suite: YAML and CSV, outside hidden folders
 * (`.git`, and `.callbench/schemas`, which the engine publishes and never reads back).
 */
export function isSuiteFile(path: string): boolean {
  if (!path || path.split('/').some((part) => part.startsWith('.'))) return false;
  return /\.(ya?ml|csv)$/i.test(path);
}

/** The suite files of a picked folder, as text, in path order (stable plans, stable requests). */
export async function readSuiteFolder(files: Iterable<File>): Promise<SuiteFile[]> {
  const picked = [...files]
    .map((file) => ({ file, path: suitePath(file.webkitRelativePath || file.name) }))
    .filter(({ path }) => isSuiteFile(path))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return Promise.all(picked.map(async ({ file, path }) => ({ path, content: await file.text() })));
}

/** The placeholder names the files use, each once, sorted: the secrets form asks for these. */
export function placeholderNames(files: readonly SuiteFile[]): string[] {
  const names = new Set<string>();
  for (const { content } of files)
    for (const [, name] of content.matchAll(PLACEHOLDER)) if (name) names.add(name);
  return [...names].sort();
}

/** The exported files as one .zip (stored paths as the export names them, fixed dates: stable). */
export function zipSuite(files: readonly SuiteFile[]): Uint8Array {
  const tree: Zippable = {};
  for (const { path, content } of files)
    tree[path] = [strToU8(content), { mtime: new Date('2000-01-01T00:00:00Z') }];
  return zipSync(tree, { level: 6 });
}

/** Hands the bytes to the browser as a download named `name`. */
export function download(bytes: Uint8Array, name: string, type: string): void {
  const url = URL.createObjectURL(new Blob([bytes as BlobPart], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has started from the URL by now; the blob is not needed after.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** A file name from a workspace's name: `Support team` → `support-team-suite.zip`. */
export function zipName(workspaceName: string): string {
  const slug = workspaceName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `${slug || 'callbench'}-suite.zip`;
}
