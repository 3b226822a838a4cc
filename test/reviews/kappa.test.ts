import { describe, expect, it } from 'vitest';
import { cohensKappa, passFailKappa } from '../../src/domain/kappa.js';
import {
  metricCalibration,
  type LabelCount,
  type JudgeInForce,
} from '../../src/domain/calibration.js';

describe("Cohen's kappa on textbook tables", () => {
  it('the classic 2×2 of 50 proposals: p_o 0.7, p_e 0.5, kappa 0.4', () => {
    // Rater A rows (yes, no), rater B columns: 20 both yes, 5 A only, 10 B only, 15 both no.
    expect(
      cohensKappa([
        [20, 5],
        [10, 15],
      ]),
    ).toEqual({ n: 50, observed: 0.7, expected: 0.5, kappa: expect.closeTo(0.4, 10) });
  });

  it('the same agreement (60%) gives different kappas as the marginals differ', () => {
    // The textbook pair: 45/15/25/15 and 25/35/5/35, both p_o = 0.60.
    const first = cohensKappa([
      [45, 15],
      [25, 15],
    ]);
    const second = cohensKappa([
      [25, 35],
      [5, 35],
    ]);
    expect(first.observed).toBeCloseTo(0.6, 12);
    expect(first.expected).toBeCloseTo(0.54, 12);
    expect(first.kappa).toBeCloseTo(0.1304, 4);
    expect(second.observed).toBeCloseTo(0.6, 12);
    expect(second.expected).toBeCloseTo(0.46, 12);
    expect(second.kappa).toBeCloseTo(0.2593, 4);
  });

  it('three categories: 100 diagnoses, p_o 0.89, p_e 0.66, kappa 0.23 / 0.34', () => {
    const agreement = cohensKappa([
      [75, 1, 4],
      [5, 4, 1],
      [0, 0, 10],
    ]);
    expect(agreement.observed).toBeCloseTo(0.89, 12);
    expect(agreement.expected).toBeCloseTo(0.66, 12);
    expect(agreement.kappa).toBeCloseTo(0.23 / 0.34, 12);
    expect(agreement.kappa).toBeCloseTo(0.6765, 4);
  });

  it('perfect agreement is 1, agreement exactly opposite to chance is -1', () => {
    expect(
      cohensKappa([
        [10, 0],
        [0, 10],
      ]).kappa,
    ).toBe(1);
    expect(
      cohensKappa([
        [0, 10],
        [10, 0],
      ]).kappa,
    ).toBe(-1);
  });

  it('is undefined (null) with no items, or when both raters gave one same answer throughout', () => {
    expect(
      cohensKappa([
        [0, 0],
        [0, 0],
      ]),
    ).toEqual({ n: 0, observed: null, expected: null, kappa: null });
    const allPass = cohensKappa([
      [20, 0],
      [0, 0],
    ]);
    expect(allPass).toMatchObject({ n: 20, observed: 1, expected: 1, kappa: null });
  });

  it('reads a pass/fail confusion with the judge in rows and the human in columns', () => {
    expect(
      passFailKappa({
        both_pass: 20,
        judge_pass_human_fail: 5,
        judge_fail_human_pass: 10,
        both_fail: 15,
      }).kappa,
    ).toBeCloseTo(0.4, 12);
  });

  it('refuses a table that is not square or has a negative count', () => {
    expect(() => cohensKappa([[1, 2]])).toThrow(/square/);
    expect(() =>
      cohensKappa([
        [1, -1],
        [0, 1],
      ]),
    ).toThrow(/≥ 0/);
  });
});

describe('a metric calibration from its label counts', () => {
  const now: JudgeInForce = { judgeModel: 'j1', rubricHash: 'h1' };
  const counts = (bothPass: number, jpHf: number, jfHp: number, bothFail: number, judge = now) =>
    [
      [true, true, bothPass],
      [true, false, jpHf],
      [false, true, jfHp],
      [false, false, bothFail],
    ].map(([judgePassed, humanPassed, count]): LabelCount => ({
      judgePassed: judgePassed as boolean,
      humanPassed: humanPassed as boolean,
      judgeModel: judge.judgeModel,
      rubricHash: judge.rubricHash,
      count: count as number,
    }));
  const of = (c: LabelCount[], force = now) =>
    metricCalibration(
      { id: 'met_1', name: 'Polite' },
      { counts: c, disagreements: [], now: force },
    );

  it('under 10 labels: insufficient data, agreement and kappa left out', () => {
    const c = of(counts(5, 1, 1, 2));
    expect(c).toMatchObject({
      status: 'insufficient_data',
      labels: 9,
      agreement: null,
      kappa: null,
    });
    expect(c.confusion).toEqual({
      both_pass: 5,
      judge_pass_human_fail: 1,
      judge_fail_human_pass: 1,
      both_fail: 2,
    });
  });

  it('10 to 49 labels: provisional with figures; from 50: calibrated', () => {
    expect(of(counts(4, 1, 2, 3))).toMatchObject({
      status: 'provisional',
      labels: 10,
      agreement: 0.7,
    });
    const fifty = of(counts(20, 5, 10, 15));
    expect(fifty).toMatchObject({ status: 'calibrated', labels: 50, agreement: 0.7 });
    expect(fifty.kappa).toBeCloseTo(0.4, 12);
    expect(of(counts(19, 5, 10, 15)).status).toBe('provisional');
  });

  it('stale when labelled results carry another judge model or rubric, figures still shown', () => {
    const byOldModel = of(counts(20, 5, 10, 15, { judgeModel: 'j0', rubricHash: 'h1' }));
    expect(byOldModel).toMatchObject({
      status: 'stale',
      labels: 50,
      agreement: 0.7,
      judge_model: 'j0',
      rubric_hash: 'h1',
      judge_model_in_force: 'j1',
      rubric_hash_in_force: 'h1',
    });
    expect(byOldModel.kappa).toBeCloseTo(0.4, 12);
    expect(of(counts(20, 5, 10, 15), { judgeModel: 'j1', rubricHash: 'h2' }).status).toBe('stale');
    // Some of the results by another judge is enough: the figures mix a judge no longer in force.
    const mixed = [
      ...counts(20, 5, 10, 15),
      ...counts(1, 0, 0, 0, { judgeModel: 'j0', rubricHash: 'h1' }),
    ];
    expect(of(mixed)).toMatchObject({ status: 'stale', labels: 51, judge_model: 'j1' });
  });

  it('no labels: insufficient data, no judge of labelled results to name', () => {
    expect(of([])).toMatchObject({
      status: 'insufficient_data',
      labels: 0,
      agreement: null,
      kappa: null,
      judge_model: null,
      rubric_hash: null,
    });
  });
});
