import { z } from 'zod';
import { EvaluationReason } from '../domain/monitoring.js';
import { QueryBoolean } from './common.js';

/**
 * What production monitoring adds to the agent reads: the filters of `GET /v1/agents/{id}/calls`
 * and the `production` block of `GET /v1/agents/{id}/analytics` (src/simulations/production-analytics.ts).
 */

/** Filters of the imported calls by their evaluation and version; all given must hold. */
export const CallFilterQuery = {
  passed: QueryBoolean.optional().describe(
    'true: evaluated and passed; false: evaluated and not passed (true or false)',
  ),
  minScore: z.coerce
    .number()
    .min(0)
    .max(100)
    .optional()
    .describe('Evaluated with at least this score'),
  maxScore: z.coerce
    .number()
    .min(0)
    .max(100)
    .optional()
    .describe('Evaluated with at most this score'),
  metric: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe('A metric id: the calls whose evaluation failed it'),
  version: z.coerce
    .number()
    .int()
    .min(1)
    .optional()
    .describe("The call's agentVersion (GET /v1/agents/{id}/versions)"),
  reason: EvaluationReason.optional().describe('Why the call was evaluated'),
};

const Rate = z.number().nullable().describe('Percent passed; null for none');
const Score = z.number().nullable().describe('Mean score; null for none');

export const ProductionFiguresSchema = z
  .object({
    workspaceId: z.string(),
    scorecardId: z.string().describe('The monitoring scorecard now in force'),
    evaluated: z.number().int(),
    passed: z.number().int(),
    passRate: Rate,
    avgScore: Score,
    categoryBreakdown: z
      .array(z.object({ category: z.string(), score: z.number() }))
      .describe('Mean score per category; a category only ever not applicable is left out'),
    byDay: z
      .array(
        z.object({
          date: z.string().describe('YYYY-MM-DD (UTC) the calls started on'),
          evaluated: z.number().int(),
          passRate: Rate,
          avgScore: Score,
        }),
      )
      .describe('Oldest first'),
    byVersion: z
      .array(
        z.object({
          version: z
            .number()
            .int()
            .nullable()
            .describe('null: calls before the first synced version'),
          evaluated: z.number().int(),
          passRate: Rate,
          avgScore: Score,
        }),
      )
      .describe('Oldest first, null last'),
  })
  .nullable()
  .describe(
    "Evaluations with the current monitoring scorecard of the agent's calls started in the window; null when never monitored",
  );
