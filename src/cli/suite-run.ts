import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import type { ApiClient } from '../client/api-client.js';
import type { OperationOutput } from '../operations/catalogue.js';
import { junitReport, type JunitSuite } from './junit.js';
import { api, CannotRun, reachOf } from './local-api.js';
import { junitCaseOf, printSummary, rowsOf, waitFor, type Row } from './run.js';
import {
  countsLine,
  givenWorkspace,
  namedWorkspace,
  planLines,
  problemLine,
  problemsOf,
  SUITE_USAGE,
  suiteNameOf,
} from './suite-report.js';
import { readSuite, secretValues } from './suite-files.js';

/*
 * `callbench suite run --dir D` (also `callbench run --suite D`): the suite applied to its own
 * workspace (created the first time, then updated in place so that history accumulates there),
 * then every scenario it defines executed, one execution per case row, and waited for.
 */

type Out = (line: string) => void;
type Scenario = OperationOutput<'scenarios.list'>['scenarios'][number];
type Execution = OperationOutput<'executions.get'>['execution'];

/** One execution of a scenario: its case row's variables (none without cases) and outcome. */
interface CaseRun {
  variables: Record<string, string> | undefined;
  state: Execution;
  rows: Row[];
}

interface ScenarioRun {
  scenario: Scenario;
  runs: CaseRun[];
}

function options(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      dir: { type: 'string' },
      suite: { type: 'string' },
      workspace: { type: 'string' },
      scenario: { type: 'string', multiple: true },
      'exclude-tag': { type: 'string', multiple: true },
      'secrets-file': { type: 'string' },
      junit: { type: 'string' },
      json: { type: 'boolean' },
      key: { type: 'string' },
      url: { type: 'string' },
    },
  });
  const dir = values.dir ?? values.suite;
  if (!dir) throw new CannotRun(SUITE_USAGE);
  return { ...values, dir, ...reachOf(values) };
}

/** Every scenario of the workspace, page by page. */
async function allScenarios(client: ApiClient, workspace_id: string): Promise<Scenario[]> {
  const scenarios: Scenario[] = [];
  for (let offset = 0; ; offset += 100) {
    const page = await client.invoke('scenarios.list', {
      workspace_id,
      limit: 100,
      offset,
      sortBy: 'createdAt',
      sortOrder: 'asc',
    });
    scenarios.push(...page.scenarios);
    if (!page.pagination.has_more) return scenarios;
  }
}

/**
 * The suite's scenarios to execute, in the plan's order: those named by --scenario (each must be
 * one of the suite's), less those carrying an excluded tag.
 */
function selected(
  keys: string[],
  stored: Scenario[],
  o: { scenario?: string[]; 'exclude-tag'?: string[] },
): Scenario[] {
  const unknown = (o.scenario ?? []).filter((key) => !keys.includes(key));
  if (unknown.length)
    throw new CannotRun(`The suite defines no scenario ${unknown.join(', ')} (--scenario)`);
  const byKey = new Map(stored.map((s) => [s.key, s]));
  const excluded = new Set(o['exclude-tag'] ?? []);
  return keys
    .filter((key) => !o.scenario?.length || o.scenario.includes(key))
    .map((key) => byKey.get(key))
    .filter((s): s is Scenario => s !== undefined && !s.tags.some((t) => excluded.has(t)));
}

/** A scenario's executions once started: one per case row, one without cases. */
interface Started {
  scenario: Scenario;
  executions: { variables: Record<string, string> | undefined; id: string }[];
}

/** Starts one execution per case row (one without cases), each with its row's variables. */
async function start(
  client: ApiClient,
  workspace_id: string,
  scenario: Scenario,
  err: Out,
): Promise<Started> {
  const rows = scenario.cases?.length ? scenario.cases.map((c) => c.variables) : [undefined];
  const executions: Started['executions'] = [];
  for (const [i, variables] of rows.entries()) {
    const { execution } = await client.invoke('scenarios.execute', {
      workspace_id,
      scenario_id: scenario.id,
      ...(variables ? { variables } : {}),
    });
    const which = variables ? ` (case ${i + 1} of ${rows.length})` : '';
    err(
      `Execution ${execution.id}: ${execution.simulations_created} simulation(s) of "${scenario.name}"${which}`,
    );
    executions.push({ variables, id: execution.id });
  }
  return { scenario, executions };
}

/** Waits for each of a scenario's executions to end, then reads its simulations. */
async function finish(client: ApiClient, workspace_id: string, started: Started, err: Out) {
  const runs: CaseRun[] = [];
  for (const { variables, id } of started.executions) {
    const state = await waitFor(client, workspace_id, id, err);
    runs.push({ variables, state, rows: await rowsOf(client, workspace_id, id) });
  }
  return { scenario: started.scenario, runs };
}

const passed = (r: Row) => r.status === 'completed' && r.passed !== false;

/** `who=Sam, order=42`: a case row as the summary and JUnit name it. */
const caseLabel = (variables: Record<string, string>): string =>
  Object.entries(variables)
    .map(([name, value]) => `${name}=${value}`)
    .join(', ');

/** One `<testsuite>` per scenario, one `<testcase>` per simulation (its case row in the name). */
export function scenarioJunit(run: ScenarioRun, host: string): JunitSuite {
  const many = run.runs.length > 1;
  return {
    scenario: run.scenario.name,
    timestamp: run.runs[0]?.state.created_at ?? new Date().toISOString(),
    hostname: host,
    cases: run.runs.flatMap((c, caseIndex) =>
      c.rows.map((r, i) => {
        const which = many ? `case ${caseIndex + 1}: ` : '';
        return junitCaseOf(r, `${which}${r.persona} x ${r.agent} #${i + 1}`);
      }),
    ),
  };
}

function report(
  runs: ScenarioRun[],
  o: { json?: boolean; junit?: string },
  context: { workspace: { id: string; name: string }; out: Out },
): number {
  const { out } = context;
  const allRows = runs.flatMap((r) => r.runs.flatMap((c) => c.rows));
  const ok = allRows.length > 0 && allRows.every(passed);
  if (o.json)
    out(
      JSON.stringify(
        {
          workspace: context.workspace,
          passed: ok,
          scenarios: runs.map((r) => ({
            key: r.scenario.key,
            name: r.scenario.name,
            executions: r.runs.map((c) => ({
              variables: c.variables ?? {},
              execution: c.state,
              simulations: c.rows,
            })),
          })),
        },
        null,
        2,
      ),
    );
  else
    for (const r of runs)
      for (const c of r.runs) {
        out('');
        out(`${r.scenario.name}${c.variables ? ` (${caseLabel(c.variables)})` : ''}`);
        printSummary(c.rows, c.state, out);
      }
  if (o.junit)
    writeFileSync(
      o.junit,
      junitReport(
        `Suite ${context.workspace.name}`,
        runs.map((r) => scenarioJunit(r, hostname())),
      ),
    );
  if (!o.json) out(`\n${allRows.filter(passed).length}/${allRows.length} simulations passed`);
  return ok ? 0 : 1;
}

/** Applies the suite to its workspace: the plan, or null after printing why nothing was applied. */
async function applySuite(client: ApiClient, o: ReturnType<typeof options>, err: Out) {
  const files = readSuite(o.dir);
  const secrets = secretValues(files, o['secrets-file']);
  // A workspace token lists no workspaces: it names its own with --workspace ws_...
  const workspace = o.workspace
    ? await givenWorkspace(client, o.workspace)
    : await namedWorkspace(client, suiteNameOf(files, o.dir), true);
  try {
    const { plan } = await client.invoke('suite.apply', {
      workspace_id: workspace.id,
      files,
      secrets,
      prune: false,
    });
    return { workspace, plan };
  } catch (e) {
    const problems = problemsOf(e);
    if (!problems) throw e;
    for (const p of problems) err(problemLine(o.dir, p));
    throw new CannotRun(`The suite has ${problems.length} problem(s): nothing applied or run`);
  }
}

/**
 * `callbench suite run`: exit 0 every simulation passed, 1 some did not, 2 nothing could run
 * (the suite has problems, the engine cannot be reached, no scenario to run).
 */
export async function suiteRun(
  args: string[],
  out: Out,
  err: Out = (l) => console.error(l),
): Promise<number> {
  try {
    const o = options(args);
    const client = api(o.url, o.key);
    const { workspace, plan } = await applySuite(client, o, err);
    const keys = plan.entries.filter((e) => e.kind === 'scenario').map((e) => e.key);
    const scenarios = selected(keys, await allScenarios(client, workspace.id), o);
    if (!scenarios.length) throw new CannotRun('No scenario of the suite is left to run');
    for (const line of planLines(o.dir, plan)) err(line);
    err(
      `Suite applied to workspace "${workspace.name}" (${countsLine(plan.entries)}): running ${scenarios.length} scenario(s)`,
    );
    // Everything is started before anything is waited for: the engine runs them side by side.
    const started: Started[] = [];
    for (const scenario of scenarios)
      started.push(await start(client, workspace.id, scenario, err));
    const runs: ScenarioRun[] = [];
    for (const s of started) runs.push(await finish(client, workspace.id, s, err));
    return report(runs, o, { workspace, out });
  } catch (e) {
    if (
      e instanceof CannotRun ||
      String((e as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')
    ) {
      err(`callbench suite run: ${(e as Error).message}`);
      return 2;
    }
    throw e;
  }
}
