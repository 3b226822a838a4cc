import { z } from 'zod';
import { isoNow } from '../clock.js';
import { notFound } from '../errors.js';
import { startCheckedExecution } from '../simulations/start.js';
import type { Execution } from '../store/simulations.js';
import { Id, pagination, Pagination, Paging, Timestamp, WorkspaceParams } from './common.js';
import { defineOperation, withStatus, type OperationContext } from './types.js';

const NameNow = z.string().nullable().describe('Its name now; null once it is deleted');
const ExecutionSchema = z.object({
  id: z.string(),
  scenario_id: z.string(),
  scenario_name: NameNow,
  status: z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']),
  simulations_created: z.number().int(),
  estimated_completion: Timestamp.nullable(),
  created_at: Timestamp,
  variables: z.record(z.string(), z.string()),
  runs: z.number().int(),
  channel: z.string().nullable(),
  counts: z.object({
    queued: z.number().int(),
    running: z.number().int(),
    completed: z.number().int(),
    failed: z.number().int(),
    cancelled: z.number().int(),
  }),
  avg_score: z.number().nullable(),
  pass_rate: z
    .number()
    .nullable()
    .describe(
      'Percent of judged simulations that passed; failed (errored) ones count as not passed',
    ),
});
const SimulationSchema = z.object({
  id: z.string(),
  execution_id: z.string(),
  scenario_id: z.string(),
  persona_id: z.string().nullable(),
  agent_id: z.string().nullable(),
  scenario_name: NameNow,
  persona_name: NameNow,
  agent_name: NameNow,
  channel: z.string(),
  status: z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']),
  created_at: Timestamp,
  started_at: Timestamp.nullable(),
  ended_at: Timestamp.nullable(),
  duration_ms: z.number().int().nullable(),
  end_reason: z
    .enum(['agent_ended', 'caller_ended', 'max_turns', 'max_duration', 'error'])
    .nullable(),
  turns: z.array(
    z.object({
      role: z.enum(['caller', 'agent', 'tool']),
      text: z.string(),
      at_ms: z.number(),
      latency_ms: z.number().nullable(),
      tool: z
        .object({
          name: z.string(),
          arguments: z.unknown(),
          result: z.unknown(),
          success: z.boolean().nullable().describe('null when the agent did not say'),
        })
        .optional(),
      expectation: z
        .object({ passed: z.boolean(), problems: z.array(z.string()) })
        .optional()
        .describe('Scripted lines: the expectation on this agent reply, when the line had one'),
    }),
  ),
  score: z.number().nullable(),
  passed: z.boolean().nullable(),
  results: z.array(
    z.object({
      metric_id: z.string(),
      name: z.string(),
      category: z.string(),
      type: z.string(),
      score: z.number().nullable(),
      passed: z.boolean(),
      reasoning: z.string(),
      error: z.string().optional(),
    }),
  ),
  usage: z.object({
    llm_calls: z.number().int(),
    input_tokens: z.number().int(),
    output_tokens: z.number().int(),
  }),
  error: z.string().optional(),
});

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
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

export const executionOperations = [
  defineOperation({
    name: 'scenarios.execute',
    summary:
      'Execute a scenario: one simulation per persona, target agent and run, each agent on its channel (or `channel` for all)',
    http: { method: 'POST', path: `${base}/scenarios/:scenario_id/execute`, status: 202 },
    params: { ...WorkspaceParams, scenario_id: Id },
    body: {
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
    },
    output: z.object({
      execution: ExecutionSchema.pick({
        id: true,
        scenario_id: true,
        status: true,
        simulations_created: true,
        estimated_completion: true,
      }),
    }),
    async handler({ workspace_id, scenario_id, variables, runs, channel }, ctx) {
      const execution = await startCheckedExecution(ctx, workspace_id, scenario_id, {
        variables: variables ?? {},
        runs: runs ?? 1,
        channel,
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
    output: z.object({ executions: z.array(ExecutionSchema), pagination: Pagination }),
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
    output: z.object({ execution: ExecutionSchema }),
    async handler({ workspace_id, execution_id, wait }, ctx) {
      let execution = await getExecution(ctx, workspace_id, execution_id);
      if (wait && !TERMINAL.has(execution.status)) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, wait * 1000);
          const off = ctx.events.subscribe((e) => {
            // A cancel ends an execution whose simulations were all still queued: no simulation finishes then.
            const ending = e.type === 'simulation.finished' || e.type === 'execution.cancelled';
            if (ending && e.data.executionId === execution_id)
              // Deleted meanwhile (the read fails): the answer below says so.
              getExecution(ctx, workspace_id, execution_id).then(
                (now) => TERMINAL.has(now.status) && done(),
                done,
              );
          });
          function done() {
            clearTimeout(timer);
            off();
            resolve();
          }
        });
        execution = await getExecution(ctx, workspace_id, execution_id);
      }
      return { execution };
    },
  }),
  defineOperation({
    name: 'executions.cancel',
    summary: 'Cancel: queued simulations stop at once, running ones at their next turn',
    http: { method: 'POST', path: `${base}/executions/:execution_id/cancel` },
    params: { ...WorkspaceParams, execution_id: Id },
    output: z.object({ execution: ExecutionSchema }),
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
      return { simulations: await ctx.store.simulations.simulationsOf(execution_id) };
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
      return { simulation };
    },
  }),
];
