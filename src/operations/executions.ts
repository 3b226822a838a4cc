import { LineChoice } from '../domain/callers.js';
import { z } from 'zod';
import { AudioFigures, SIMULATION_MODES } from '../domain/audio.js';
import { ENDED_EXECUTION_STATUSES, Execution } from '../domain/executions.js';
import { RunNames, Simulation } from '../domain/simulations.js';
import { figuresOverCalls } from '../voice/call-measures.js';
import { isoNow } from '../clock.js';
import { AppError, notFound } from '../errors.js';
import { FileAnswer, FileData } from './file-answer.js';
import { startCheckedExecution } from '../simulations/start.js';
import { Id, pagination, Pagination, Paging, WorkspaceParams } from './common.js';
import { defineOperation, withStatus, type OperationContext } from './types.js';

/**
 * A simulation as answered: the stored record with the names of what it ran, where its recording
 * is (never the file's name), and its error only when it has one.
 */
const SimulationSchema = Simulation.omit({ recording: true })
  .extend({ error: z.string().optional() })
  .extend(RunNames.shape)
  .extend({
    recording_url: z
      .string()
      .nullable()
      .describe('Audio mode: the stereo WAV (agent left, caller right), while it is kept'),
  });
type SimulationAnswer = z.infer<typeof SimulationSchema>;

const TERMINAL = new Set<string>(ENDED_EXECUTION_STATUSES);

/** What scenarios.execute takes (and scenarios.estimate, to price the same run). */
export const executeBody = {
  variables: z
    .record(z.string(), z.string())
    .optional()
    .describe(
      "Values of the scenario's promptVariables ({{name}}); missing ones take their defaultValue",
    ),
  runs: z
    .number()
    .int()
    .min(1)
    .max(20)
    .optional()
    .describe('Repeats of each persona-agent pair (default 1)'),
  channel: z
    .enum(['provider', 'replica', 'http'])
    .optional()
    .describe(
      "Overrides each agent's own channel for this execution: provider (its provider's text chat API), replica (its effective configuration on the replica model), http (agents at a URL)",
    ),
  mode: z
    .enum(SIMULATION_MODES)
    .optional()
    .describe(
      "text, or audio (real audio calls through the provider's audio channel); absent: the scenario's audio.enabled",
    ),
  line: LineChoice.optional().describe(
    "Audio mode: the line of every simulation; absent: the scenario's audio.line, else studio",
  ),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 32 - 1)
    .optional()
    .describe(
      "Audio mode: the root seed of the line losses, jitter and caller behaviours (drawn when absent): run 1 takes it, run r a seed derived from (seed, r); the same seed gives run r the same line and caller. A run 1 simulation's line.seed replays it",
    ),
  maxCostUsd: z
    .number()
    .min(0)
    .max(1_000_000)
    .optional()
    .describe(
      'A hard cap on what the execution spends, in dollars at the prices in force (PATCH /v1/settings {prices}): each simulation reserves its estimated share as it starts; those the cap leaves no budget for end skipped',
    ),
};

const base = '/api/v1/workspaces/:workspace_id';

async function getExecution(
  ctx: OperationContext,
  workspaceId: string,
  id: string,
): Promise<Execution> {
  const e = await ctx.store.simulations.execution(workspaceId, id);
  if (!e) throw notFound('execution', id);
  return e;
}

/**
 * Resolves once the execution has ended (or is gone), or after `wait` seconds. It listens before
 * it looks: a simulation that finishes while the status is being read (a round trip to
 * PostgreSQL) is then still heard, where looking first could miss it and hold the answer for the
 * whole wait.
 */
function untilEnded(
  ctx: OperationContext,
  at: { workspaceId: string; executionId: string; wait: number },
): Promise<void> {
  if (ctx.stopping.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const check = () =>
      getExecution(ctx, at.workspaceId, at.executionId).then(
        (now) => TERMINAL.has(now.status) && done(),
        // Deleted meanwhile (the read fails): the answer after this says so.
        done,
      );
    const timer = setTimeout(done, at.wait * 1000);
    // The engine is stopping: answer with the execution as it stands rather than hold the stop.
    ctx.stopping.addEventListener('abort', done, { once: true });
    const off = ctx.events.subscribe((e) => {
      // A cancel ends an execution whose simulations were all still queued: no simulation finishes then.
      const ending = e.type === 'simulation.finished' || e.type === 'execution.cancelled';
      if (ending && e.data.executionId === at.executionId) void check();
    });
    function done() {
      clearTimeout(timer);
      ctx.stopping.removeEventListener('abort', done);
      off();
      resolve();
    }
    void check();
  });
}

export const executionOperations = [
  defineOperation({
    name: 'scenarios.execute',
    summary:
      'Execute a scenario: one simulation per persona, target agent and run, each agent on its channel (or `channel` for all)',
    http: { method: 'POST', path: `${base}/scenarios/:scenario_id/execute`, status: 202 },
    params: { ...WorkspaceParams, scenario_id: Id },
    body: executeBody,
    output: z.object({
      execution: Execution.pick({
        id: true,
        scenario_id: true,
        status: true,
        simulations_created: true,
        estimated_completion: true,
      }),
    }),
    async handler(
      { workspace_id, scenario_id, variables, runs, channel, mode, line, seed, maxCostUsd },
      ctx,
    ) {
      const execution = await startCheckedExecution(ctx, workspace_id, scenario_id, {
        variables: variables ?? {},
        runs: runs ?? 1,
        channel,
        mode,
        line,
        seed,
        maxCostUsd,
        sharedAgentsOnly: ctx.caller.kind === 'token',
      });
      return withStatus(202, { execution });
    },
  }),
  defineOperation({
    name: 'executions.list',
    summary: 'Executions, newest first',
    http: { method: 'GET', path: `${base}/executions` },
    params: WorkspaceParams,
    query: Paging,
    output: z.object({ executions: z.array(Execution), pagination: Pagination }),
    async handler({ workspace_id, limit, offset }, ctx) {
      const { items, total } = await ctx.store.simulations.listExecutions(
        workspace_id,
        limit,
        offset,
      );
      return { executions: items, pagination: pagination(total, limit, offset) };
    },
  }),
  defineOperation({
    name: 'executions.get',
    summary:
      'An execution with its counts, average score and pass rate; ?wait=S holds the answer up to S seconds (at most 120) until it ends',
    http: { method: 'GET', path: `${base}/executions/:execution_id` },
    params: { ...WorkspaceParams, execution_id: Id },
    query: { wait: z.coerce.number().min(0).max(120).optional() },
    output: z.object({
      execution: Execution.extend({
        audio: AudioFigures.nullable().describe(
          'Its audio simulations that ended; null when it has none',
        ),
      }),
    }),
    async handler({ workspace_id, execution_id, wait }, ctx) {
      let execution = await getExecution(ctx, workspace_id, execution_id);
      if (wait && !TERMINAL.has(execution.status)) {
        await untilEnded(ctx, { workspaceId: workspace_id, executionId: execution_id, wait });
        execution = await getExecution(ctx, workspace_id, execution_id);
      }
      return { execution: { ...execution, audio: await audioOf(ctx, execution_id) } };
    },
  }),
  defineOperation({
    name: 'executions.cancel',
    summary: 'Cancel: queued simulations stop at once, running ones at their next turn',
    http: { method: 'POST', path: `${base}/executions/:execution_id/cancel` },
    params: { ...WorkspaceParams, execution_id: Id },
    output: z.object({ execution: Execution }),
    async handler({ workspace_id, execution_id }, ctx) {
      await getExecution(ctx, workspace_id, execution_id);
      await ctx.store.simulations.cancel(workspace_id, execution_id, isoNow(ctx.clock));
      ctx.runner.cancelled(execution_id);
      ctx.events.emit('execution.cancelled', { executionId: execution_id });
      return { execution: await getExecution(ctx, workspace_id, execution_id) };
    },
  }),
  defineOperation({
    name: 'executions.simulations',
    summary: 'The simulations of an execution, in the order they were queued',
    http: { method: 'GET', path: `${base}/executions/:execution_id/simulations` },
    params: { ...WorkspaceParams, execution_id: Id },
    output: z.object({ simulations: z.array(SimulationSchema) }),
    async handler({ workspace_id, execution_id }, ctx) {
      await getExecution(ctx, workspace_id, execution_id);
      const sims = await ctx.store.simulations.simulationsOf(execution_id);
      return { simulations: sims.map((s) => presented(s, workspace_id)) };
    },
  }),
  defineOperation({
    name: 'simulations.list',
    summary:
      "Simulations, newest first, without turns and results (for long lists); `execution_id` keeps one execution's",
    http: { method: 'GET', path: `${base}/simulations` },
    params: WorkspaceParams,
    query: { ...Paging, execution_id: Id.optional() },
    output: z.object({
      simulations: z.array(
        SimulationSchema.pick({
          id: true,
          execution_id: true,
          scenario_id: true,
          persona_id: true,
          agent_id: true,
          scenario_name: true,
          persona_name: true,
          agent_name: true,
          channel: true,
          mode: true,
          status: true,
          created_at: true,
          ended_at: true,
          duration_ms: true,
          end_reason: true,
          score: true,
          passed: true,
        }).extend({
          turn_count: z.number().int(),
          error: z.string().nullable(),
        }),
      ),
      pagination: Pagination,
    }),
    async handler({ workspace_id, limit, offset, execution_id }, ctx) {
      const { items, total } = await ctx.store.simulations.listSummaries(workspace_id, {
        executionId: execution_id,
        limit,
        offset,
      });
      return { simulations: items, pagination: pagination(total, limit, offset) };
    },
  }),
  defineOperation({
    name: 'simulations.get',
    summary:
      "One simulation: its turns (caller, agent, tool) with latencies, score and each metric's result",
    http: { method: 'GET', path: `${base}/simulations/:simulation_id` },
    params: { ...WorkspaceParams, simulation_id: Id },
    output: z.object({ simulation: SimulationSchema }),
    async handler({ workspace_id, simulation_id }, ctx) {
      const simulation = await ctx.store.simulations.simulation(workspace_id, simulation_id);
      if (!simulation) throw notFound('simulation', simulation_id);
      return { simulation: presented(simulation, workspace_id) };
    },
  }),
  defineOperation({
    name: 'simulations.recording',
    summary:
      'The stereo WAV of an audio simulation (agent left, caller right, one clock); Range requests answer 206',
    http: { method: 'GET', path: `${base}/simulations/:simulation_id/recording` },
    params: { ...WorkspaceParams, simulation_id: Id },
    output: FileData,
    async handler({ workspace_id, simulation_id }, ctx) {
      const simulation = await ctx.store.simulations.simulation(workspace_id, simulation_id);
      if (!simulation) throw notFound('simulation', simulation_id);
      const name = simulation.recording;
      const size = name === null ? null : await ctx.recordings.size(name);
      if (name === null || size === null)
        throw new AppError(
          'not_found',
          404,
          simulation.mode === 'audio'
            ? `Simulation ${simulation_id} has no recording (not recorded yet, or removed after the retention days)`
            : `Simulation ${simulation_id} ran in text mode: it has no recording`,
        );
      return new FileAnswer('audio/wav', size, (range) => ctx.recordings.read(name, range));
    },
  }),
];

/** Latency over an execution's ended audio calls (every agent reply), first audio over the calls. */
async function audioOf(ctx: OperationContext, executionId: string) {
  return figuresOverCalls(await ctx.store.simulations.audioCalls({ executionId }));
}

/**
 * A simulation as answered (SimulationSchema), from the stored one: the names after its own fields,
 * its recording's URL for the file's name, and no error at all when it has none.
 */
function presented(sim: Simulation & RunNames, workspaceId: string): SimulationAnswer {
  const { recording, error, scenario_name, persona_name, agent_name, ...stored } = sim;
  return {
    ...stored,
    // Removed after the retention days: the summary says so too.
    audio: stored.audio && { ...stored.audio, recording: recording !== null },
    ...(error ? { error } : {}),
    scenario_name,
    persona_name,
    agent_name,
    recording_url: recording
      ? `/api/v1/workspaces/${workspaceId}/simulations/${sim.id}/recording`
      : null,
  };
}
