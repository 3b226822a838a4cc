import type { ApiClient } from '../client/api-client.js';
import type { Comparison } from '../domain/comparisons.js';
import { ENDED_EXECUTION_STATUSES } from '../domain/executions.js';
import { compareSides } from './compare.js';
import type { OperationOutput } from '../operations/catalogue.js';
import { CannotRun } from './local-api.js';

/*
 * `callbench run … --baseline <execution id|last>`: the execution a run is compared with, and the
 * seed it passes on, so that an audio run meets the same line losses and caller behaviours as its
 * baseline did (common random numbers: what differs is the agent, not the dice).
 */

type Execution = OperationOutput<'executions.get'>['execution'];
type ListedExecution = OperationOutput<'executions.list'>['executions'][number];

// The engine's own list: a status added to it (a spent budget's) ends a baseline here too.
const ENDED = new Set<string>(ENDED_EXECUTION_STATUSES);

/** Most executions a `last` lookup reads, newest first, before it gives up. */
const LAST_LOOKUP_MAX = 5_000;
const PAGE = 100;

/** The newest ended execution of the scenario, read page by page (the list is newest first). */
async function lastEnded(
  client: ApiClient,
  where: { workspace_id: string; scenario_id: string },
): Promise<ListedExecution | undefined> {
  for (let offset = 0; offset < LAST_LOOKUP_MAX; offset += PAGE) {
    const { executions, pagination } = await client.invoke('executions.list', {
      workspace_id: where.workspace_id,
      limit: PAGE,
      offset,
    });
    const found = executions.find(
      (e) => e.scenario_id === where.scenario_id && ENDED.has(e.status),
    );
    if (found || offset + PAGE >= pagination.total) return found;
  }
  return undefined;
}

/**
 * The baseline asked for: an execution id, or `last` (the newest ended execution of the scenario,
 * looked up before this run starts). Refused before anything runs when there is none or it has
 * not ended: the comparison could not be made.
 */
export async function baselineOf(
  client: ApiClient,
  where: { workspace_id: string; scenario_id: string; scenario_name: string; ref: string },
): Promise<Execution | ListedExecution> {
  const baseline =
    where.ref === 'last'
      ? await lastEnded(client, where)
      : (
          await client.invoke('executions.get', {
            workspace_id: where.workspace_id,
            execution_id: where.ref,
          })
        ).execution;
  if (!baseline)
    throw new CannotRun(
      `No ended execution of "${where.scenario_name}" to compare with (--baseline last)`,
    );
  if (!ENDED.has(baseline.status))
    throw new CannotRun(
      `The baseline ${baseline.id} is still ${baseline.status}: wait for it to end`,
    );
  return baseline;
}

/**
 * The seed this run takes from its baseline: its root seed when both are audio runs (a text run
 * takes no seed; the engine refuses one), else none.
 */
export function seedFromBaseline(
  baseline: Pick<Execution, 'line'>,
  runMode: 'text' | 'audio',
): number | undefined {
  const seed = baseline.line?.seed;
  return runMode === 'audio' && typeof seed === 'number' ? seed : undefined;
}

/**
 * The run compared with its baseline, or the reason it could not be (the run's own report still
 * goes out before the command exits 2).
 */
export async function compareWithBaseline(
  client: ApiClient,
  ids: { workspace_id: string; baseline_id: string; candidate_id: string },
): Promise<Comparison | CannotRun> {
  try {
    return await compareSides(client, {
      workspace_id: ids.workspace_id,
      baseline: { executionId: ids.baseline_id },
      candidate: { executionId: ids.candidate_id },
    });
  } catch (e) {
    if (e instanceof CannotRun) return e;
    throw e;
  }
}
