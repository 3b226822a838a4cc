import { parseArgs } from 'node:util';
import type { ApiClient } from '../client/api-client.js';
import type { MetricCalibration } from '../domain/calibration.js';
import { api, CannotRun, reachOf, workspaceOf } from './local-api.js';

type Out = (line: string) => void;

const USAGE =
  'Usage: callbench calibration <scorecard id or name> --workspace W [--min-kappa K] [--json]';

/** Below this kappa a judge is not trusted unless --min-kappa says otherwise ("substantial"). */
const DEFAULT_MIN_KAPPA = 0.6;

function parsed(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        workspace: { type: 'string' },
        'min-kappa': { type: 'string' },
        json: { type: 'boolean' },
        key: { type: 'string' },
        url: { type: 'string' },
      },
    });
  } catch (e) {
    // An unknown or malformed option is a usage error like the others (exit 2).
    throw new CannotRun(`${(e as Error).message}\n${USAGE}`);
  }
}

function options(args: string[]) {
  const { values, positionals } = parsed(args);
  const [scorecard, extra] = positionals;
  if (!scorecard || extra !== undefined || !values.workspace) throw new CannotRun(USAGE);
  const text = values['min-kappa'];
  const minKappa = text === undefined ? DEFAULT_MIN_KAPPA : Number(text);
  if (text !== undefined && (text.trim() === '' || !(minKappa >= -1 && minKappa <= 1)))
    throw new CannotRun(`--min-kappa takes a number from -1 to 1, got "${text}"\n${USAGE}`);
  return { ...values, ...reachOf(values), workspace: values.workspace, scorecard, minKappa };
}

/** The scorecard by id, else by name, in the workspace. */
async function scorecardOf(client: ApiClient, workspace_id: string, ref: string) {
  for (let offset = 0; ; offset += 100) {
    const { scorecards, pagination } = await client.invoke('scorecards.list', {
      workspace_id,
      limit: 100,
      offset,
    });
    const found = scorecards.find((s) => s.id === ref) ?? scorecards.find((s) => s.name === ref);
    if (found) return found;
    if (!pagination.has_more) throw new CannotRun(`No scorecard "${ref}" in this workspace`);
  }
}

/** Why a metric fails the gate, or null when it passes: not calibrated, or kappa too low. */
export function gateProblem(m: MetricCalibration, minKappa: number): string | null {
  if (m.status === 'stale') {
    const model = m.judge_model !== m.judge_model_in_force;
    return model
      ? `stale: its labels were judged by ${m.judge_model ?? 'no model'}, the judge is now ${m.judge_model_in_force ?? 'none'}`
      : 'stale: the rubric changed since its labels were judged';
  }
  if (m.status !== 'calibrated') return `${m.status.replace('_', ' ')}: ${m.labels} of 50 labels`;
  if (m.kappa === null)
    return 'kappa undefined (judge and people gave one same verdict throughout)';
  if (m.kappa < minKappa) return `kappa ${m.kappa.toFixed(2)} under ${minKappa}`;
  return null;
}

const percent = (x: number | null) => (x === null ? '—' : `${(x * 100).toFixed(1)}%`);
const fixed = (x: number | null) => (x === null ? '—' : x.toFixed(2));

function printText(name: string, metrics: MetricCalibration[], minKappa: number, out: Out) {
  out(`Calibration of ${name} (kappa at least ${minKappa}):`);
  if (metrics.length === 0) out('  no llm_judge metric: nothing to calibrate');
  for (const m of metrics) {
    const problem = gateProblem(m, minKappa);
    out(
      `  ${problem ? 'FAIL' : 'ok  '} ${m.name}: ${m.status}, ${m.labels} labels, agreement ${percent(m.agreement)}, kappa ${fixed(m.kappa)}${problem ? ` (${problem})` : ''}`,
    );
  }
}

/**
 * `callbench calibration <scorecard> --workspace W`: how far each llm_judge metric's judge agrees
 * with people. Exit code: 0 every one calibrated with kappa at least --min-kappa, 1 when one is
 * not, 2 when it cannot ask (the engine's refusal, or no engine).
 */
export async function calibration(
  args: string[],
  out: Out,
  err: Out = (l) => console.error(l),
): Promise<number> {
  try {
    const o = options(args);
    const client = api(o.url, o.key);
    const workspace = await workspaceOf(client, o.workspace);
    const scorecard = await scorecardOf(client, workspace.id, o.scorecard);
    const { calibration: answer } = await client.invoke('scorecards.calibration', {
      workspace_id: workspace.id,
      scorecard_id: scorecard.id,
    });
    const failing = answer.metrics
      .map((m) => ({ metric_id: m.metric_id, problem: gateProblem(m, o.minKappa) }))
      .filter((f): f is { metric_id: string; problem: string } => f.problem !== null);
    if (o.json)
      out(JSON.stringify({ calibration: answer, min_kappa: o.minKappa, failing }, null, 2));
    else printText(scorecard.name, answer.metrics, o.minKappa, out);
    return failing.length ? 1 : 0;
  } catch (e) {
    if (e instanceof CannotRun) {
      err(`callbench calibration: ${e.message}`);
      return 2;
    }
    throw e;
  }
}
