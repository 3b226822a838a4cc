import { MenuItem } from '@mui/material';
import { useEffect } from 'react';
import { ALERT_THRESHOLD_RANGES, ALERT_TOOL_METRICS } from '../generated/catalogue-enums';
import { useAgents, useScenarios, useTools } from '../stores/resources';

/** One entry of a picker: the value sent, and what the tester reads. */
interface Choice {
  value: string;
  label: string;
}

// The metric each condition type watches (the engine: a tool's figures, an agent's average score,
// a scenario's pass rate; a config change and a drift suite regression have none).
const METRICS_OF: Record<string, readonly string[]> = {
  tool_performance: ALERT_TOOL_METRICS,
  agent_score: ['avg_score'],
  scenario_failure: ['pass_rate'],
  agent_config_changed: [],
  agent_regression: [],
};

/** Whether a condition of `type` compares a metric with a threshold (else it fires on an event). */
export const hasThreshold = (type: string): boolean => (METRICS_OF[type] ?? []).length > 0;

/** A metric's threshold range in words: "0 to 100", "at least 0". */
export function rangeOf(metric: string): string | undefined {
  const range = ALERT_THRESHOLD_RANGES[metric];
  if (!range) return undefined;
  return range.max === undefined ? `at least ${range.min}` : `${range.min} to ${range.max}`;
}

/** The metric a new condition of `type` starts with. */
export const firstMetricOf = (type: string): string => METRICS_OF[type]?.[0] ?? '';

/** The condition's field the target is sent as. */
export const targetKeyOf = (type: string): 'toolId' | 'scenarioId' | 'agentId' =>
  type === 'tool_performance' ? 'toolId' : type === 'scenario_failure' ? 'scenarioId' : 'agentId';

/** What the target picker is called for a condition type. */
export const targetLabelOf = (type: string): string =>
  type === 'tool_performance' ? 'Tool' : type === 'scenario_failure' ? 'Scenario' : 'Agent';

/**
 * The choices of a condition of `type`, from the lists the app already loads: its targets (tools
 * by name, agents and the workspace's scenarios by id, shown by name) and its metrics, each with
 * the range its threshold may take.
 */
export function useConditionChoices(type: string): { targets: Choice[]; metrics: Choice[] } {
  const tools = useTools((s) => s.items);
  const agents = useAgents((s) => s.items);
  const scenarios = useScenarios((s) => s.items);
  const loadTools = useTools((s) => s.load);
  const loadAgents = useAgents((s) => s.load);
  const loadScenarios = useScenarios((s) => s.load);
  useEffect(() => {
    void loadTools();
    void loadAgents();
    void loadScenarios({ limit: 100 });
  }, [loadTools, loadAgents, loadScenarios]);
  const targets =
    type === 'tool_performance'
      ? tools.map((t) => ({ value: t.name, label: t.name }))
      : type === 'scenario_failure'
        ? scenarios.map((s) => ({ value: s.id, label: s.name }))
        : agents.map((a) => ({ value: a.id, label: `${a.name} (${a.provider})` }));
  const metrics = (METRICS_OF[type] ?? []).map((m) => ({
    value: m,
    label: `${m.replace(/_/g, ' ')} (${rangeOf(m) ?? 'any'})`,
  }));
  return { targets, metrics };
}

/** A picker's options; an empty list says what fills it. */
export function choiceItems(choices: Choice[], emptyText: string) {
  if (choices.length === 0)
    return [
      <MenuItem key="" value="" disabled>
        {emptyText}
      </MenuItem>,
    ];
  return choices.map((c) => (
    <MenuItem key={c.value} value={c.value}>
      {c.label}
    </MenuItem>
  ));
}
