import { rubricHash } from '../../src/simulations/judge.js';
import type { TestServer } from '../helpers/server.js';
import { storedRows } from '../helpers/store-under-test.js';

/**
 * What reviews are about, planted as a scored run leaves them: simulations with their results, and
 * imported calls with their evaluation (the judge's results are J's and M's to make; here they are
 * rows as those write them, so labels can be counted against known verdicts).
 */

export const CRITERION = 'The agent is polite';

/** A scorecard with an llm_judge metric and a deterministic one, and a scenario scored on it. */
export async function judgedScorecard(
  s: TestServer,
  workspaceId = s.workspaceId,
  name = 'Support',
) {
  const ws = (method: string, path: string, body?: unknown) =>
    s.call(method, `/api/v1/workspaces/${workspaceId}${path}`, body);
  const scorecard = (
    await ws('POST', '/scorecards', {
      name,
      metrics: [
        { name: 'Polite', type: 'llm_judge', config: { criterion: CRITERION } },
        { name: 'Says order', type: 'contains', config: { text: 'order' } },
      ],
    })
  ).body.data.scorecard;
  const scenario = (
    await ws('POST', '/scenarios', {
      name: 'Where is my order',
      prompt: 'p',
      scorecard: scorecard.id,
    })
  ).body.data.scenario;
  await storedRows(
    s.stored,
    "INSERT INTO executions (id, workspace_id, scenario_id, status, created_at) VALUES (?, ?, ?, 'completed', '2026-06-01T00:00:00Z')",
    [`exe_${scenario.id}`, workspaceId, scenario.id],
  );
  const [judge, plain] = scorecard.metrics as { id: string; name: string }[];
  return { scorecard, scenario, judgeMetric: judge!, plainMetric: plain! };
}

export type JudgedScorecard = Awaited<ReturnType<typeof judgedScorecard>>;

/** A judge's result on the llm_judge metric: passed or failed, errored, or not applicable. */
export function judgeResult(
  metric: { id: string; name: string },
  outcome: 'pass' | 'fail' | 'error' | 'not_applicable',
  judge: { model?: string | null; criterion?: string } = {},
) {
  const passed = outcome === 'pass' ? true : outcome === 'not_applicable' ? null : false;
  return {
    metric_id: metric.id,
    name: metric.name,
    category: 'general',
    type: 'llm_judge',
    score: outcome === 'pass' ? 90 : outcome === 'fail' ? 10 : null,
    passed,
    status: outcome === 'pass' ? 'passed' : outcome === 'fail' ? 'failed' : outcome,
    reasoning: 'r',
    ...(outcome === 'error' ? { error: 'the judge could not score it' } : {}),
    evidence: [],
    judge_model: judge.model === undefined ? 'judge-1' : judge.model,
    rubric_hash: rubricHash({ criterion: judge.criterion ?? CRITERION }),
  };
}

let planted = 0;

/** Completed simulations of the scenario, one per results list, in one statement; their ids. */
export async function plantSimulations(
  s: TestServer,
  fx: JudgedScorecard,
  resultLists: unknown[][],
  workspaceId = s.workspaceId,
): Promise<string[]> {
  const ids = resultLists.map(() => `sim_w${++planted}_${Math.random().toString(36).slice(2, 8)}`);
  const row = "(?, ?, ?, ?, 'completed', 50, 0, '2026-06-01T00:00:00Z', '2026-06-01T00:01:00Z', ?)";
  await storedRows(
    s.stored,
    `INSERT INTO simulations (id, workspace_id, execution_id, scenario_id, status, score, passed, created_at, ended_at, results) VALUES ${ids.map(() => row).join(', ')}`,
    ids.flatMap((id, i) => [
      id,
      workspaceId,
      `exe_${fx.scenario.id}`,
      fx.scenario.id,
      JSON.stringify(resultLists[i]),
    ]),
  );
  return ids;
}

/** A completed simulation of the scenario with these results; answers its id. */
export async function plantSimulation(
  s: TestServer,
  fx: JudgedScorecard,
  results: unknown[],
  workspaceId = s.workspaceId,
): Promise<string> {
  return (await plantSimulations(s, fx, [results], workspaceId))[0]!;
}

/** An agent to own imported calls (as a provider sync would have made it). */
export async function plantAgent(s: TestServer): Promise<string> {
  const id = `agt_w${++planted}`;
  await storedRows(
    s.stored,
    "INSERT INTO agents (id, provider, provider_agent_id, name, status, created_at, updated_at) VALUES (?, 'vapi', ?, 'Support line', 'active', '2026-06-01T00:00:00Z', '2026-06-01T00:00:00Z')",
    [id, id],
  );
  return id;
}

/** An imported call, evaluated (in that workspace, on that scorecard) when `evaluation` is given. */
export async function plantCall(
  s: TestServer,
  agentId: string,
  evaluation?: { workspaceId: string; scorecardId: string; results: unknown[] },
): Promise<string> {
  const id = `call_w${++planted}_${Math.random().toString(36).slice(2, 8)}`;
  await storedRows(
    s.stored,
    "INSERT INTO calls (id, agent_id, provider_call_id, transcript, tool_calls) VALUES (?, ?, ?, '[]', '[]')",
    [id, agentId, `p_${id}`],
  );
  if (evaluation)
    await storedRows(
      s.stored,
      "INSERT INTO call_evaluations (call_id, agent_id, workspace_id, scorecard_id, score, passed, results, reason, evaluated_at) VALUES (?, ?, ?, ?, 50, 0, ?, 'sampled', '2026-06-01T00:02:00Z')",
      [
        id,
        agentId,
        evaluation.workspaceId,
        evaluation.scorecardId,
        JSON.stringify(evaluation.results),
      ],
    );
  return id;
}
