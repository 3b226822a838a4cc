import { z } from 'zod';
import { WorkspaceParams } from '../common.js';
import { defineOperation } from '../types.js';
import { applySuite } from './apply.js';
import { SUITE_BODY_LIMIT, SuiteFiles } from './parse.js';
import { planSuite } from './plan.js';
import { SuitePlan } from './plan-types.js';

/** `suite.plan` and `suite.apply` (#38): what importing a suite's files would do, and doing it. */

const SuiteBody = {
  files: SuiteFiles.describe(
    'The suite folder: callbench.yaml, <kind>/<key>.yaml, scenarios/<key>.cases.csv (at most 10,000 files of 1 MiB)',
  ),
  secrets: z
    .record(z.string().max(200), z.string().max(65_536))
    .optional()
    .describe(
      "Values of the files' ${secret:NAME} placeholders (never read from the engine's environment)",
    ),
  prune: z
    .boolean()
    .optional()
    .describe(
      "Delete the workspace's personas, scorecards, scenarios and schedules that no file defines (never tools, alerts or agents)",
    ),
};

const http = (verb: string) => ({
  method: 'POST' as const,
  path: `/api/v1/workspaces/:workspace_id/suite/${verb}`,
  bodyLimit: SUITE_BODY_LIMIT,
});

export const suitePlanOperations = [
  defineOperation({
    name: 'suite.plan',
    summary:
      "What applying a suite's files would do (create, update with the changed fields, delete, unchanged) and every problem with its file, line and column; writes nothing",
    http: http('plan'),
    params: WorkspaceParams,
    body: SuiteBody,
    output: z.object({ plan: SuitePlan }),
    async handler({ workspace_id, ...request }, ctx) {
      const { plan } = await planSuite(ctx, ctx.store, workspace_id, request);
      return { plan };
    },
  }),
  defineOperation({
    name: 'suite.apply',
    summary:
      "Apply a suite's files in one transaction: all or nothing (400 suite_invalid listing the problems); a workspace token may not create or update tools, alerts or agents (403)",
    http: http('apply'),
    params: WorkspaceParams,
    body: SuiteBody,
    output: z.object({ plan: SuitePlan, applied: z.literal(true) }),
    async handler({ workspace_id, ...request }, ctx) {
      return { plan: await applySuite(ctx, workspace_id, request), applied: true as const };
    },
  }),
];
