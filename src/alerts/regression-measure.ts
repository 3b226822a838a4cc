import type { Comparison } from '../domain/comparisons.js';
import type { StoredAlert } from '../store/alerts.js';
import type { Store } from '../store/index.js';
import type { AlertDetail, Measurement } from './measure.js';

/** Names of the scenarios that got worse: case rows whose verdict or adjusted verdict regressed. */
export function worseScenarios(comparison: Comparison): string[] {
  const names = comparison.rows
    .filter((r) => r.verdict === 'regressed' || r.adjusted_verdict === 'regressed')
    .map((r) => r.scenario_name ?? r.scenario_id);
  return [...new Set(names)];
}

/** What a firing agent_regression alert says: which scenarios got worse, in which comparison. */
function regressionDetail(
  run: { version: number; comparison_id: string },
  comparison: Comparison | undefined,
): AlertDetail {
  const scenarios = comparison ? worseScenarios(comparison) : [];
  const worse = scenarios.length ? `; worse: ${scenarios.join(', ')}` : '';
  return {
    text: `version ${run.version} regressed in comparison ${run.comparison_id}${worse}`,
    data: { comparisonId: run.comparison_id, version: run.version, scenarios },
  };
}

/**
 * agent_regression: the newest drift suite run of the agent that was compared. 1 when its
 * overall verdict is `regressed` (the alert fires), else 0 (a firing alert resolves once a later
 * version's run no longer regressed). No compared run yet: no measurement, nothing changes.
 */
export async function measureRegressions(
  store: Store,
  alerts: StoredAlert[],
): Promise<Map<string, Measurement>> {
  const out = new Map<string, Measurement>();
  const watched = alerts.filter((a) => a.definition.condition.type === 'agent_regression');
  const agentIds = [...new Set(watched.map((a) => a.definition.condition.agentId ?? ''))];
  const latest = await store.regressionSuites.latestCompared(agentIds);
  for (const alert of watched) {
    const run = latest.get(alert.definition.condition.agentId ?? '');
    if (!run?.comparison_id) continue;
    const regressed = run.verdict === 'regressed';
    const comparison = regressed
      ? await store.comparisons.get(run.workspace_id, run.comparison_id)
      : undefined;
    out.set(alert.id, {
      value: regressed ? 1 : 0,
      samples: Number.POSITIVE_INFINITY,
      detail: regressed
        ? regressionDetail({ version: run.version, comparison_id: run.comparison_id }, comparison)
        : undefined,
    });
  }
  return out;
}
