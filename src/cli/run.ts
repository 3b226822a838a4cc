import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { apiClient, type ApiClient } from '../client/api-client.js';
import { restRoute } from '../client/rest-route.js';
import type { OperationInput, OperationOutput } from '../operations/catalogue.js';
import { junitXml } from './junit.js';

type Out = (line: string) => void;

export class CannotRun extends Error {}

interface FieldProblem {
  path: string;
  message: string;
}

/** What the run command reads of the API's answers, typed by the catalogue. */
type Execution = OperationOutput<'executions.get'>['execution'];
type Simulation = OperationOutput<'executions.simulations'>['simulations'][number];
type Execute = OperationInput<'scenarios.execute'>;

/** One simulation as the summary, --json and JUnit report it. */
interface Row {
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

/** The local API as a script sees it: each refusal or failure is a reason nothing can run. */
export function api(base: string, key: string): ApiClient {
  return apiClient({
    base,
    key,
    // The desktop app's local API serves each operation at its REST path only.
    route: restRoute,
    errors: {
      unreachable: (err) =>
        new CannotRun(
          `Callbench is not reachable at ${base} (${(err as Error).message}). Start the app or \`npm run serve\`.`,
        ),
      refused(res, body) {
        const e = body?.error;
        const details = (Array.isArray(e?.details) ? (e.details as FieldProblem[]) : [])
          .map((d) => `\n  ${d.path}: ${d.message}`)
          .join('');
        const message = typeof e?.message === 'string' ? e.message : `HTTP ${res.status}`;
        return new CannotRun(`${message}${details}`);
      },
    },
  });
}

const USAGE =
  'Usage: callbench run <scenario id or name> [--workspace W] [--var name=value ...] [--runs N] [--channel C] [--mode text|audio] [--line studio|phone|mobile|JSON] [--seed N] [--wait] [--junit FILE] [--json]';

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
  return { ...values, ref, key, variables, url, line: lineOption(values.line) };
}

/** Where the engine is and the key it takes: --url and --key, else CALLBENCH_URL and _API_KEY. */
export function reachOf(values: { key?: string; url?: string }): { key: string; url: string } {
  const key = values.key ?? process.env.CALLBENCH_API_KEY;
  if (!key)
    throw new CannotRun(
      'No API key: pass --key or set CALLBENCH_API_KEY (create one with `callbench keys create`).',
    );
  return { key, url: values.url ?? process.env.CALLBENCH_URL ?? 'http://127.0.0.1:4477' };
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
  const { workspaces } = await client.invoke('workspaces.list', {});
  const workspace = workspaceRef
    ? workspaces.find((w) => w.id === workspaceRef || w.name === workspaceRef)
    : workspaces[0];
  if (!workspace) throw new CannotRun(`No workspace ${workspaceRef ?? ''}`.trim());
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
    const ended = state.counts.completed + state.counts.failed + state.counts.cancelled;
    err(`  ${ended}/${state.simulations_created} done (${state.counts.running} running)`);
    if (['completed', 'failed', 'cancelled'].includes(state.status)) return state;
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
}

function writeJunit(file: string, scenario: string, state: Execution, rows: Row[]): void {
  writeFileSync(
    file,
    junitXml({
      scenario,
      timestamp: state.created_at ?? new Date().toISOString(),
      hostname: hostname(),
      cases: rows.map((r, i) => ({
        name: `${r.persona} x ${r.agent} #${i + 1}`,
        seconds: r.seconds,
        failures: r.failed,
        error: r.status === 'completed' ? undefined : (r.error ?? r.status),
      })),
    }),
  );
}

/**
 * `callbench run <scenario id or name>`: starts an execution through the local API, waits with
 * progress when asked, prints a summary, writes JUnit XML. Exit code: 0 every simulation passed,
 * 1 some did not, 2 nothing could run.
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
    const { execution } = await client.invoke('scenarios.execute', {
      workspace_id,
      scenario_id: scenario.id,
      variables: o.variables,
      ...(o.runs ? { runs: Number(o.runs) } : {}),
      ...(o.channel ? { channel: o.channel as Execute['channel'] } : {}),
      ...(o.mode ? { mode: o.mode as Execute['mode'] } : {}),
      // The engine checks what the script passed: a wrong value is its 400, with the field.
      ...(o.line !== undefined ? { line: o.line as Execute['line'] } : {}),
      ...(o.seed !== undefined ? { seed: Number(o.seed) } : {}),
    });
    err(
      `Execution ${execution.id}: ${execution.simulations_created} simulation(s) of "${scenario.name}"`,
    );
    if (!o.wait) {
      out(o.json ? JSON.stringify({ execution }) : execution.id);
      return 0;
    }
    const state = await waitFor(client, workspace_id, execution.id, err);
    const rows = await rowsOf(client, workspace_id, execution.id);
    if (o.json) out(JSON.stringify({ execution: state, simulations: rows }, null, 2));
    else printSummary(rows, state, out);
    if (o.junit) writeJunit(o.junit, scenario.name, state, rows);
    const allPassed =
      rows.length > 0 && rows.every((r) => r.status === 'completed' && r.passed !== false);
    return allPassed ? 0 : 1;
  } catch (e) {
    if (e instanceof CannotRun) {
      err(`callbench run: ${e.message}`);
      return 2;
    }
    throw e;
  }
}
