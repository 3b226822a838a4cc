import { join } from 'node:path';
import type { ApiClient } from '../client/api-client.js';
import type { OperationOutput } from '../operations/catalogue.js';
import { CannotRun, Refused, workspaceOf } from './local-api.js';
import { manifestOf, type SuiteFile } from './suite-files.js';

/*
 * What the suite commands share: the lines a plan and its problems print as, and the workspace a
 * suite goes to when no --workspace names one.
 */

type Plan = OperationOutput<'suite.plan'>['plan'];
type Workspace = OperationOutput<'workspaces.list'>['workspaces'][number];

/** A problem as the plan and a `suite_invalid` refusal list it. */
export interface Problem {
  file: string;
  line: number;
  column: number;
  field: string;
  message: string;
}

export const SUITE_USAGE = `Usage:
  callbench suite export --dir D [--workspace W] [--exclude-tag T]...
  callbench suite plan|apply --dir D [--workspace W] [--prune] [--secrets-file F]
  callbench suite run --dir D [--workspace W] [--scenario KEY]... [--exclude-tag T]... [--secrets-file F] [--junit F] [--json]
(key: --key or CALLBENCH_API_KEY; --url or CALLBENCH_URL)`;

/** `file:line:column: field: message`, the file's path as given on the command line. */
export function problemLine(dir: string, p: Problem): string {
  return `${join(dir, p.file)}:${p.line}:${p.column}: ${p.field ? `${p.field}: ` : ''}${p.message}`;
}

/** A plan entry that changes something, as one line: `update persona frank: prompt, voice.id`. */
export function entryLine(e: Plan['entries'][number]): string {
  const changes = e.action === 'update' && e.changes.length ? `: ${e.changes.join(', ')}` : '';
  return `${e.action} ${e.kind} ${e.key}${changes}`;
}

/** How many entries of each action: the closing line of a plan or an apply. */
export function countsLine(entries: Plan['entries']): string {
  const count = (action: string) => entries.filter((e) => e.action === action).length;
  return `${count('create')} to create, ${count('update')} to update, ${count('delete')} to delete, ${count('unchanged')} unchanged`;
}

/** The lines a plan prints: each entry that changes something, then each problem. */
export function planLines(dir: string, plan: Plan): string[] {
  return [
    ...plan.entries.filter((e) => e.action !== 'unchanged').map(entryLine),
    ...plan.problems.map((p) => problemLine(dir, p)),
  ];
}

/** The problems of a `suite_invalid` refusal, or null when the refusal is another one. */
export function problemsOf(err: unknown): Problem[] | null {
  if (!(err instanceof Refused) || err.code !== 'suite_invalid' || !Array.isArray(err.details))
    return null;
  return err.details as Problem[];
}

/** The workspace a suite goes to without --workspace: the one named after it, if any yet. */
export async function suiteWorkspace(
  client: ApiClient,
  name: string,
): Promise<Workspace | undefined> {
  const { workspaces } = await client.invoke('workspaces.list', {});
  return workspaces.find((w) => w.name === name);
}

/** The suite's name from callbench.yaml, which the commands need to find its workspace. */
export function suiteNameOf(files: SuiteFile[], dir: string): string {
  const { name } = manifestOf(files);
  if (!name)
    throw new CannotRun(
      `${join(dir, 'callbench.yaml')} has no readable name: give --workspace W, or fix the file (suite plan --workspace W lists its problems)`,
    );
  return name;
}

/**
 * The workspace named after the suite; `create` makes it when there is none (apply and run do,
 * plan does not: it writes nothing).
 */
export async function namedWorkspace(
  client: ApiClient,
  name: string,
  create: boolean,
): Promise<Workspace> {
  const found = await suiteWorkspace(client, name);
  if (found) return found;
  if (!create)
    throw new CannotRun(
      `No workspace named "${name}" yet: \`callbench suite apply\` creates it, or plan against another with --workspace W`,
    );
  return (await client.invoke('workspaces.create', { name })).workspace;
}

/**
 * --workspace W: a workspace id is taken as it is, without listing the workspaces, which a
 * workspace access token may not do (it reaches its own workspace's paths only); a name is looked up.
 */
export async function givenWorkspace(
  client: ApiClient,
  ref: string,
): Promise<Pick<Workspace, 'id' | 'name'>> {
  return /^ws_\S+$/.test(ref) ? { id: ref, name: ref } : workspaceOf(client, ref);
}
