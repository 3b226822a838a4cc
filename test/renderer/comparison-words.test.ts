import { describe, expect, it } from 'vitest';
import { VERDICTS, VOICE_MEASURES } from '../../src/domain/comparisons.js';
import { pairUp } from '../../renderer/src/ui/comparisonPairing.js';
import {
  MEASURES,
  VERDICT_WORDS,
  caseName,
  costWords,
  measureDifference,
  measureValue,
  pointsWords,
  runsNeededWords,
  sampleSizeWords,
  scoreWords,
  shortId,
  signed,
  type Stats,
  type VoiceRow,
} from '../../renderer/src/ui/comparisonWords.js';

const stats = (over: Partial<Stats>): Stats => ({
  pairs: 3,
  baseline: { passed: 3, total: 3, pass_rate: 1, interval: [0.44, 1] },
  candidate: { passed: 2, total: 3, pass_rate: 2 / 3, interval: [0.21, 0.94] },
  difference: { value: -1 / 3, interval: [-0.79, 0.24] },
  score: { baseline_mean: 90, candidate_mean: 70, difference: -20, interval: [-40, 0] },
  verdict: 'insufficient_data',
  adjusted_verdict: 'insufficient_data',
  runs_needed: 5,
  ...over,
});

const voice = (over: Partial<VoiceRow>): VoiceRow => ({
  measure: 'response_latency_p50_ms',
  direction: 'lower_is_better',
  calls: { baseline: 6, candidate: 6 },
  baseline: 400,
  candidate: 520,
  difference: 120,
  interval: [61.4, 180.2],
  verdict: 'regressed',
  ...over,
});

describe('a comparison in words', () => {
  it('says a pass-rate difference in points with its interval, real minus signs', () => {
    expect(pointsWords(-0.12, [-0.25, 0.01])).toBe('−12 points, 95% CI −25 to +1');
    expect(pointsWords(0.3, [0.1, 0.5])).toBe('+30 points, 95% CI +10 to +50');
    expect(pointsWords(0, null)).toBe('0 points');
    expect(pointsWords(null, null)).toBe('no pairs to compare');
    expect(signed(-0.0001)).toBe('0');
  });

  it('says a score change to a tenth of a point', () => {
    expect(scoreWords(-45.21, [-50, -40.06])).toBe('−45.2, 95% CI −50.0 to −40.1');
    expect(scoreWords(null, null)).toBe('no scores to compare');
  });

  it('names every verdict and every voice measure of the engine', () => {
    for (const v of VERDICTS) expect(VERDICT_WORDS[v]).toMatch(/^[A-Z][a-z ]+$/);
    for (const m of VOICE_MEASURES) expect(MEASURES[m].label).not.toContain('_');
  });

  it('says how many runs would give a verdict, only when there is none', () => {
    expect(runsNeededWords(stats({}))).toBe('5 runs per case needed for a verdict');
    expect(runsNeededWords(stats({ verdict: 'regressed', runs_needed: null }))).toBeNull();
  });

  it('says voice measures in their units, the unit once in a difference', () => {
    expect(measureDifference(voice({}))).toBe('+120 ms, 95% CI +61 to +180 ms');
    expect(measureValue('wer', 0.125)).toBe('12.5%');
    expect(
      measureDifference(voice({ measure: 'wer', difference: 0.02, interval: [0.011, 0.03] })),
    ).toBe('+2.0%, 95% CI +1.1 to +3.0%');
    expect(measureValue('talk_over_count', 0.333)).toBe('0.33 per call');
    expect(measureDifference(voice({ difference: null, interval: null }))).toBe('—');
  });

  it('gives the sample-size advice, costs, cases and ids in plain words', () => {
    expect(sampleSizeWords({ runs_per_group: 197, executions: 10 })).toBe(
      'To detect a 10-point change: 197 runs per case, 10 executions (of at most 20 runs)',
    );
    expect(sampleSizeWords({ runs_per_group: 1, executions: 1 })).toContain(
      '1 run per case, 1 execution ',
    );
    expect(costWords(null)).toBe('unpriced');
    expect(costWords(0.01234)).toBe('$0.0123');
    expect(costWords(12.5)).toBe('$12.50');
    expect(caseName({ scenario_name: 'Refunds', persona_name: 'Dana', persona_id: 'p1' })).toBe(
      'Refunds × Dana',
    );
    expect(caseName({ scenario_name: null, persona_name: null, persona_id: 'p1' })).toBe(
      '(deleted scenario) × (deleted persona)',
    );
    // Ids begin with their kind and time, alike for a day: the tail tells them apart.
    expect(shortId('exe_0mx05bs0w9m2zim88co1r')).toBe('im88co1r');
  });
});

describe('pairing transcripts as the engine pairs simulations', () => {
  const sim = (id: string, agent: string, run: number | null) => ({ id, agent_id: agent, run });

  it('pairs the same agent and run, the k-th repeat with the k-th, and leaves the rest alone', () => {
    const pairs = pairUp(
      [sim('b1', 'a', 1), sim('b2', 'a', 2), sim('b3', 'a', 1), sim('b4', 'b', 1)],
      [sim('c2', 'a', 2), sim('c1', 'a', 1), sim('c3', 'a', 1), sim('c5', 'a', 3)],
    );
    const ids = pairs.map((p) => [p.baseline?.id ?? null, p.candidate?.id ?? null]);
    expect(ids).toEqual([
      ['b1', 'c1'],
      ['b3', 'c3'],
      ['b4', null],
      ['b2', 'c2'],
      [null, 'c5'],
    ]);
  });
});
