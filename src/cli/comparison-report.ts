import type {
  CaseRow,
  Comparison,
  ComparisonSide,
  ComparisonStats,
  Interval,
  MetricRow,
  Verdict,
  VoiceRow,
} from '../domain/comparisons.js';
import type { JunitCase, JunitSuite } from './junit.js';

/*
 * A comparison as `callbench compare` and `run --baseline` show it: text for a terminal, the same
 * table as GitHub-flavoured markdown for a pull request, and JUnit test cases for CI. Only
 * formatting: the verdicts are the engine's, never worked out again here.
 */

/** Worst first: a gate reads `regressed`, then what may still hide a regression. */
const VERDICT_RANK: Record<Verdict, number> = {
  regressed: 0,
  no_significant_difference: 1,
  insufficient_data: 2,
  improved: 3,
};

/**
 * Case rows sorted by regression: by adjusted verdict (what a gate reads), then the descriptive
 * one, then the largest drop in pass rate first (rows with no difference last).
 */
export function rowsByRegression(rows: readonly CaseRow[]): CaseRow[] {
  const drop = (r: CaseRow) => r.difference.value ?? Infinity;
  return [...rows].sort(
    (a, b) =>
      VERDICT_RANK[a.adjusted_verdict] - VERDICT_RANK[b.adjusted_verdict] ||
      VERDICT_RANK[a.verdict] - VERDICT_RANK[b.verdict] ||
      drop(a) - drop(b),
  );
}

/** Exit 1 for CI: the overall verdict, or an overall voice row, regressed. */
export function comparisonRegressed(c: Comparison): boolean {
  return c.overall.verdict === 'regressed' || (c.voice?.rows ?? []).some(isRegressed);
}

const isRegressed = (row: { verdict: Verdict }) => row.verdict === 'regressed';

const percent = (rate: number | null): string =>
  rate === null ? '-' : `${(rate * 100).toFixed(1)}%`;

const points = (value: number | null): string =>
  value === null ? '-' : `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)} pts`;

/** An interval of fractions in percent (or points), `[low, high]`. */
const percentInterval = (i: Interval | null): string =>
  i === null ? '' : ` [${(i[0] * 100).toFixed(1)}, ${(i[1] * 100).toFixed(1)}]`;

/** A plain number: whole ones as they are, the rest with as many decimals as their size needs. */
const num = (n: number | null): string =>
  n === null ? '-' : Number.isInteger(n) ? String(n) : n.toFixed(Math.abs(n) < 1 ? 3 : 1);

const signed = (n: number | null): string => (n !== null && n > 0 ? `+${num(n)}` : num(n));

const numInterval = (i: Interval | null): string =>
  i === null ? '' : ` [${num(i[0])}, ${num(i[1])}]`;

/** A condition's values: hashes cut to 12 characters (enough to tell them apart by eye). */
const values = (list: string[]): string =>
  list.map((v) => (/^[0-9a-f]{64}$/.test(v) ? `${v.slice(0, 12)}…` : v)).join(', ') || '-';

const cost = (usd: number | null): string => (usd === null ? 'unpriced' : `$${usd.toFixed(4)}`);

/** `insufficient_data (10 runs needed)`: what the verdict says, and what would settle it. */
const verdictText = (verdict: Verdict, s: ComparisonStats): string =>
  verdict === 'insufficient_data' && s.runs_needed !== null
    ? `${verdict} (${s.runs_needed} runs needed)`
    : verdict;

function sideLine(label: string, side: ComparisonSide): string {
  const versions = side.agent_versions.length ? side.agent_versions.join(', ') : '-';
  return `${label} ${side.execution_ids.join(', ')}: ${side.simulations} simulation(s), agent version(s) ${versions}, cost ${cost(side.cost_usd)}`;
}

/** The header: both sides, the conditions warning, the overall verdict with pass rates. */
function headerLines(c: Comparison): string[] {
  const o = c.overall;
  const lines = [`Comparison ${c.id}`, sideLine('Baseline: ', c.baseline)];
  lines.push(sideLine('Candidate:', c.candidate));
  if (c.rescored_baseline) lines.push("The baseline was rescored with the candidate's scorecard.");
  for (const d of c.conditions_differ) {
    const hint =
      d.field === 'scorecard' && !c.rescored_baseline
        ? " (--rescore-baseline scores the baseline with the candidate's scorecard)"
        : '';
    lines.push(
      `Warning: the ${d.field} differs (baseline ${values(d.baseline)}, candidate ${values(d.candidate)}): a test edit is no agent change${hint}.`,
    );
  }
  lines.push(
    `Overall: ${verdictText(o.verdict, o)}: pass rate ${percent(o.baseline.pass_rate)}${percentInterval(o.baseline.interval)} -> ${percent(o.candidate.pass_rate)}${percentInterval(o.candidate.interval)}, difference ${points(o.difference.value)}${percentInterval(o.difference.interval)} (${o.pairs} pairs)`,
  );
  // Scores exist only where a scorecard scored: without one, pass rates are all there is.
  if (o.score.baseline_mean !== null || o.score.candidate_mean !== null)
    lines.push(
      `  score ${num(o.score.baseline_mean)} -> ${num(o.score.candidate_mean)}, difference ${signed(o.score.difference)}${numInterval(o.score.interval)}`,
    );
  return lines;
}

/** A table: a header row and its rows, each a list of cells. */
export interface Table {
  title: string;
  header: string[];
  rows: string[][];
}

const statsCells = (s: ComparisonStats): string[] => [
  String(s.pairs),
  `${percent(s.baseline.pass_rate)}${percentInterval(s.baseline.interval)}`,
  `${percent(s.candidate.pass_rate)}${percentInterval(s.candidate.interval)}`,
  `${points(s.difference.value)}${percentInterval(s.difference.interval)}`,
  `${signed(s.score.difference)}${numInterval(s.score.interval)}`,
];

const STATS_HEADER = ['pairs', 'baseline', 'candidate', 'difference', 'score difference'];

export const caseName = (r: CaseRow): string =>
  `${r.scenario_name ?? r.scenario_id} x ${r.persona_name ?? r.persona_id ?? 'no persona'}`;

const flags = (r: CaseRow): string =>
  [r.flaky.baseline && 'baseline', r.flaky.candidate && 'candidate'].filter(Boolean).join(', ') ||
  '-';

function caseTable(rows: readonly CaseRow[]): Table {
  return {
    title: 'Scenario x persona (worst first)',
    header: ['adjusted verdict', 'verdict', 'case', ...STATS_HEADER, 'flaky', 'errored'],
    rows: rowsByRegression(rows).map((r) => [
      verdictText(r.adjusted_verdict, r),
      r.verdict,
      caseName(r),
      ...statsCells(r),
      flags(r),
      `${r.errored.baseline}/${r.errored.candidate}`,
    ]),
  };
}

function metricTable(rows: readonly MetricRow[]): Table {
  return {
    title: 'Metrics',
    header: ['adjusted verdict', 'verdict', 'metric', ...STATS_HEADER],
    rows: rows.map((r) => [
      verdictText(r.adjusted_verdict, r),
      r.verdict,
      r.metric,
      ...statsCells(r),
    ]),
  };
}

function voiceTable(title: string, rows: readonly VoiceRow[]): Table {
  return {
    title,
    header: ['verdict', 'measure', 'calls', 'baseline', 'candidate', 'difference'],
    rows: rows.map((r) => [
      r.verdict,
      r.measure,
      `${r.calls.baseline}/${r.calls.candidate}`,
      num(r.baseline),
      num(r.candidate),
      `${signed(r.difference)}${numInterval(r.interval)}`,
    ]),
  };
}

/** Every table of the comparison, in the order both renderings print them. */
export function comparisonTables(c: Comparison): Table[] {
  const tables = [caseTable(c.rows), metricTable(c.metrics)];
  if (c.voice) {
    tables.push(voiceTable('Voice (lower is better)', c.voice.rows));
    for (const group of c.voice.by_conditions)
      tables.push(voiceTable(`Voice, noise ${group.noise}, line ${group.line}`, group.rows));
  }
  return tables.filter((t) => t.rows.length > 0);
}

/** Flakiness, errored simulations, unpaired ones and the sample size: the footer. */
function footerLines(c: Comparison): string[] {
  const passK = (v: number | null) => (v === null ? '-' : v.toFixed(2));
  const f = c.flakiness;
  return [
    `Flaky cases: baseline ${f.baseline.disagreeing.length} (pass^k ${passK(f.baseline.pass_k)}), candidate ${f.candidate.disagreeing.length} (pass^k ${passK(f.candidate.pass_k)})`,
    `Errored (no outcome, in no statistic): baseline ${c.errored.baseline}, candidate ${c.errored.candidate}; unpaired: ${c.unpaired.length}`,
    `To detect a 10-point change: ${c.sample_size.runs_per_group} runs per scenario x persona (${c.sample_size.executions} execution(s))`,
  ];
}

/** The comparison for a terminal: header, tab-separated tables, footer. */
export function comparisonText(c: Comparison): string[] {
  const lines = headerLines(c);
  for (const t of comparisonTables(c)) {
    lines.push('', `${t.title}:`, t.header.join('\t'), ...t.rows.map((r) => r.join('\t')));
  }
  return [...lines, '', ...footerLines(c)];
}

/** A markdown cell: pipes would end it, and a line break would end the row. */
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

const markdownTable = (t: Table): string[] => [
  `### ${t.title}`,
  '',
  `| ${t.header.map(cell).join(' | ')} |`,
  `|${t.header.map(() => ' --- ').join('|')}|`,
  ...t.rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  '',
];

/** The same report as GitHub-flavoured markdown (a pull request comment, a job summary). */
export function comparisonMarkdown(c: Comparison): string {
  const [title, ...header] = headerLines(c);
  return [
    `## ${title}`,
    '',
    ...header.map((l) => `${l.startsWith('  ') ? '  - ' : '- '}${cell(l.trim())}`),
    '',
    ...comparisonTables(c).flatMap(markdownTable),
    ...footerLines(c).map((l) => `- ${cell(l)}`),
    '',
  ].join('\n');
}

/** A test case that fails when `verdict` is regressed, its figures as the failure's text. */
function verdictCase(name: string, verdict: Verdict, figures: string): JunitCase {
  const regressed = verdict === 'regressed';
  return {
    name,
    seconds: 0,
    failures: regressed ? [`${name}: ${figures}`] : [],
    failure: regressed
      ? { message: `${name} regressed: ${figures}`, type: 'regression' }
      : undefined,
  };
}

const statsFigures = (s: ComparisonStats): string =>
  `pass rate ${percent(s.baseline.pass_rate)} -> ${percent(s.candidate.pass_rate)}, difference ${points(s.difference.value)}${percentInterval(s.difference.interval)} over ${s.pairs} pairs`;

/**
 * The comparison as a JUnit suite: a case per row (overall, scenario x persona, metric, voice),
 * failing when regressed. Case and metric rows read the adjusted verdict: with many rows, some
 * would fall below zero by chance alone.
 */
export function comparisonJunitSuite(c: Comparison, hostname: string): JunitSuite {
  const o = c.overall;
  const cases = [
    verdictCase('overall', o.verdict, statsFigures(o)),
    ...rowsByRegression(c.rows).map((r) =>
      verdictCase(caseName(r), r.adjusted_verdict, statsFigures(r)),
    ),
    ...c.metrics.map((m) => verdictCase(`metric ${m.metric}`, m.adjusted_verdict, statsFigures(m))),
    ...(c.voice?.rows ?? []).map((v) =>
      verdictCase(
        `voice ${v.measure}`,
        v.verdict,
        `${num(v.baseline)} -> ${num(v.candidate)}, difference ${signed(v.difference)}${numInterval(v.interval)}`,
      ),
    ),
  ];
  return { scenario: `comparison ${c.id}`, timestamp: c.created_at, hostname, cases };
}
