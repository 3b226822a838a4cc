import { z } from 'zod';
import { Timestamp, UserRef } from './records.js';

/**
 * Human review of a judged result (#37): a person's label of one metric on one call or simulation,
 * defined once. The store keeps one label per reviewer, target and metric; the calibration compares
 * the latest label of each labelled result with the judge's verdict on it.
 */

export const REVIEW_VERDICTS = ['pass', 'fail', 'not_applicable'] as const;
export const ReviewVerdict = z.enum(REVIEW_VERDICTS);
export type ReviewVerdict = z.infer<typeof ReviewVerdict>;

/** What a label is about: an imported call (its evaluation's result) or a simulation's result. */
export const REVIEW_TARGET_KINDS = ['call', 'simulation'] as const;
export const ReviewTargetRef = z.object({
  kind: z.enum(REVIEW_TARGET_KINDS),
  id: z.string(),
});
export type ReviewTargetRef = z.infer<typeof ReviewTargetRef>;

/** A label as stored: its target said as kind and id (two columns). */
export const ReviewRecord = z.object({
  id: z.string(),
  /** The scorecard the labelled result was scored on (the call's evaluation's, or the scenario's). */
  scorecardId: z.string(),
  metricId: z.string(),
  target: ReviewTargetRef,
  verdict: ReviewVerdict,
  note: z.string().nullable(),
  reviewer: UserRef,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type ReviewRecord = z.infer<typeof ReviewRecord>;

/** A target as the API says it: `{callId}` or `{simulationId}`. */
export const ReviewTarget = z.union(
  [
    z.strictObject({ callId: z.string().min(1).max(128) }),
    z.strictObject({ simulationId: z.string().min(1).max(128) }),
  ],
  {
    error: (issue) =>
      issue.input === undefined ? 'is required' : 'must be {callId} or {simulationId}, one of them',
  },
);
export type ReviewTarget = z.infer<typeof ReviewTarget>;

export const targetOf = (ref: ReviewTargetRef): ReviewTarget =>
  ref.kind === 'call' ? { callId: ref.id } : { simulationId: ref.id };

export const targetRefOf = (target: ReviewTarget): ReviewTargetRef =>
  'callId' in target
    ? { kind: 'call', id: target.callId }
    : { kind: 'simulation', id: target.simulationId };

/** A label as answered. */
export const Review = ReviewRecord.omit({ target: true }).extend({ target: ReviewTarget });
export type Review = z.infer<typeof Review>;

export const reviewOf = ({ target, ...rest }: ReviewRecord): Review => ({
  ...rest,
  target: targetOf(target),
});
