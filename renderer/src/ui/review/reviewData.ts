import type { OutputOf } from '../../client';
import { client } from '../../stores/session';
import { fmtDate } from '../common';
import { callTurns } from '../callTurns';
import {
  itemsOf,
  latestLabels,
  simulationTurns,
  orderQueue,
  type MetricCalibration,
  type Review,
  type ReviewItem,
  type ReviewSource,
} from './reviewQueue';

/*
 * Everything the review screen needs, loaded once when it opens: the scorecard, the judged
 * simulations and scored calls with their turns, the labels so far and the calibration. Moving
 * through the queue then reads nothing, so the next item shows at once.
 */

export type Scorecard = OutputOf<'scorecards.get'>['scorecard'];

/** What is reviewed: a scorecard's judged results in a workspace, or one agent's calls only. */
export interface ReviewScope {
  workspaceId: string;
  scorecardId: string;
  /** From an agent's Production tab: that agent's scored calls, no simulations. */
  agentId?: string;
}

export interface LoadedReview {
  scorecard: Scorecard;
  items: ReviewItem[];
  labels: Map<string, Review>;
  calibration: MetricCalibration[];
}

/** Recent executions read per scorecard: enough to label for a session, bounded in requests. */
const EXECUTIONS_READ = 20;
/** Labels read back (pages of 100, the list's most). */
const LABEL_PAGES = 5;

async function simulationSources(scope: ReviewScope): Promise<ReviewSource[]> {
  const workspace_id = scope.workspaceId;
  const [{ scenarios }, { executions }] = await Promise.all([
    client().invoke('scenarios.list', { workspace_id, limit: 100 }),
    client().invoke('executions.list', { workspace_id, limit: 100 }),
  ]);
  const scored = new Set(
    scenarios.filter((s) => s.scorecard === scope.scorecardId).map((s) => s.id),
  );
  const runs = executions.filter((e) => scored.has(e.scenario_id)).slice(0, EXECUTIONS_READ);
  const answers = await Promise.all(
    runs.map((e) =>
      client().invoke('executions.simulations', { workspace_id, execution_id: e.id }),
    ),
  );
  return answers
    .flatMap((a) => a.simulations)
    .filter((s) => s.results.length > 0)
    .map((s) => ({
      target: { simulationId: s.id },
      title: `Simulation · ${s.scenario_name ?? 'scenario'} · ${s.persona_name ?? 'persona'}`,
      score: s.score,
      results: s.results,
      turns: simulationTurns(s.turns),
    }));
}

async function callSources(scope: ReviewScope): Promise<ReviewSource[]> {
  const agents = scope.agentId
    ? [{ id: scope.agentId, name: '' }]
    : (await client().invoke('agents.list', {})).agents.filter(
        (a) => a.monitoring?.workspaceId === scope.workspaceId,
      );
  const pages = await Promise.all(
    agents.map(async (a) => ({
      agent: a,
      calls: (await client().invoke('agents.calls', { agent_id: a.id, limit: 100 })).calls,
    })),
  );
  return pages.flatMap(({ agent, calls }) =>
    calls.flatMap((call) => {
      const evaluation = call.evaluation;
      if (
        !evaluation ||
        evaluation.scorecardId !== scope.scorecardId ||
        evaluation.workspaceId !== scope.workspaceId
      )
        return [];
      const who = agent.name ? `${agent.name} · ` : '';
      return [
        {
          target: { callId: call.id },
          title: `Call · ${who}${fmtDate(call.startedAt)}`,
          score: evaluation.score,
          results: evaluation.results,
          turns: callTurns(call),
        },
      ];
    }),
  );
}

async function allLabels(scope: ReviewScope): Promise<Review[]> {
  const reviews: Review[] = [];
  for (let page = 0; page < LABEL_PAGES; page++) {
    const answer = await client().invoke('reviews.list', {
      workspace_id: scope.workspaceId,
      scorecardId: scope.scorecardId,
      limit: 100,
      offset: page * 100,
    });
    reviews.push(...answer.reviews);
    if (!answer.pagination.has_more) break;
  }
  return reviews;
}

/** The calibration of the scorecard's llm_judge metrics (what the Scorecards screen shows too). */
export async function loadCalibration(scope: ReviewScope): Promise<MetricCalibration[]> {
  const answer = await client().invoke('scorecards.calibration', {
    workspace_id: scope.workspaceId,
    scorecard_id: scope.scorecardId,
  });
  return answer.calibration.metrics;
}

/** The queue of a scope, ordered for review, with its labels and calibration. */
export async function loadReview(scope: ReviewScope): Promise<LoadedReview> {
  const [{ scorecard }, sims, calls, reviews, calibration] = await Promise.all([
    client().invoke('scorecards.get', {
      workspace_id: scope.workspaceId,
      scorecard_id: scope.scorecardId,
    }),
    scope.agentId ? Promise.resolve([]) : simulationSources(scope),
    callSources(scope),
    allLabels(scope),
    loadCalibration(scope),
  ]);
  const judged = new Set(scorecard.metrics.filter((m) => m.type === 'llm_judge').map((m) => m.id));
  const labels = latestLabels(reviews);
  const items = orderQueue(itemsOf([...sims, ...calls], judged), {
    passThreshold: scorecard.passThreshold,
    agreement: new Map(calibration.map((m) => [m.metric_id, m.agreement])),
    labelled: new Set(labels.keys()),
  });
  return { scorecard, items, labels, calibration };
}
