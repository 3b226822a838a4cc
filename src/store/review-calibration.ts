import { sql, type RawBuilder } from 'kysely';
import type { Disagreement, LabelCount } from '../domain/calibration.js';
import { targetOf, type ReviewTargetRef } from '../domain/reviews.js';
import { jsonElements, type JsonElements } from './sql/json-elements.js';
import { valueList, type StoreContext } from './sql/query.js';

/** Disagreements listed per metric, latest first: enough to read, bounded at any label count. */
export const DISAGREEMENTS_SHOWN = 100;

/** Which labels: one scorecard's, of these metrics, in one workspace. */
interface CalibrationScope {
  workspaceId: string;
  scorecardId: string;
  metricIds: readonly string[];
}

/**
 * The judge's verdict on each label's result, as SQL over `reviews r` joined to its simulation `s`
 * or its call's evaluation `e`. The verdict recorded with the label serves while the result is the
 * one labelled (made at `judged_at`: a simulation's results never change once it ended, a call's
 * change when it is scored again); otherwise it is read from the results' JSON, as judgeSnapshot
 * reads it (null for an errored or not applicable result).
 */
function judgeVerdict(json: JsonElements) {
  const fresh = sql`r.judged_at = COALESCE(s.ended_at, e.evaluated_at)`;
  const element = json.elementWhere(
    sql`COALESCE(s.results, e.results)`,
    'metric_id',
    sql`r.metric_id`,
  );
  const readPassed = sql`CASE WHEN ${json.text(element, 'error')} IS NOT NULL
      OR COALESCE(${json.text(element, 'status')}, 'passed') IN ('error', 'not_applicable') THEN NULL
    ELSE CASE ${json.flag(element, 'passed')} WHEN 'true' THEN 1 WHEN 'false' THEN 0 END END`;
  return {
    passed: sql`CASE WHEN ${fresh} THEN r.judge_passed ELSE ${readPassed} END`,
    judgeModel: sql`CASE WHEN ${fresh} THEN r.judge_model ELSE ${json.text(element, 'judge_model')} END`,
    rubricHash: sql`CASE WHEN ${fresh} THEN r.rubric_hash ELSE ${json.text(element, 'rubric_hash')} END`,
  };
}

/**
 * The latest label of each labelled result, not_applicable left out, with the result it is about
 * (a simulation of the workspace, or the call's evaluation on this scorecard): labels whose result
 * is gone drop out.
 */
const LABELLED = sql`FROM reviews r
  LEFT JOIN simulations s ON r.target_kind = 'simulation' AND s.id = r.target_id
    AND s.workspace_id = r.workspace_id
  LEFT JOIN call_evaluations e ON r.target_kind = 'call' AND e.call_id = r.target_id
    AND e.workspace_id = r.workspace_id AND e.scorecard_id = r.scorecard_id`;
const LATEST_WITH_RESULT = sql`r.is_latest = 1 AND r.verdict <> 'not_applicable'
  AND (s.id IS NOT NULL OR e.call_id IS NOT NULL)`;

const humanPassed = sql`CASE r.verdict WHEN 'pass' THEN 1 ELSE 0 END`;

interface CountRow {
  metric_id: string;
  jp: number | null;
  verdict: string;
  jm: string | null;
  rh: string | null;
  n: number;
}

interface DisagreementRow {
  target_kind: string;
  target_id: string;
  jp: number;
  verdict: string;
  reviewer_id: string;
  reviewer_name: string;
  note: string | null;
}

const verdictWord = (passed: boolean): 'pass' | 'fail' => (passed ? 'pass' : 'fail');

const disagreementOf = (row: DisagreementRow): Disagreement => ({
  target: targetOf({ kind: row.target_kind, id: row.target_id } as ReviewTargetRef),
  judge: verdictWord(Number(row.jp) === 1),
  human: verdictWord(row.verdict === 'pass'),
  reviewer: { id: row.reviewer_id, name: row.reviewer_name },
  note: row.note,
});

export interface MetricLabels {
  counts: LabelCount[];
  disagreements: Disagreement[];
}

export function createReviewCalibration(ctx: StoreContext) {
  const judge = judgeVerdict(jsonElements(ctx.dialect));

  /** The labels counted by metric, judge verdict, human verdict and the judge that gave it. */
  async function counts(scope: CalibrationScope): Promise<CountRow[]> {
    const { rows } = await sql<CountRow>`
      SELECT r.metric_id, ${judge.passed} AS jp, r.verdict, ${judge.judgeModel} AS jm,
        ${judge.rubricHash} AS rh, COUNT(*) AS n
      ${LABELLED}
      WHERE r.workspace_id = ${scope.workspaceId} AND r.scorecard_id = ${scope.scorecardId}
        AND r.metric_id IN (${valueList(scope.metricIds)}) AND ${LATEST_WITH_RESULT}
      GROUP BY r.metric_id, jp, r.verdict, jm, rh`.execute(ctx.db);
    return rows;
  }

  /** A metric's latest disagreements: walked from its newest label until enough are found. */
  async function disagreements(scope: CalibrationScope, metricId: string) {
    const passed = judge.passed as RawBuilder<number | null>;
    const { rows } = await sql<DisagreementRow>`
      SELECT r.target_kind, r.target_id, ${passed} AS jp, r.verdict, r.reviewer_id,
        r.reviewer_name, r.note
      ${LABELLED}
      WHERE r.workspace_id = ${scope.workspaceId} AND r.scorecard_id = ${scope.scorecardId}
        AND r.metric_id = ${metricId} AND ${LATEST_WITH_RESULT} AND ${passed} <> ${humanPassed}
      ORDER BY r.updated_at DESC, r.rowid DESC
      LIMIT ${DISAGREEMENTS_SHOWN}`.execute(ctx.db);
    return rows.map(disagreementOf);
  }

  return {
    /**
     * Each metric's labels against the judge: the counts (one aggregate over the labels, never
     * read out one by one) and its latest disagreements.
     */
    async calibrationLabels(scope: CalibrationScope): Promise<Map<string, MetricLabels>> {
      const byMetric = new Map<string, MetricLabels>(
        scope.metricIds.map((id) => [id, { counts: [], disagreements: [] }]),
      );
      if (scope.metricIds.length === 0) return byMetric;
      for (const row of await counts(scope)) {
        // Labels of results without a usable verdict (an error, not applicable) are not counted.
        if (row.jp === null) continue;
        byMetric.get(row.metric_id)?.counts.push({
          judgePassed: Number(row.jp) === 1,
          humanPassed: row.verdict === 'pass',
          judgeModel: row.jm,
          rubricHash: row.rh,
          count: Number(row.n),
        });
      }
      for (const [metricId, labels] of byMetric)
        labels.disagreements = await disagreements(scope, metricId);
      return byMetric;
    },
  };
}
