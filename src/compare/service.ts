import { isoNow, type Clock } from '../clock.js';
import type { Comparison, ComparisonSideInput } from '../domain/comparisons.js';
import { AppError, invalidField } from '../errors.js';
import { newId } from '../ids.js';
import type { Store } from '../store/index.js';
import type { ComparedSimulation } from '../store/comparison-reads.js';
import { buildComparisonConcurrently } from './build.js';
import { rescoreBaseline, type JudgeSource } from './rescore.js';

export type { JudgeSource } from './rescore.js';

/**
 * Comparisons made and stored: what the operations, experiments and the drift suite call. Its
 * deps are narrow so that the runner's side can pass them: the store, the clock, and the judge
 * model (rescoring calls it when the candidate's scorecard asks for one).
 */
export interface ComparisonDeps {
  store: Pick<
    Store,
    'simulations' | 'comparisons' | 'comparisonReads' | 'scenarios' | 'scorecards'
  >;
  clock: Clock;
  judge: JudgeSource;
}

/** A side: execution ids (pooled), or as the API takes it (errors then name its own field). */
export type SideRequest = readonly string[] | ComparisonSideInput;

export interface ComparisonRequest {
  workspaceId: string;
  baseline: SideRequest;
  candidate: SideRequest;
  rescoreBaseline?: boolean;
}

type SideName = 'baseline' | 'candidate';

/** A side's ids, each with the field that names it in an error. */
function idsOf(side: SideName, request: SideRequest): { id: string; field: string }[] {
  if ('executionId' in request) return [{ id: request.executionId, field: `${side}.executionId` }];
  const ids: readonly string[] = 'executionIds' in request ? request.executionIds : request;
  return ids.map((id, i) => ({ id, field: `${side}.executionIds[${i}]` }));
}

/**
 * Both sides' executions, checked before anything is read or written: each id this workspace's
 * (400 naming its field), none listed twice on a side, then none still queued or running (409).
 */
async function checkedSides(
  deps: ComparisonDeps,
  request: ComparisonRequest,
): Promise<Record<SideName, string[]>> {
  const sides = {
    baseline: idsOf('baseline', request.baseline),
    candidate: idsOf('candidate', request.candidate),
  };
  const running: string[] = [];
  // Whether each is open (queued or running), read at once: its counts and figures are not needed.
  const open = await deps.store.comparisonReads.openOf(request.workspaceId, [
    ...new Set([...sides.baseline, ...sides.candidate].map((x) => x.id)),
  ]);
  for (const [side, ids] of Object.entries(sides) as [SideName, typeof sides.baseline][]) {
    if (ids.length === 0) throw invalidField(`${side}.executionIds`, 'at least one execution');
    for (const [i, { id, field }] of ids.entries()) {
      if (ids.findIndex((x) => x.id === id) < i)
        throw invalidField(field, `execution '${id}' is listed twice on the ${side} side`);
      const isOpen = open.get(id);
      if (isOpen === undefined)
        throw invalidField(field, `execution '${id}' was not found in this workspace`);
      if (isOpen) running.push(id);
    }
  }
  if (running.length)
    throw new AppError(
      'execution_running',
      409,
      `Execution ${running.join(', ')} is still queued or running: compare once ${running.length > 1 ? 'they have' : 'it has'} ended`,
      { executionIds: running },
    );
  return { baseline: sides.baseline.map((x) => x.id), candidate: sides.candidate.map((x) => x.id) };
}

/** The names, now, of the scenarios and personas the simulations ran. */
function namesOf(deps: ComparisonDeps, sims: readonly ComparedSimulation[]) {
  const ids = new Set<string>();
  for (const s of sims) {
    ids.add(s.scenario_id);
    if (s.persona_id !== null) ids.add(s.persona_id);
  }
  return deps.store.comparisonReads.namesOf([...ids]);
}

/**
 * Compares two sets of executions: validates the request (400 naming the field, 409
 * `execution_running`; nothing is stored then), reads both sides, rescores the baseline when
 * asked, builds the comparison, stores it and answers it.
 */
export async function createComparison(
  deps: ComparisonDeps,
  request: ComparisonRequest,
): Promise<Comparison> {
  const ids = await checkedSides(deps, request);
  const [baseline, candidate] = await Promise.all([
    deps.store.comparisonReads.comparedOf(ids.baseline),
    deps.store.comparisonReads.comparedOf(ids.candidate),
  ]);
  const rescored = request.rescoreBaseline === true;
  const scoredBaseline = rescored
    ? await rescoreBaseline(
        deps,
        { workspaceId: request.workspaceId, executionIds: ids.baseline },
        { baseline, candidate },
      )
    : baseline;
  const built = await buildComparisonConcurrently({
    baseline: { executionIds: ids.baseline, simulations: scoredBaseline },
    candidate: { executionIds: ids.candidate, simulations: candidate },
    rescored,
    names: await namesOf(deps, [...baseline, ...candidate]),
  });
  const now = deps.clock.now();
  const comparison: Comparison = {
    id: newId('cmp', now),
    created_at: isoNow(deps.clock),
    ...built,
  };
  await deps.store.comparisons.insert(request.workspaceId, comparison);
  return comparison;
}
