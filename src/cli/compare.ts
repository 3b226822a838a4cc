import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import type { ApiClient } from '../client/api-client.js';
import type { Comparison, ComparisonSideInput } from '../domain/comparisons.js';
import {
  comparisonJunitSuite,
  comparisonMarkdown,
  comparisonRegressed,
  comparisonText,
} from './comparison-report.js';
import { junitXml } from './junit.js';
import { api, CannotRun, reachOf, workspaceOf } from './local-api.js';

type Out = (line: string) => void;

const USAGE =
  'Usage: callbench compare <baseline execution id[,id...]> <candidate execution id[,id...]> [--workspace W] [--json] [--junit FILE] [--markdown FILE] [--rescore-baseline]';

/** A side as typed: one execution id, or several comma-separated (pooled). */
export function sideOf(text: string): ComparisonSideInput {
  const ids = text.split(',').map((id) => id.trim());
  if (ids.some((id) => !id)) throw new CannotRun(`An empty execution id in "${text}"\n${USAGE}`);
  return ids.length === 1 ? { executionId: ids[0]! } : { executionIds: ids };
}

function options(args: string[]) {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      workspace: { type: 'string' },
      json: { type: 'boolean' },
      junit: { type: 'string' },
      markdown: { type: 'string' },
      'rescore-baseline': { type: 'boolean' },
      key: { type: 'string' },
      url: { type: 'string' },
    },
  });
  const [baseline, candidate, extra] = positionals;
  if (!baseline || !candidate || extra !== undefined) throw new CannotRun(USAGE);
  return {
    ...values,
    ...reachOf(values),
    baseline: sideOf(baseline),
    candidate: sideOf(candidate),
  };
}

/** Asks the engine for the comparison (stored there, like one made in the app). */
export async function compareSides(
  client: ApiClient,
  request: {
    workspace_id: string;
    baseline: ComparisonSideInput;
    candidate: ComparisonSideInput;
    rescoreBaseline?: boolean;
  },
): Promise<Comparison> {
  const { comparison } = await client.invoke('comparisons.create', request);
  return comparison;
}

/** Where a comparison goes besides the terminal. */
export interface ReportTargets {
  json?: boolean;
  markdown?: string;
}

/** Prints the comparison (text, or JSON with --json) and writes the markdown file when asked. */
export function reportComparison(c: Comparison, to: ReportTargets, out: Out): void {
  if (to.json) out(JSON.stringify({ comparison: c }, null, 2));
  else for (const line of comparisonText(c)) out(line);
  if (to.markdown) writeFileSync(to.markdown, comparisonMarkdown(c));
}

/**
 * `callbench compare <baseline> <candidate>`: compares executions through the local API. Exit
 * code: 0, 1 when the overall verdict or an overall voice row regressed, 2 when it cannot compare
 * (the engine's refusal, or no engine).
 */
export async function compare(
  args: string[],
  out: Out,
  err: Out = (l) => console.error(l),
): Promise<number> {
  try {
    const o = options(args);
    const client = api(o.url, o.key);
    const workspace = await workspaceOf(client, o.workspace);
    const comparison = await compareSides(client, {
      workspace_id: workspace.id,
      baseline: o.baseline,
      candidate: o.candidate,
      ...(o['rescore-baseline'] ? { rescoreBaseline: true } : {}),
    });
    reportComparison(comparison, o, out);
    if (o.junit) writeFileSync(o.junit, junitXml(comparisonJunitSuite(comparison, hostname())));
    return comparisonRegressed(comparison) ? 1 : 0;
  } catch (e) {
    if (e instanceof CannotRun) {
      err(`callbench compare: ${e.message}`);
      return 2;
    }
    throw e;
  }
}
