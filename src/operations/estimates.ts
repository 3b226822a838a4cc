import { z } from 'zod';
import { estimateExecution } from '../simulations/cost-estimate.js';
import { planExecution } from '../simulations/start.js';
import { Id, WorkspaceParams } from './common.js';
import { executeBody } from './executions.js';
import { defineOperation } from './types.js';

/** What a run of a scenario would cost: priced, never run, nothing queued. */
export const estimateOperations = [
  defineOperation({
    name: 'scenarios.estimate',
    summary:
      "What executing a scenario would cost at today's prices: its past completed simulations' mean tokens per role (never run: maxTurns at a default per reply), and audio calls at their whole maxDurationMs. Nothing is queued",
    http: {
      method: 'POST',
      path: '/api/v1/workspaces/:workspace_id/scenarios/:scenario_id/estimate',
    },
    params: { ...WorkspaceParams, scenario_id: Id },
    body: executeBody,
    output: z.object({
      estimate: z.object({
        simulations: z.number().int().describe('Simulations the execution would create'),
        cost_usd: z
          .number()
          .nullable()
          .describe('Dollars; null while a model, engine or provider in play has no price'),
        unpriced_models: z.array(z.string()),
      }),
    }),
    async handler({ workspace_id, scenario_id, ...body }, ctx) {
      // The execution's own plan, so the count is the one execute would create; problems that
      // would refuse the run do not keep it from being priced.
      const request = { ...body, variables: body.variables ?? {}, runs: body.runs ?? 1 };
      const plan = await planExecution(ctx, workspace_id, scenario_id, {
        ...request,
        sharedAgentsOnly: ctx.caller.kind === 'token',
      });
      const { simulations, cost_usd, unpriced_models } = await estimateExecution(
        ctx,
        plan,
        request,
      );
      return { estimate: { simulations, cost_usd, unpriced_models } };
    },
  }),
];
