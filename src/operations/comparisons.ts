import { z } from 'zod';
import { judgeFromSettings } from '../compare/judge-source.js';
import { createComparison } from '../compare/service.js';
import { Comparison, ComparisonSideInput } from '../domain/comparisons.js';
import { notFound } from '../errors.js';
import { Id, pagination, Pagination, Paging, WorkspaceParams } from './common.js';
import { defineOperation, withStatus } from './types.js';

/** Comparisons of a baseline and a candidate: made (and stored) once, then read. */

const base = '/api/v1/workspaces/:workspace_id';

export const comparisonOperations = [
  defineOperation({
    name: 'comparisons.create',
    summary:
      'Compare a candidate with a baseline (each one execution, or several pooled): pass rates with intervals, score differences, verdicts per case, metric and voice measure; stored',
    http: { method: 'POST', path: `${base}/comparisons`, status: 201 },
    params: WorkspaceParams,
    body: {
      baseline: ComparisonSideInput.describe('{executionId} or {executionIds: [...]} (pooled)'),
      candidate: ComparisonSideInput.describe('{executionId} or {executionIds: [...]} (pooled)'),
      rescoreBaseline: z
        .boolean()
        .optional()
        .describe(
          "Score the baseline's stored transcripts again with the candidate's scorecard, for this comparison only",
        ),
    },
    output: z.object({ comparison: Comparison }),
    async handler({ workspace_id, baseline, candidate, rescoreBaseline }, ctx) {
      const comparison = await createComparison(
        { store: ctx.store, clock: ctx.clock, judge: judgeFromSettings(ctx) },
        { workspaceId: workspace_id, baseline, candidate, rescoreBaseline },
      );
      return withStatus(201, { comparison });
    },
  }),
  defineOperation({
    name: 'comparisons.list',
    summary: 'Stored comparisons, newest first',
    http: { method: 'GET', path: `${base}/comparisons` },
    params: WorkspaceParams,
    query: Paging,
    output: z.object({ comparisons: z.array(Comparison), pagination: Pagination }),
    async handler({ workspace_id, limit, offset }, ctx) {
      const { items, total } = await ctx.store.comparisons.list(workspace_id, { limit, offset });
      return { comparisons: items, pagination: pagination(total, limit, offset) };
    },
  }),
  defineOperation({
    name: 'comparisons.get',
    summary: 'A stored comparison',
    http: { method: 'GET', path: `${base}/comparisons/:comparison_id` },
    params: { ...WorkspaceParams, comparison_id: Id },
    output: z.object({ comparison: Comparison }),
    async handler({ workspace_id, comparison_id }, ctx) {
      const comparison = await ctx.store.comparisons.get(workspace_id, comparison_id);
      if (!comparison) throw notFound('comparison', comparison_id);
      return { comparison };
    },
  }),
];
