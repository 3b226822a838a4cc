import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import type { ApiClient } from '../client/api-client.js';
import type { Comparison } from '../domain/comparisons.js';
import { ENDED_EXECUTION_STATUSES } from '../domain/executions.js';
import type { OperationInput, OperationOutput } from '../operations/catalogue.js';
import { comparisonJunitSuite, comparisonRegressed, comparisonText } from './comparison-report.js';
import { junitXml, type JunitCase } from './junit.js';
import { api, CannotRun, reachOf, workspaceOf } from './local-api.js';
import { baselineOf, compareWithBaseline, seedFromBaseline } from './run-baseline.js';

type Out = (line: string) => void;

/** What the run command reads of the API's answers, typed by the catalogue. */
type Execution = OperationOutput<'executions.get'>['execution'];
type Simulation = OperationOutput<'executions.simulations'>['simulations'][number];
type Execute = OperationInput<'scenarios.execute'>;

/** One simulation as the summary, --json and JUnit report it. */
export interface Row {
  id: string;
  persona: string | null;
  agent: string | null;
  status: string;
  score: number | null;
  passed: boolean | null;
  failed: string[];
  error: string | undefined;
  seconds: number;
  /** Audio simulations: response latency p50/p90. */
  latency: string;
  /** Audio simulations: the line and its seed (to replay with --seed), and the recognition's WER. */
  caller: string;
}

const USAGE =
  'Usage: callbench run <scenario id or name> [--workspace W] [--var name=value ...] [--runs N] [--channel C] [--mode text|audio] [--line studio|phone|mobile|JSON] [--seed N] [--max-cost USD] [--wait] [--junit FILE] [--json] [--baseline <execution id|last>]';

function options(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      workspace: { type: 'string' },
      var: { type: 'string', multiple: true },
      runs: { type: 'string' },
      wait: { type: 'boolean' },
      junit: { type: 'string' },
      json: { type: 'boolean' },
      key: { type: 'string' },
      url: { type: 'string' },
      channel: { type: 'string' },
      mode: { type: 'string' },
      line: { type: 'string' },
      seed: { type: 'string' },
      baseline: { type: 'string' },
      'max-cost': { type: 'string' },
    },
  });
  const ref = positionals[0];
  if (!ref) throw new CannotRun(USAGE);
  const { key, url } = reachOf(values);
  const variables = Object.fromEntries(
    (values.var ?? []).map((v) => {
      const at = v.indexOf('=');
      if (at < 1) throw new CannotRun(`--var takes name=value, got "${v}"`);
      return [v.slice(0, at), v.slice(at + 1)];
    }),
  );
  const maxCostUsd = maxCostOption(values['max-cost']);
  return { ...values, ref, key, variables, url, line: lineOption(values.line), maxCostUsd };
}

/**
 * --max-cost: the execution's spend cap in dollars (maxCostUsd). A number is passed on as it is:
 * the engine refuses a negative one, or one it cannot price, naming maxCostUsd.
 */
function maxCostOption(usd: string | undefined): number | undefined {
  if (usd === undefined) return undefined;
  const value = Number(usd);
  if (usd.trim() === '' || !Number.isFinite(value))
    throw new CannotRun(`--max-cost takes dollars (a number such as 2.50), got "${usd}"`);
  return value;
}

/** --line: a profile's name, or a custom line as JSON ({"codec":"mulaw","sampleRate":8000,...}). */
function lineOption(line: string | undefined): unknown {
  if (line === undefined || !line.trim().startsWith('{')) return line;
  try {
    return JSON.parse(line) as unknown;
  } catch {
    throw new CannotRun(`--line takes studio, phone, mobile or a JSON object, got "${line}"`);
  }
}

/** The workspace (by id or name, the first by default) and the scenario (by id or name). */
async function target(client: ApiClient, workspaceRef: string | undefined, ref: string) {
  const workspace = await workspaceOf(client, workspaceRef);
  const workspace_id = workspace.id;
  const scenario = ref.startsWith('scn_')
    ? (await client.invoke('scenarios.get', { workspace_id, scenario_id: ref })).scenario
    : (
        await client.invoke('scenarios.list', { workspace_id, name: ref, limit: 100 })
      ).scenarios.find((s) => s.name === ref);
  if (!scenario) throw new CannotRun(`No scenario named "${ref}" in workspace ${workspace.name}`);
  return { workspace_id, scenario };
}

/** Waits for the execution to end, saying how far it got on each wait. */
export async function waitFor(
  client: ApiClient,
  workspace_id: string,
  execution_id: string,
  err: Out,
): Promise<Execution> {
  for (;;) {
    const { execution: state } = await client.invoke('executions.get', {
      workspace_id,
      execution_id,
      wait: 5,
    });
    const { completed, failed, cancelled, skipped } = state.counts;
    const ended = completed + failed + cancelled + skipped;
    err(`  ${ended}/${state.simulations_created} done (${state.counts.running} running)`);
    if (ENDED_EXECUTION_STATUSES.includes(state.status)) return state;
  }
}

/** Each simulation with its persona's and agent's names (asked once each). */
export async function rowsOf(client: ApiClient, workspace_id: string, execution_id: string) {
  const { simulations } = await client.invoke('executions.simulations', {
    workspace_id,
    execution_id,
  });
  const names = new Map<string, string>();
  // A deleted persona or agent has no id left: its name is unknown (null), as is its id.
  const nameOf = async (id: string | null, ask: (id: string) => Promise<string>) => {
    if (id === null) return null;
    if (!names.has(id)) names.set(id, await ask(id).catch(() => id));
    return names.get(id)!;
  };
  const rows: Row[] = [];
  for (const sim of simulations) {
    rows.push({
      id: sim.id,
      persona: await nameOf(sim.persona_id, async (id) => {
        const answer = await client.invoke('personas.get', { workspace_id, persona_id: id });
        return answer.persona.name;
      }),
      agent: await nameOf(sim.agent_id, async (id) => {
        return (await client.invoke('agents.get', { agent_id: id })).name;
      }),
      status: sim.status,
      score: sim.score,
      passed: sim.passed,
      failed: sim.results.filter((r) => r.passed === false).map((r) => `${r.name}: ${r.reasoning}`),
      error: sim.error,
      seconds: (sim.duration_ms ?? 0) / 1000,
      latency: sim.audio
        ? `${sim.audio.response_latency_ms.p50 ?? '-'}/${sim.audio.response_latency_ms.p90 ?? '-'} ms`
        : '-',
      caller: callerOf(sim),
    });
  }
  return rows;
}

/** `mobile seed 1234, WER 14.3%`: the line to replay, and how well the agent heard. */
function callerOf(sim: Simulation): string {
  const c = sim.audio?.caller;
  if (!c) return '-';
  const wer = c.asr?.wer;
  const heard = wer === null || wer === undefined ? '' : `, WER ${Math.round(wer * 1000) / 10}%`;
  return `${c.line.profile} seed ${c.line.seed}${heard}`;
}

export function printSummary(rows: Row[], state: Execution, out: Out): void {
  out(
    ['persona', 'agent', 'score', 'passed', 'latency p50/p90', 'line', 'failed metrics'].join('\t'),
  );
  for (const r of rows)
    out(
      [
        r.persona,
        r.agent,
        r.score ?? '-',
        r.status === 'completed' ? String(r.passed ?? '-') : r.status,
        r.latency,
        r.caller,
        r.error ?? (r.failed.map((f) => f.split(':')[0]).join(', ') || '-'),
      ].join('\t'),
    );
  out(`avg score ${state.avg_score ?? '-'}, pass rate ${state.pass_rate ?? '-'}%`);
  out(costLine(state));
}

/** What the run cost, or why it is not known; and how many the cost cap skipped. */
function costLine(state: Execution): string {
  const cost =
    state.cost_usd !== null
      ? `cost $${state.cost_usd}`
      : state.unpriced_models.length
        ? `cost unknown (unpriced: ${state.unpriced_models.join(', ')})`
        : 'cost unknown';
  const skipped = state.counts.skipped;
  return skipped ? `${cost}, ${skipped} skipped by the cost cap` : cost;
}

/** A simulation as a JUnit test case of that name. */
export function junitCaseOf(r: Row, name: string): JunitCase {
  return {
    name,
    seconds: r.seconds,
    failures: r.failed,
    // Skipped by the cost cap: not run to the end, but nothing went wrong either.
    skipped: r.status === 'skipped' ? (r.error ?? 'skipped by the cost cap') : undefined,
    error: r.status === 'completed' || r.status === 'skipped' ? undefined : (r.error ?? r.status),
  };
}

function writeJunit(file: string, run: Ended, comparison: Comparison | null): void {
  writeFileSync(
    file,
    junitXml(
      {
        scenario: run.scenario,
        timestamp: run.state.created_at ?? new Date().toISOString(),
        hostname: hostname(),
        cases: run.rows.map((r, i) => junitCaseOf(r, `${r.persona} x ${r.agent} #${i + 1}`)),
      },
      // run --baseline: the comparison's rows, a suite of their own after the simulations'.
      comparison ? [comparisonJunitSuite(comparison, hostname())] : [],
    ),
  );
}

/** An execution that ended, with its simulations as reported. */
interface Ended {
  scenario: string;
  state: Execution;
  rows: Row[];
}

/** The seed asked for, else (--baseline) the baseline's, so that audio runs share their dice. */
function seedOf(
  o: { seed?: string; mode?: string },
  scenario: { audio: { enabled: boolean } | null },
  baseline: Pick<Execution, 'line'> | null,
): number | undefined {
  if (o.seed !== undefined) return Number(o.seed);
  const mode = o.mode ?? (scenario.audio?.enabled ? 'audio' : 'text');
  return baseline ? seedFromBaseline(baseline, mode === 'audio' ? 'audio' : 'text') : undefined;
}

/**
 * Reports an ended run: its summary, then (--baseline) its comparison with the baseline, whose
 * verdict is the exit code (0 unless regressed, 2 when it cannot compare) instead of the
 * simulations' own. The JUnit file is written even when the comparison is refused.
 */
async function report(
  client: ApiClient,
  run: Ended & { workspace_id: string; baseline: { id: string } | null },
  o: { json?: boolean; junit?: string },
  out: Out,
): Promise<number> {
  if (!o.json) printSummary(run.rows, run.state, out);
  const compared = run.baseline
    ? await compareWithBaseline(client, {
        workspace_id: run.workspace_id,
        baseline_id: run.baseline.id,
        candidate_id: run.state.id,
      })
    : null;
  const comparison = compared instanceof CannotRun ? null : compared;
  if (o.json) {
    const answer = { execution: run.state, simulations: run.rows };
    out(JSON.stringify(run.baseline ? { ...answer, comparison } : answer, null, 2));
  } else if (comparison) for (const line of ['', ...comparisonText(comparison)]) out(line);
  if (o.junit) writeJunit(o.junit, run, comparison);
  if (compared instanceof CannotRun) throw compared;
  if (comparison) return comparisonRegressed(comparison) ? 1 : 0;
  const allPassed =
    run.rows.length > 0 && run.rows.every((r) => r.status === 'completed' && r.passed !== false);
  return allPassed ? 0 : 1;
}

/**
 * `callbench run <scenario id or name>`: starts an execution through the local API, waits with
 * progress when asked, prints a summary, writes JUnit XML. Exit code: 0 every simulation passed,
 * 1 some did not, 2 nothing could run. With --baseline (which waits), the comparison's verdict.
 */
export async function run(
  args: string[],
  out: Out,
  err: Out = (l) => console.error(l),
): Promise<number> {
  try {
    const o = options(args);
    const client = api(o.url, o.key);
    const { workspace_id, scenario } = await target(client, o.workspace, o.ref);
    const baseline = o.baseline
      ? await baselineOf(client, {
          workspace_id,
          scenario_id: scenario.id,
          scenario_name: scenario.name,
          ref: o.baseline,
        })
      : null;
    const seed = seedOf(o, scenario, baseline);
    const { execution } = await client.invoke('scenarios.execute', {
      workspace_id,
      scenario_id: scenario.id,
      variables: o.variables,
      ...(o.runs ? { runs: Number(o.runs) } : {}),
      ...(o.channel ? { channel: o.channel as Execute['channel'] } : {}),
      ...(o.mode ? { mode: o.mode as Execute['mode'] } : {}),
      // The engine checks what the script passed: a wrong value is its 400, with the field.
      ...(o.line !== undefined ? { line: o.line as Execute['line'] } : {}),
      ...(seed !== undefined ? { seed } : {}),
      ...(o.maxCostUsd !== undefined ? { maxCostUsd: o.maxCostUsd } : {}),
    });
    err(
      `Execution ${execution.id}: ${execution.simulations_created} simulation(s) of "${scenario.name}"`,
    );
    if (!o.wait && !baseline) {
      out(o.json ? JSON.stringify({ execution }) : execution.id);
      return 0;
    }
    const state = await waitFor(client, workspace_id, execution.id, err);
    const rows = await rowsOf(client, workspace_id, execution.id);
    return await report(
      client,
      { scenario: scenario.name, state, rows, workspace_id, baseline },
      o,
      out,
    );
  } catch (e) {
    if (e instanceof CannotRun) {
      err(`callbench run: ${e.message}`);
      return 2;
    }
    throw e;
  }
}
