import { parseArgs } from 'node:util';
import { api, CannotRun, reachOf } from './local-api.js';
import { printSummary, rowsOf, waitFor } from './run.js';

type Out = (line: string) => void;

const USAGE = 'Usage: callbench demo [--mode text|audio|both] [--json] [--key K] [--url U]';

function options(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      mode: { type: 'string' },
      json: { type: 'boolean' },
      key: { type: 'string' },
      url: { type: 'string' },
    },
  });
  const { key, url } = reachOf(values);
  const mode = values.mode ?? 'both';
  if (!['text', 'audio', 'both'].includes(mode)) throw new CannotRun(USAGE);
  return { mode: mode as 'text' | 'audio' | 'both', json: values.json, key, url };
}

/**
 * `callbench demo`: runs the built-in demo agent through the engine the CLI talks to (as `run`
 * does), waits, prints each execution's results. Exit code: 0 all passed, 1 some did not, 2
 * nothing could run.
 */
export async function demo(
  args: string[],
  out: Out,
  err: Out = (l) => console.error(l),
): Promise<number> {
  try {
    const o = options(args);
    const client = api(o.url, o.key);
    const made = await client.invoke('demo.run', { mode: o.mode });
    const workspace_id = made.workspaceId;
    err(`Demo: ${made.executionIds.length} execution(s) in workspace Demo (${workspace_id})`);
    let allPassed = true;
    const report: unknown[] = [];
    for (const id of made.executionIds) {
      const state = await waitFor(client, workspace_id, id, err);
      const rows = await rowsOf(client, workspace_id, id);
      allPassed &&= rows.length > 0 && rows.every((r) => r.status === 'completed' && r.passed);
      if (o.json) report.push({ execution: state, simulations: rows });
      else {
        out(`${state.mode === 'audio' ? 'Audio' : 'Text'} run (${id}):`);
        printSummary(rows, state, out);
      }
    }
    if (o.json) out(JSON.stringify({ ...made, executions: report }, null, 2));
    return allPassed ? 0 : 1;
  } catch (e) {
    if (e instanceof CannotRun) {
      err(`callbench demo: ${e.message}`);
      return 2;
    }
    throw e;
  }
}
