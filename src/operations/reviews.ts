import { z } from 'zod';
import { isoNow } from '../clock.js';
import { judgeSnapshot, MetricCalibration, metricCalibration } from '../domain/calibration.js';
import { Review, ReviewTarget, ReviewVerdict, reviewOf, targetRefOf } from '../domain/reviews.js';
import type { MetricConfigOf } from '../domain/metrics.js';
import { invalidField, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { connectionFor } from '../llm/settings.js';
import { rubricHash } from '../simulations/judge.js';
import type { TargetPlace } from '../store/reviews.js';
import type { Scorecard } from '../store/scorecards.js';
import { Id, pagination, Pagination, Paging, WorkspaceParams } from './common.js';
import { defineOperation, withStatus, type OperationContext } from './types.js';

/*
 * Human review and judge calibration (#37): people label a metric's result on a call or a
 * simulation pass, fail or not applicable; the calibration holds the judge's verdicts against
 * their latest labels. The reviewer is whoever calls: an API key, a workspace token, the app's user.
 */

const base = '/api/v1/workspaces/:workspace_id';

const ReviewInput = {
  target: ReviewTarget.describe('The judged result: {callId} or {simulationId}'),
  metricId: Id.describe("A metric of the target's scorecard"),
  verdict: ReviewVerdict,
  note: z.string().trim().max(2_000).nullable().optional(),
};

/**
 * The scorecard a label of this target goes with: the one the call's evaluation was made with (in
 * this workspace only), or the simulation's scenario's. Refusals name the field at fault.
 */
async function labelledResult(
  ctx: OperationContext,
  workspaceId: string,
  target: z.infer<typeof ReviewTarget>,
): Promise<{ scorecard: Scorecard; place: TargetPlace }> {
  const field = 'callId' in target ? 'target.callId' : 'target.simulationId';
  const place =
    'callId' in target
      ? await ctx.store.reviews.callPlace(target.callId)
      : await ctx.store.reviews.simulationPlace(workspaceId, target.simulationId);
  if (!place) {
    throw 'callId' in target
      ? notFound('call', target.callId)
      : notFound('simulation', target.simulationId);
  }
  if (place.workspaceId === null)
    throw invalidField(field, 'has no evaluation yet: a call is reviewed once it has been scored');
  if (place.workspaceId !== workspaceId)
    throw invalidField(
      field,
      'was evaluated in another workspace: a call is reviewed in the workspace its evaluation was made in',
    );
  const scorecard = place.scorecardId
    ? await ctx.store.scorecards.get(workspaceId, place.scorecardId)
    : undefined;
  if (!scorecard) throw invalidField(field, 'was not scored on a scorecard of this workspace');
  return { scorecard, place };
}

/** The judge model now in force: the judge role's model as simulations pick it (settings, else the default). */
async function judgeModelInForce(ctx: OperationContext): Promise<string | null> {
  const connection = await connectionFor(ctx.store, ctx.secrets, 'judge', ctx.llmDefault);
  return connection?.model ?? null;
}

const rubricOf = (config: Record<string, unknown>) => {
  const { criterion, requirements } = config as MetricConfigOf<'llm_judge'>;
  return { criterion, ...(requirements ? { requirements } : {}) };
};

export const reviewOperations = [
  defineOperation({
    name: 'reviews.create',
    summary:
      "Label a metric's result on a call or simulation pass, fail or not applicable (201); the same reviewer's second label of it replaces the first (200)",
    http: { method: 'POST', path: `${base}/reviews`, status: 201 },
    params: WorkspaceParams,
    body: ReviewInput,
    output: z.object({ review: Review }),
    async handler({ workspace_id, target, metricId, verdict, note }, ctx) {
      const { scorecard, place } = await labelledResult(ctx, workspace_id, target);
      if (!scorecard.metrics.some((m) => m.id === metricId))
        throw invalidField('metricId', `is not a metric of scorecard '${scorecard.name}'`);
      const now = isoNow(ctx.clock);
      const label = {
        id: newId('rev', ctx.clock.now()),
        scorecardId: scorecard.id,
        metricId,
        target: targetRefOf(target),
        verdict,
        note: note ?? null,
        reviewer: ctx.caller.user,
        created_at: now,
        updated_at: now,
      };
      // The judge's verdict as it stands, kept beside the label: the calibration counts it
      // without reading the result again while the result stays the one labelled.
      const judged = {
        ...judgeSnapshot(place.results === null ? null : JSON.parse(place.results), metricId),
        judgedAt: place.judgedAt,
      };
      const { review, replaced } = await ctx.store.reviews.upsert(workspace_id, label, judged);
      return withStatus(replaced ? 200 : 201, { review: reviewOf(review) });
    },
  }),

  defineOperation({
    name: 'reviews.list',
    summary:
      "List the workspace's labels, the latest changed first, by scorecard, metric or target",
    http: { method: 'GET', path: `${base}/reviews` },
    params: WorkspaceParams,
    query: {
      scorecardId: Id.optional(),
      metricId: Id.optional(),
      callId: Id.optional(),
      simulationId: Id.optional(),
      ...Paging,
    },
    output: z.object({ reviews: z.array(Review), pagination: Pagination }),
    async handler({ workspace_id, ...q }, ctx) {
      const { items, total } = await ctx.store.reviews.list(workspace_id, q);
      return { reviews: items.map(reviewOf), pagination: pagination(total, q.limit, q.offset) };
    },
  }),

  defineOperation({
    name: 'scorecards.calibration',
    summary:
      "How far each llm_judge metric's judge agrees with people: labels, agreement, Cohen's kappa, confusion, disagreements and status",
    http: { method: 'GET', path: `${base}/scorecards/:scorecard_id/calibration` },
    params: { ...WorkspaceParams, scorecard_id: Id },
    output: z.object({
      calibration: z.object({ scorecard_id: z.string(), metrics: z.array(MetricCalibration) }),
    }),
    async handler({ workspace_id, scorecard_id }, ctx) {
      const scorecard = await ctx.store.scorecards.get(workspace_id, scorecard_id);
      if (!scorecard) throw notFound('scorecard', scorecard_id);
      const judged = scorecard.metrics.filter((m) => m.type === 'llm_judge');
      const [judgeModel, labels] = await Promise.all([
        judgeModelInForce(ctx),
        ctx.store.reviews.calibrationLabels({
          workspaceId: workspace_id,
          scorecardId: scorecard_id,
          metricIds: judged.map((m) => m.id),
        }),
      ]);
      const metrics = judged.map((m) =>
        metricCalibration(m, {
          ...labels.get(m.id)!,
          now: { judgeModel, rubricHash: rubricHash(rubricOf(m.config)) },
        }),
      );
      return { calibration: { scorecard_id, metrics } };
    },
  }),
];
