import { rmSync } from 'node:fs';
import { createEngine, type Engine } from '../../src/engine.js';
import { rubricHash } from '../../src/simulations/judge.js';
import { tempDir } from '../helpers/server.js';
import { median, round, type Figure } from './harness.js';

/*
 * Calibration of a metric with 10,000 labels against reading those labels (#37): the labels are
 * counted against the judge's verdicts in SQL, so the calibration costs about what reading the
 * labels out costs, not a lookup per label.
 */

const LABELS = 10_000;
const ROUNDS = 9;
const CRITERION = 'The agent is polite';

/** A simulation's results as the scorer writes them: the judged metric and three others. */
function resultsOf(judgeMetric: string, i: number): string {
  const plain = (id: string, type: string) => ({
    metric_id: id,
    name: id,
    category: 'general',
    type,
    score: 100,
    passed: true,
    status: 'passed',
    reasoning: `The agent's replies met ${id} in every turn of the call (${i}).`,
  });
  return JSON.stringify([
    {
      metric_id: judgeMetric,
      name: 'Polite',
      category: 'general',
      type: 'llm_judge',
      score: i % 3 ? 85 : 20,
      passed: i % 3 !== 0,
      status: i % 3 ? 'passed' : 'failed',
      reasoning:
        'The agent greeted the caller, thanked them twice and never interrupted; it apologised for the delay.',
      evidence: [
        { turn: 1, quote: 'Thank you for calling, how can I help?' },
        { turn: 5, quote: 'Sorry for the wait, it has shipped.' },
      ],
      judge_model: 'judge-1',
      rubric_hash: rubricHash({ criterion: CRITERION }),
    },
    plain('says_order', 'contains'),
    plain('tool', 'tool_called'),
    plain('ended', 'ended_by'),
  ]);
}

/** A workspace with a judged scorecard, LABELS simulations, each labelled once on its metric. */
async function seed(engine: Engine) {
  const invoke = async <T>(name: string, input: unknown) =>
    (await engine.invoke(name, input)).data as T;
  const { workspaces } = await invoke<{ workspaces: { id: string }[] }>('workspaces.list', {});
  const ws = workspaces[0]!.id;
  const { scorecard } = await invoke<{ scorecard: { id: string; metrics: { id: string }[] } }>(
    'scorecards.create',
    {
      workspace_id: ws,
      name: 'Support',
      metrics: [{ name: 'Polite', type: 'llm_judge', config: { criterion: CRITERION } }],
    },
  );
  const { scenario } = await invoke<{ scenario: { id: string } }>('scenarios.create', {
    workspace_id: ws,
    name: 'S',
    prompt: 'p',
    scorecard: scorecard.id,
  });
  const metric = scorecard.metrics[0]!.id;
  const db = engine.store.db;
  const at = (i: number) => new Date(Date.parse('2026-06-01T00:00:00Z') + i * 1_000).toISOString();
  db.transaction(() => {
    db.prepare(
      "INSERT INTO executions (id, workspace_id, scenario_id, status, created_at) VALUES ('exe_b', ?, ?, 'completed', ?)",
    ).run(ws, scenario.id, at(0));
    const sim = db.prepare(
      "INSERT INTO simulations (id, workspace_id, execution_id, scenario_id, status, score, passed, created_at, ended_at, results) VALUES (?, ?, 'exe_b', ?, 'completed', 90, 1, ?, ?, ?)",
    );
    for (let i = 0; i < LABELS; i++)
      sim.run(`sim_${i}`, ws, scenario.id, at(i), at(i), resultsOf(metric, i));
  })();
  // Labelled as people label them: through the operation, by five reviewers (API keys).
  const reviewers = Array.from({ length: 5 }, (_, k) => ({
    kind: 'api_key' as const,
    keyId: `key_${k}`,
    user: { id: `key_${k}`, name: `Reviewer ${k}` },
  }));
  for (let i = 0; i < LABELS; i++) {
    const input = {
      workspace_id: ws,
      target: { simulationId: `sim_${i}` },
      metricId: metric,
      verdict: i % 4 ? 'pass' : 'fail',
      ...(i % 10 ? {} : { note: 'The agent was curt when the caller asked twice.' }),
    };
    const res = await engine.invoke('reviews.create', input, reviewers[i % 5]);
    if (res.status !== 201) throw new Error(`label ${i}: ${JSON.stringify(res.data)}`);
  }
  return { ws, scorecard: scorecard.id, metric };
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const began = performance.now();
  await run();
  return performance.now() - began;
}

export async function calibrationBench(): Promise<Figure[]> {
  const dir = tempDir();
  const engine = createEngine({ dataDir: dir, exclusive: false });
  await engine.start();
  try {
    const { ws, scorecard, metric } = await seed(engine);
    const read = () =>
      engine.store.reviews.list(ws, {
        scorecardId: scorecard,
        metricId: metric,
        limit: LABELS,
        offset: 0,
      });
    const calibrate = () =>
      engine.invoke('scorecards.calibration', { workspace_id: ws, scorecard_id: scorecard });
    const answer = (await calibrate()).data as { calibration: { metrics: { labels: number }[] } };
    if (answer.calibration.metrics[0]?.labels !== LABELS)
      throw new Error(`calibration counted ${answer.calibration.metrics[0]?.labels} labels`);
    const reads: number[] = [];
    const calibrations: number[] = [];
    // Alternated, so that machine noise hits both alike; the first of each warms the caches.
    for (let i = 0; i <= ROUNDS; i++) {
      const r = await timed(read);
      const c = await timed(calibrate);
      if (i === 0) continue;
      reads.push(r);
      calibrations.push(c);
    }
    const ratio = median(calibrations) / median(reads);
    return [
      {
        name: 'calibration of a metric with 10,000 labels vs reading those labels',
        value: round(ratio, 2),
        goal: '≤ 1.5x',
        met: ratio <= 1.5,
        detail: `calibration ${round(median(calibrations), 1)} ms, reading the labels ${round(median(reads), 1)} ms (medians of ${ROUNDS})`,
      },
    ];
  } finally {
    await engine.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
