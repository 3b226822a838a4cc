import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import {
  comparisonJunitSuite,
  comparisonMarkdown,
  comparisonRegressed,
  comparisonText,
  rowsByRegression,
} from '../../src/cli/comparison-report.js';
import { junitXml } from '../../src/cli/junit.js';
import {
  Comparison,
  type CaseRow,
  type ComparisonStats,
  type Verdict,
  type VoiceRow,
} from '../../src/domain/comparisons.js';

/*
 * The rendering on comparisons built here, checked against the domain schema: what the engine's
 * executions cannot easily give a CLI test (several cases, voice rows, differing conditions).
 */

function stats(
  baselinePassed: number,
  candidatePassed: number,
  verdicts: { verdict: Verdict; adjusted?: Verdict },
): ComparisonStats {
  const side = (passed: number) => ({
    passed,
    total: 10,
    pass_rate: passed / 10,
    interval: [0, 1] as [number, number],
  });
  const value = (candidatePassed - baselinePassed) / 10;
  return {
    pairs: 10,
    baseline: side(baselinePassed),
    candidate: side(candidatePassed),
    difference: { value, interval: [value - 0.3, value + 0.3] },
    score: { baseline_mean: 80, candidate_mean: 70, difference: -10, interval: [-15, -5] },
    verdict: verdicts.verdict,
    adjusted_verdict: verdicts.adjusted ?? verdicts.verdict,
    runs_needed: null,
  };
}

function caseRow(name: string, s: ComparisonStats, flaky = false): CaseRow {
  return {
    ...s,
    scenario_id: `scn_${name}`,
    scenario_name: name,
    persona_id: 'per_1',
    persona_name: 'Frank',
    errored: { baseline: 0, candidate: 1 },
    flaky: { baseline: false, candidate: flaky },
  };
}

const voiceRow = (measure: VoiceRow['measure'], verdict: Verdict): VoiceRow => ({
  measure,
  direction: 'lower_is_better',
  calls: { baseline: 10, candidate: 10 },
  baseline: 800,
  candidate: 950.5,
  difference: 150.5,
  interval: [90, 210],
  verdict,
});

function comparison(overrides: Partial<Comparison> = {}): Comparison {
  const side = {
    simulations: 30,
    agent_versions: [3],
    agent_config_hashes: ['a'.repeat(64)],
    scenario_hashes: ['b'.repeat(64)],
    scorecard_hashes: ['c'.repeat(64)],
    cost_usd: 0.25,
  };
  return Comparison.parse({
    id: 'cmp_1',
    created_at: '2026-06-10T12:00:00.000Z',
    baseline: { ...side, execution_ids: ['exe_a'] },
    candidate: { ...side, execution_ids: ['exe_b', 'exe_c'], agent_versions: [4], cost_usd: null },
    rescored_baseline: false,
    overall: stats(9, 8, { verdict: 'no_significant_difference' }),
    rows: [
      caseRow('Improved', stats(2, 9, { verdict: 'improved' })),
      caseRow('Slight drop', stats(9, 8, { verdict: 'no_significant_difference' })),
      caseRow('Big drop', stats(10, 2, { verdict: 'regressed' }), true),
      caseRow(
        'Drop, not adjusted',
        stats(10, 5, { verdict: 'regressed', adjusted: 'no_significant_difference' }),
      ),
    ],
    metrics: [{ ...stats(9, 9, { verdict: 'no_significant_difference' }), metric: 'Politeness' }],
    unpaired: [],
    errored: { baseline: 0, candidate: 4, simulation_ids: ['sim_1', 'sim_2', 'sim_3', 'sim_4'] },
    flakiness: {
      baseline: { pass_k: 1, disagreeing: [] },
      candidate: {
        pass_k: 0.75,
        disagreeing: [{ scenario_id: 'scn_Big drop', persona_id: 'per_1' }],
      },
    },
    sample_size: { runs_per_group: 120, executions: 6 },
    conditions_differ: [
      { field: 'scorecard', baseline: ['c'.repeat(64)], candidate: ['d'.repeat(64)] },
    ],
    voice: {
      rows: [voiceRow('response_latency_p50_ms', 'no_significant_difference')],
      by_conditions: [
        { noise: 'cafe', line: 'mobile', rows: [voiceRow('talk_over_count', 'regressed')] },
      ],
    },
    ...overrides,
  });
}

describe('comparison reports', () => {
  it('sorts case rows by adjusted verdict, then verdict, then the largest drop', () => {
    expect(rowsByRegression(comparison().rows).map((r) => r.scenario_name)).toEqual([
      'Big drop',
      'Drop, not adjusted',
      'Slight drop',
      'Improved',
    ]);
  });

  it('regressed (exit 1) on the overall verdict or an overall voice row, never a condition group', () => {
    expect(comparisonRegressed(comparison())).toBe(false);
    expect(
      comparisonRegressed(comparison({ overall: stats(10, 2, { verdict: 'regressed' }) })),
    ).toBe(true);
    const voice = comparison().voice!;
    expect(
      comparisonRegressed(
        comparison({
          voice: { ...voice, rows: [voiceRow('response_latency_p90_ms', 'regressed')] },
        }),
      ),
    ).toBe(true);
  });

  it('text: both sides, the warning, the verdict, rows worst first, voice rows and counts', () => {
    const text = comparisonText(comparison()).join('\n');
    expect(text).toContain(
      'Baseline:  exe_a: 30 simulation(s), agent version(s) 3, cost $0.2500\nCandidate: exe_b, exe_c: 30 simulation(s), agent version(s) 4, cost unpriced',
    );
    expect(text).toContain(
      "Warning: the scorecard differs (baseline cccccccccccc…, candidate dddddddddddd…): a test edit is no agent change (--rescore-baseline scores the baseline with the candidate's scorecard).",
    );
    expect(text).toContain(
      'Overall: no_significant_difference: pass rate 90.0% [0.0, 100.0] -> 80.0% [0.0, 100.0], difference -10.0 pts [-40.0, 20.0] (10 pairs)',
    );
    expect(text).toContain('  score 80 -> 70, difference -10 [-15, -5]');
    const cases = text.split('\n').filter((l) => l.includes('\tFrank') || l.includes(' x Frank'));
    expect(cases[0]).toMatch(/^regressed\tregressed\tBig drop x Frank\t10\t.*\tcandidate\t0\/1$/);
    expect(text).toContain('Voice (lower is better):');
    expect(text).toContain(
      'no_significant_difference\tresponse_latency_p50_ms\t10/10\t800\t950.5\t+150.5 [90, 210]',
    );
    expect(text).toContain('Voice, noise cafe, line mobile:');
    expect(text).toContain('Flaky cases: baseline 0 (pass^k 1.00), candidate 1 (pass^k 0.75)');
    expect(text).toContain('Errored (no outcome, in no statistic): baseline 0, candidate 4');
  });

  it('markdown: the same tables, pipes in names escaped', () => {
    const c = comparison();
    c.rows[0]!.scenario_name = 'A | B';
    const md = comparisonMarkdown(c);
    expect(md).toContain('| adjusted verdict | verdict | case | pairs |');
    expect(md).toContain('| improved | improved | A \\| B x Frank |');
    expect(md).toContain('### Voice, noise cafe, line mobile');
    expect(md).toContain('  - score 80 -> 70');
  });

  it('JUnit: a case per row, failing when regressed (case and metric rows by adjusted verdict)', () => {
    const suite = comparisonJunitSuite(comparison(), 'ci');
    expect(suite.cases.map((c) => [c.name, c.failures.length > 0])).toEqual([
      ['overall', false],
      ['Big drop x Frank', true],
      ['Drop, not adjusted x Frank', false],
      ['Slight drop x Frank', false],
      ['Improved x Frank', false],
      ['metric Politeness', false],
      ['voice response_latency_p50_ms', false],
    ]);
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(
      junitXml(suite),
    ) as { testsuites: { testsuite: { tests: string; failures: string } } };
    expect(xml.testsuites.testsuite).toMatchObject({ tests: '7', failures: '1' });
  });
});
