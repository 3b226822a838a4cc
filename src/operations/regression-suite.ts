import { z } from 'zod';
import type { Agent } from '../domain/agents.js';
import {
  RegressionSuite,
  RegressionSuiteInput,
  SuiteRun,
  type RegressionSuite as Suite,
} from '../domain/regression.js';
import { invalidField, notFound } from '../errors.js';
import { Id } from './common.js';
import { defineOperation, type OperationContext } from './types.js';

/** Where a suite's scenarios are refused: the one field the issue names. */
const SCENARIOS = 'regressionSuite.scenarioIds';

/**
 * The suite as `PATCH /v1/agents/{id}` takes it, checked and made ready to store: its scenarios
 * exist, each once, all in one workspace (which keeps its runs and comparisons). null clears it.
 * Checked before anything is written: a refused request changes nothing.
 */
export async function checkedRegressionSuite(
  ctx: OperationContext,
  agent: Agent,
  input: RegressionSuiteInput | null,
): Promise<Suite | null> {
  if (input === null) return null;
  if (agent.provider === 'http' || agent.provider === 'demo')
    throw invalidField(
      'regressionSuite',
      'this agent is never synced from a provider, so it records no new versions to run a suite on',
    );
  const { scenarioIds, runs } = input;
  const twice = scenarioIds.find((id, i) => scenarioIds.indexOf(id) !== i);
  if (twice) throw invalidField(SCENARIOS, `scenario ${twice} is listed twice`);
  const workspaces = await ctx.store.regressionSuites.scenarioWorkspaces(scenarioIds);
  const unknown = scenarioIds.filter((id) => !workspaces.has(id));
  if (unknown.length) throw invalidField(SCENARIOS, `unknown scenario: ${unknown.join(', ')}`);
  const distinct = [...new Set(workspaces.values())];
  if (distinct.length > 1)
    throw invalidField(
      SCENARIOS,
      `the scenarios belong to ${distinct.length} workspaces (${distinct.join(', ')}): a suite's scenarios are of one workspace`,
    );
  return { workspaceId: distinct[0]!, scenarioIds, runs };
}

/** The body field `PATCH /v1/agents/{id}` takes (added to its body in agents.ts). */
export const RegressionSuiteField = RegressionSuiteInput.nullable()
  .optional()
  .describe(
    'The drift suite: scenarios of one workspace run on this agent alone at each new version a sync records, compared with the previous version’s run (runs 1..20); null clears it',
  );

export const regressionSuiteOperations = [
  defineOperation({
    name: 'agents.regressionRuns',
    summary:
      "The agent's drift suite runs, newest version first: their executions and the comparison with the previous version's run",
    http: { method: 'GET', path: '/v1/agents/:agent_id/regression-runs' },
    params: { agent_id: Id },
    query: { limit: z.coerce.number().int().min(1).max(100).default(20) },
    output: z.object({ regressionSuite: RegressionSuite.nullable(), runs: z.array(SuiteRun) }),
    async handler({ agent_id, limit }, ctx) {
      const agent = await ctx.store.agents.get(agent_id);
      if (!agent) throw notFound('agent', agent_id);
      return {
        regressionSuite: agent.regressionSuite ?? null,
        runs: await ctx.store.regressionSuites.runsOf(agent_id, limit),
      };
    },
  }),
];
