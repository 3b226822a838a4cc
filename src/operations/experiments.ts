import { z } from 'zod';
import { SIMULATION_MODES } from '../domain/audio.js';
import { Experiment, type ExperimentRecord } from '../domain/experiments.js';
import { conflict, invalidField, notFound } from '../errors.js';
import { applyExperiment, experimentAnswer, startExperiment } from '../regression/experiments.js';
import { ConfigurationPatch } from './agents.js';
import { Id, Paging, WorkspaceParams } from './common.js';
import { defineOperation, withStatus, type OperationContext } from './types.js';

/**
 * Experiments (regression/experiments.ts): the agent now against the agent with a configuration
 * on top, on the replica, sides interleaved in the queue, compared once both have ended; `apply`
 * makes the configuration the agent's local overrides (never written to the provider).
 */

const base = '/api/v1/workspaces/:workspace_id';
const ExperimentParams = { ...WorkspaceParams, experiment_id: Id };
const ENDED = new Set(['completed', 'failed', 'cancelled']);

async function getExperiment(
  ctx: OperationContext,
  workspaceId: string,
  id: string,
): Promise<ExperimentRecord> {
  const e = await ctx.store.experiments.get(workspaceId, id);
  if (!e) throw notFound('experiment', id);
  return e;
}

/** Waits up to `seconds` for the experiment to end (compared, failed or cancelled). */
function untilEnded(ctx: OperationContext, workspaceId: string, id: string, seconds: number) {
  if (ctx.stopping.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    let checking = false;
    const check = () => {
      if (checking) return;
      checking = true;
      void ctx.store.experiments
        .get(workspaceId, id)
        .then((e) => (!e || ENDED.has(e.state)) && done(), done)
        .finally(() => (checking = false));
    };
    // Told when it ends; looked at every two seconds too (another server's ending may go untold).
    const off = ctx.events.subscribe((event) => {
      if (event.type === 'experiment.finished' && event.data.experimentId === id) check();
    });
    const poll = setInterval(check, 2_000);
    const timer = setTimeout(done, seconds * 1000);
    ctx.stopping.addEventListener('abort', done, { once: true });
    function done() {
      off();
      clearInterval(poll);
      clearTimeout(timer);
      ctx.stopping.removeEventListener('abort', done);
      resolve();
    }
    check();
  });
}

const Answer = z.object({ experiment: Experiment });

export const experimentOperations = [
  defineOperation({
    name: 'experiments.create',
    summary:
      'Run the agent now against the agent with this configuration on top, on the replica, sides interleaved; compared once both end (202). Text only',
    http: { method: 'POST', path: `${base}/experiments`, status: 202 },
    params: WorkspaceParams,
    body: {
      agentId: Id,
      configuration: ConfigurationPatch.describe(
        'The candidate: the agent with this on top (as PATCH /v1/agents/{id} takes it)',
      ),
      scenarioIds: z
        .array(Id)
        .min(1)
        .max(20)
        .describe(
          'Scenarios of this workspace: one execution each per side, pooled in the comparison',
        ),
      runs: z.number().int().min(1).max(20),
      maxCostUsd: z
        .number()
        .min(0)
        .optional()
        .describe('A spend cap on the whole experiment, shared evenly by its executions'),
      mode: z
        .enum(SIMULATION_MODES)
        .optional()
        .describe('text (the default; experiments run on the replica in text only)'),
    },
    output: Answer,
    async handler(
      { workspace_id, agentId, configuration, scenarioIds, runs, maxCostUsd, mode },
      ctx,
    ) {
      if (mode === 'audio')
        throw invalidField('mode', 'experiments run in text only (the replica has no audio call)');
      if (configuration.demo)
        throw invalidField('configuration.demo', 'applies to the demo agent only (provider demo)');
      const record = await startExperiment(ctx, {
        workspaceId: workspace_id,
        agentId,
        configuration,
        scenarioIds,
        runs,
        maxCostUsd,
        sharedAgentsOnly: ctx.caller.kind === 'token',
      });
      return withStatus(202, { experiment: await experimentAnswer(ctx.store, record) });
    },
  }),
  defineOperation({
    name: 'experiments.list',
    summary: 'Experiments, newest first',
    http: { method: 'GET', path: `${base}/experiments` },
    params: WorkspaceParams,
    query: Paging,
    output: z.object({ experiments: z.array(Experiment), total: z.number().int() }),
    async handler({ workspace_id, limit, offset }, ctx) {
      const { items, total } = await ctx.store.experiments.list(workspace_id, { limit, offset });
      return {
        experiments: await Promise.all(items.map((e) => experimentAnswer(ctx.store, e))),
        total,
      };
    },
  }),
  defineOperation({
    name: 'experiments.get',
    summary:
      'An experiment; ?wait=S holds the answer up to S seconds (at most 120) until it ends (compared, failed or cancelled)',
    http: { method: 'GET', path: `${base}/experiments/:experiment_id` },
    params: ExperimentParams,
    query: { wait: z.coerce.number().min(0).max(120).optional() },
    output: Answer,
    async handler({ workspace_id, experiment_id, wait }, ctx) {
      let e = await getExperiment(ctx, workspace_id, experiment_id);
      if (wait && !ENDED.has(e.state)) {
        await untilEnded(ctx, workspace_id, experiment_id, wait);
        e = await getExperiment(ctx, workspace_id, experiment_id);
      }
      return { experiment: await experimentAnswer(ctx.store, e) };
    },
  }),
  defineOperation({
    name: 'experiments.apply',
    summary:
      "Make the experiment's configuration the agent's local overrides (merged as PATCH /v1/agents/{id}; never written to the provider)",
    http: { method: 'POST', path: `${base}/experiments/:experiment_id/apply` },
    // Agents are the engine's, not a workspace's: changing one's overrides takes an API key.
    refuseTokens: "API key required to change an agent's overrides",
    params: ExperimentParams,
    output: Answer,
    async handler({ workspace_id, experiment_id }, ctx) {
      const e = await getExperiment(ctx, workspace_id, experiment_id);
      // Applied while its sides still run, the baseline's remaining runs would test the candidate.
      if (e.state !== 'completed')
        throw conflict(
          `Experiment ${experiment_id} has not completed: apply it once it has been compared`,
        );
      await applyExperiment(ctx, e);
      return {
        experiment: await experimentAnswer(
          ctx.store,
          (await ctx.store.experiments.get(workspace_id, e.id))!,
        ),
      };
    },
  }),
];
