import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { junitXml } from './junit.js';

type Json = Record<string, any>;
type Out = (line: string) => void;

class CannotRun extends Error {}

/** The local API as a script sees it. */
function api(base: string, key: string) {
  return async function call(method: string, path: string, body?: unknown): Promise<Json> {
    let res: Response;
    try {
      res = await fetch(base + path, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
      });
    } catch (err) {
      throw new CannotRun(
        `Callbench is not reachable at ${base} (${(err as Error).message}). Start the app or \`npm run serve\`.`,
      );
    }
    const json = (await res.json().catch(() => ({}))) as Json;
    if (!res.ok) {
      const error = json.error ?? {};
      const details = Array.isArray(error.details)
        ? error.details.map((d: Json) => `\n  ${d.path}: ${d.message}`).join('')
        : '';
      throw new CannotRun(`${error.message ?? `HTTP ${res.status}`}${details}`);
    }
    return json.success === true ? json.data : json;
  };
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
    },
  });
  try {
    const ref = positionals[0];
    if (!ref)
      throw new CannotRun(
        'Usage: callbench run <scenario id or name> [--workspace W] [--var name=value ...] [--runs N] [--wait] [--junit FILE] [--json]',
      );
    const key = values.key ?? process.env.CALLBENCH_API_KEY;
    if (!key)
      throw new CannotRun(
        'No API key: pass --key or set CALLBENCH_API_KEY (create one with `callbench keys create`).',
      );
    const call = api(values.url ?? process.env.CALLBENCH_URL ?? 'http://127.0.0.1:4477', key);
    const workspaces = (await call('GET', '/api/v1/workspaces')).workspaces as Json[];
    const workspace = values.workspace
      ? workspaces.find((w) => w.id === values.workspace || w.name === values.workspace)
      : workspaces[0];
    if (!workspace) throw new CannotRun(`No workspace ${values.workspace ?? ''}`.trim());
    const ws = `/api/v1/workspaces/${workspace.id}`;
    const scenario = ref.startsWith('scn_')
      ? (await call('GET', `${ws}/scenarios/${ref}`)).scenario
      : (
          (await call('GET', `${ws}/scenarios?name=${encodeURIComponent(ref)}&limit=100`))
            .scenarios as Json[]
        ).find((s) => s.name === ref);
    if (!scenario) throw new CannotRun(`No scenario named "${ref}" in workspace ${workspace.name}`);
    const variables = Object.fromEntries(
      (values.var ?? []).map((v) => {
        const at = v.indexOf('=');
        if (at < 1) throw new CannotRun(`--var takes name=value, got "${v}"`);
        return [v.slice(0, at), v.slice(at + 1)];
      }),
    );
    const runs = values.runs ? Number(values.runs) : undefined;
    const { execution } = await call('POST', `${ws}/scenarios/${scenario.id}/execute`, {
      variables,
      ...(runs ? { runs } : {}),
      ...(values.channel ? { channel: values.channel } : {}),
    });
    err(
      `Execution ${execution.id}: ${execution.simulations_created} simulation(s) of "${scenario.name}"`,
    );
    if (!values.wait) {
      out(values.json ? JSON.stringify({ execution }) : execution.id);
      return 0;
    }
    let state = execution;
    for (;;) {
      state = (await call('GET', `${ws}/executions/${execution.id}?wait=5`)).execution;
      const ended = state.counts.completed + state.counts.failed + state.counts.cancelled;
      err(`  ${ended}/${state.simulations_created} done (${state.counts.running} running)`);
      if (['completed', 'failed', 'cancelled'].includes(state.status)) break;
    }
    const sims = (await call('GET', `${ws}/executions/${execution.id}/simulations`))
      .simulations as Json[];
    const names = new Map<string, string>();
    const nameOf = async (path: string, id: string, pick: (j: Json) => string) => {
      if (!names.has(id)) names.set(id, await call('GET', path).then(pick, () => id));
      return names.get(id)!;
    };
    const rows = [];
    for (const sim of sims) {
      rows.push({
        id: sim.id,
        persona: await nameOf(
          `${ws}/personas/${sim.persona_id}`,
          sim.persona_id,
          (j) => j.persona.name,
        ),
        agent: await nameOf(`/v1/agents/${sim.agent_id}`, sim.agent_id, (j) => j.name),
        status: sim.status,
        score: sim.score,
        passed: sim.passed,
        failed: (sim.results as Json[])
          .filter((r) => !r.passed)
          .map((r) => `${r.name}: ${r.reasoning}`),
        error: sim.error as string | undefined,
        seconds: (sim.duration_ms ?? 0) / 1000,
      });
    }
    const allPassed =
      rows.length > 0 && rows.every((r) => r.status === 'completed' && r.passed !== false);
    if (values.json) out(JSON.stringify({ execution: state, simulations: rows }, null, 2));
    else {
      out(['persona', 'agent', 'score', 'passed', 'failed metrics'].join('\t'));
      for (const r of rows)
        out(
          [
            r.persona,
            r.agent,
            r.score ?? '-',
            r.status === 'completed' ? String(r.passed ?? '-') : r.status,
            r.error ?? (r.failed.map((f) => f.split(':')[0]).join(', ') || '-'),
          ].join('\t'),
        );
      out(`avg score ${state.avg_score ?? '-'}, pass rate ${state.pass_rate ?? '-'}%`);
    }
    if (values.junit) {
      writeFileSync(
        values.junit,
        junitXml({
          scenario: scenario.name,
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
    return allPassed ? 0 : 1;
  } catch (e) {
    if (e instanceof CannotRun) {
      err(`callbench run: ${e.message}`);
      return 2;
    }
    throw e;
  }
}
