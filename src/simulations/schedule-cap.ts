import { validationError } from '../errors.js';
import { costCap } from './cost-estimate.js';
import { planExecution, type ExecutionDeps } from './start.js';

/**
 * A schedule saved with a cost cap: its runs start as scenarios.execute would (no variables, one
 * run), so the cap is refused on saving for the reason execute refuses it (a model, engine or
 * provider its scenario would use has no price: 400 naming `maxCostUsd` and it), not left to fail
 * at every run. Nothing to check without a cap, or for a scenario that does not exist (the save
 * refuses that itself, naming `scenarioId`).
 */
export async function assertScheduleCapPriced(
  ctx: ExecutionDeps,
  schedule: {
    workspaceId: string;
    scenarioId: string;
    maxCostUsd: number | null | undefined;
    /** Saved with a workspace token: its agents must be shared, checked first as execute does. */
    sharedAgentsOnly: boolean;
  },
): Promise<void> {
  const { workspaceId, scenarioId, maxCostUsd } = schedule;
  if (maxCostUsd === null || maxCostUsd === undefined) return;
  if (!(await ctx.store.scenarios.get(workspaceId, scenarioId))) return;
  const request = { variables: {}, runs: 1, maxCostUsd };
  const plan = await planExecution(ctx, workspaceId, scenarioId, {
    ...request,
    sharedAgentsOnly: schedule.sharedAgentsOnly,
  });
  const { problems } = await costCap(ctx, plan, request);
  if (problems.length)
    throw validationError(problems.map((p) => `${p.path}: ${p.message}`).join('; '), problems);
}
