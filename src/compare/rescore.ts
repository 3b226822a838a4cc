import type { Turn } from '../domain/simulations.js';
import type { Store } from '../store/index.js';
import type { ComparedSimulation, StoredTranscript } from '../store/comparison-reads.js';
import { metricsFor, scoreConversation, type Judge } from '../simulations/scoring.js';
import { scriptReferences } from '../simulations/judge-transcript.js';

/*
 * Rescoring the baseline: its stored transcripts scored again, through the same scoring code a
 * simulation's own run uses (judge model calls included), with the candidate's scorecard. Only the
 * comparison's copy changes: the stored simulations keep their scores and results.
 */

/** The judge model, when a metric asks for one (null: none is configured). */
export type JudgeSource = () => Promise<Judge | null>;

export interface RescoreDeps {
  store: Pick<Store, 'scenarios' | 'scorecards' | 'comparisonReads'>;
  judge: JudgeSource;
}

/** Baseline simulations scored at once: judge calls in flight are bounded. */
const AT_ONCE = 8;

type StoredScenario = NonNullable<Awaited<ReturnType<Store['scenarios']['get']>>>;
type StoredScorecard = Awaited<ReturnType<Store['scorecards']['get']>>;

/**
 * The candidate's scorecard. When its simulations ran under several scorecards (different
 * scorecard_hash), the newest simulation's scenario says which one: the candidate is the change
 * being tested, and its latest run is what it is now.
 */
async function candidateScorecard(
  deps: RescoreDeps,
  workspaceId: string,
  candidate: readonly ComparedSimulation[],
): Promise<StoredScorecard | null> {
  const newest = [...candidate].sort((a, b) => b.created_at.localeCompare(a.created_at))[0];
  if (!newest) return null;
  const scenario = await deps.store.scenarios.get(workspaceId, newest.scenario_id);
  if (!scenario?.scorecard) return null;
  return (await deps.store.scorecards.get(workspaceId, scenario.scorecard)) ?? null;
}

/** The script's expectations that did not hold, as the stored turns recorded them. */
const failedExpectations = (turns: readonly Turn[]): string[] =>
  turns.flatMap((t) =>
    t.expectation && !t.expectation.passed
      ? [`The agent ${t.expectation.problems.join(', ')}.`]
      : [],
  );

interface ScoringInputs {
  scorecard: StoredScorecard | null;
  scenarioOf: (id: string) => Promise<StoredScenario | undefined>;
  judge: () => Promise<Judge | null>;
}

async function rescoreOne(
  sim: ComparedSimulation,
  transcript: StoredTranscript,
  inputs: ScoringInputs,
): Promise<ComparedSimulation> {
  const scenario = await inputs.scenarioOf(sim.scenario_id);
  const metrics = metricsFor(
    inputs.scorecard ?? null,
    scenario?.expectedBehavior ?? null,
    scenario?.expectedOutcome ?? null,
    scenario?.script ?? null,
  );
  const judge = metrics.some((m) => m.type === 'llm_judge') ? await inputs.judge() : null;
  const scored = await scoreConversation(
    metrics,
    {
      turns: transcript.turns,
      endReason: transcript.end_reason ?? 'caller_ended',
      audio: transcript.audio,
      failedExpectations: failedExpectations(transcript.turns),
      references: scriptReferences(scenario?.script, transcript.turns),
    },
    inputs.scorecard?.passThreshold ?? 70,
    judge,
  );
  return { ...sim, ...scored };
}

/** Runs fn over items, at most `limit` at a time, answering in the items' order. */
async function bounded<T, R>(items: readonly T[], limit: number, fn: (t: T) => Promise<R>) {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Memoised by key: each scenario read, and the judge opened, once per comparison. */
function once<K, V>(load: (k: K) => Promise<V>): (k: K) => Promise<V> {
  const seen = new Map<K, Promise<V>>();
  return (k) => {
    let v = seen.get(k);
    if (!v) seen.set(k, (v = load(k)));
    return v;
  };
}

/**
 * The baseline's completed simulations scored again with the candidate's scorecard (the others,
 * with no conversation to score, stay as they are). Nothing is written.
 */
export async function rescoreBaseline(
  deps: RescoreDeps,
  at: { workspaceId: string; executionIds: string[] },
  sides: { baseline: ComparedSimulation[]; candidate: ComparedSimulation[] },
): Promise<ComparedSimulation[]> {
  const scorecard = await candidateScorecard(deps, at.workspaceId, sides.candidate);
  const transcripts = new Map(
    (await deps.store.comparisonReads.transcriptsOf(at.executionIds)).map((t) => [t.id, t]),
  );
  const judge = once(() => deps.judge());
  const inputs: ScoringInputs = {
    scorecard,
    scenarioOf: once((id: string) => deps.store.scenarios.get(at.workspaceId, id)),
    judge: () => judge(undefined),
  };
  return bounded(sides.baseline, AT_ONCE, (sim) => {
    const transcript = transcripts.get(sim.id);
    return sim.status === 'completed' && transcript
      ? rescoreOne(sim, transcript, inputs)
      : Promise.resolve(sim);
  });
}
