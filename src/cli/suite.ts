import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { ApiClient } from '../client/api-client.js';
import { api, CannotRun, reachOf, workspaceOf } from './local-api.js';
import { manifestOf, readSuite, secretValues, writeSuite, type SuiteFile } from './suite-files.js';
import {
  countsLine,
  givenWorkspace,
  namedWorkspace,
  planLines,
  problemLine,
  problemsOf,
  SUITE_USAGE,
  suiteNameOf,
  suiteWorkspace,
} from './suite-report.js';

/*
 * `callbench suite export|plan|apply|run`: a workspace's suite as files in a folder, through the
 * running app's or server's API (as `run`). Exit codes: 0 done, 1 the plan has problems, 2 it
 * could not run (no engine, a refusal, a bad option).
 */

type Out = (line: string) => void;

/** The options every suite command takes. */
const COMMON = {
  dir: { type: 'string' },
  workspace: { type: 'string' },
  key: { type: 'string' },
  url: { type: 'string' },
} as const;

async function exportSuite(args: string[], out: Out): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { ...COMMON, 'exclude-tag': { type: 'string', multiple: true } },
  });
  if (!values.dir) throw new CannotRun(SUITE_USAGE);
  const { key, url } = reachOf(values);
  const client = api(url, key);
  const workspace = await exportedWorkspace(client, values.dir, values.workspace);
  const { files } = await client.invoke('suite.export', {
    workspace_id: workspace.id,
    ...(values['exclude-tag']?.length ? { excludeTags: values['exclude-tag'] } : {}),
  });
  const { written, removed } = writeSuite(values.dir, files);
  for (const path of written) out(`wrote ${join(values.dir, path)}`);
  for (const path of removed) out(`removed ${join(values.dir, path)}`);
  out(
    `Exported workspace "${workspace.name}" to ${values.dir}: ${files.length} files, ${written.length} written, ${removed.length} removed`,
  );
  return 0;
}

/** --workspace, else the workspace of the suite already in the folder, else the first. */
async function exportedWorkspace(client: ApiClient, dir: string, ref: string | undefined) {
  if (ref) return givenWorkspace(client, ref);
  let files: SuiteFile[] = [];
  try {
    files = readSuite(dir);
  } catch {
    // No suite there yet: the first workspace, as `run` takes it.
  }
  const name = manifestOf(files).name;
  return (name ? await suiteWorkspace(client, name) : undefined) ?? workspaceOf(client, undefined);
}

/** `suite plan` and `suite apply`. */
async function planOrApply(command: 'plan' | 'apply', args: string[], out: Out): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { ...COMMON, prune: { type: 'boolean' }, 'secrets-file': { type: 'string' } },
  });
  if (!values.dir) throw new CannotRun(SUITE_USAGE);
  const { key, url } = reachOf(values);
  const files = readSuite(values.dir);
  const secrets = secretValues(files, values['secrets-file']);
  const client = api(url, key);
  const workspace = values.workspace
    ? await givenWorkspace(client, values.workspace)
    : await namedWorkspace(client, suiteNameOf(files, values.dir), command === 'apply');
  const body = { workspace_id: workspace.id, files, secrets, prune: values.prune ?? false };
  try {
    const { plan } =
      command === 'plan'
        ? await client.invoke('suite.plan', body)
        : await client.invoke('suite.apply', body);
    for (const line of planLines(values.dir, plan)) out(line);
    const verb = command === 'plan' ? 'Plan for' : 'Applied to';
    out(`${verb} workspace "${workspace.name}": ${countsLine(plan.entries)}`);
    return plan.valid ? 0 : 1;
  } catch (err) {
    const problems = problemsOf(err);
    if (!problems) throw err;
    for (const p of problems) out(problemLine(values.dir, p));
    out(`Nothing applied: ${problems.length} problem(s)`);
    return 1;
  }
}

/**
 * `callbench suite <export|plan|apply|run> ...`: exit 0 done, 1 problems (or, run, a failed
 * simulation), 2 could not run.
 */
export async function suite(
  args: string[],
  out: Out,
  err: Out = (l) => console.error(l),
): Promise<number> {
  const [sub, ...rest] = args;
  try {
    switch (sub) {
      case 'export':
        return await exportSuite(rest, out);
      case 'plan':
      case 'apply':
        return await planOrApply(sub, rest, out);
      case 'run':
        return await (await import('./suite-run.js')).suiteRun(rest, out, err);
      default:
        throw new CannotRun(SUITE_USAGE);
    }
  } catch (e) {
    // A misspelt option (node:util's parseArgs) is a usage error too: nothing ran.
    if (
      e instanceof CannotRun ||
      String((e as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')
    ) {
      err(`callbench suite${sub ? ` ${sub}` : ''}: ${(e as Error).message}`);
      return 2;
    }
    throw e;
  }
}
