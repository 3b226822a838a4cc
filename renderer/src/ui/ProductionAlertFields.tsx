/**
 * The fields of the two production alert conditions (issue #37, section 5): the agent (one with
 * monitoring: its monitoring scorecard is what its calls are scored on), one metric of that
 * scorecard or all of them, and the bound: a pass rate in percent with its operator, or a trend's
 * drop in points with its smoothing. The Alerts screen's form holds the values; this module picks
 * the choices, says what each condition measures, and turns the values into the condition sent.
 */
import { MenuItem, Stack, Typography, type TextFieldProps } from '@mui/material';
import { useEffect, type ReactNode } from 'react';
import type { OutputOf } from '../client';
import { ALERT_OPERATORS } from '../generated/catalogue-enums';
import { useAgents } from '../stores/resources';
import { client } from '../stores/session';
import { useLoad } from './common';
import type { FieldLabels } from './fieldErrors';

type Agent = OutputOf<'agents.list'>['agents'][number];
type ProductionType = 'production_pass_rate' | 'production_trend';

/** The form's values these fields edit (strings, as typed). */
export interface ProductionValues {
  target: string;
  metricId: string;
  operator: string;
  threshold: string;
  alpha: string;
  timeWindow: string;
  minSamples: string;
}

/** The form's field maker, as the Alerts screen passes it (its errors shown under the field). */
export type ProductionField = (
  k: keyof ProductionValues,
  label: string,
  options?: TextFieldProps & { hint?: string },
) => ReactNode;

export const isProductionType = (type: string): type is ProductionType =>
  type === 'production_pass_rate' || type === 'production_trend';

// The engine's defaults (src/domain/production.ts, src/operations/production-alerts.ts,
// src/domain/alerts.ts): shown as the fields' starting values so the tester sees what applies.
const DEFAULT_ALPHA = '0.3';
const DEFAULT_WINDOW = '1d';
const DEFAULT_MIN_SAMPLES = '5';

/** What each condition measures, in the words. */
export const PRODUCTION_HELP: Record<ProductionType, string> = {
  production_pass_rate:
    "The percent of the agent's calls started in the window whose evaluation passed (with a metric: whose result for that metric passed, not applicable left out).",
  production_trend:
    "The EWMA of the window's evaluated calls in start order (100 passed, 0 not), seeded with the window's pass rate and smoothed by alpha; it measures the pass rate minus the EWMA and fires above the threshold, in points. 10 passes then 5 failures fire at 20 points; the same failures before the passes never do.",
};

/** The values a production condition starts with when its type is picked. */
export function productionStartValues(type: string): Partial<ProductionValues> {
  if (!isProductionType(type)) return {};
  const common = {
    metricId: '',
    timeWindow: DEFAULT_WINDOW,
    minSamples: DEFAULT_MIN_SAMPLES,
    alpha: DEFAULT_ALPHA,
  };
  return type === 'production_trend'
    ? { ...common, threshold: '20' }
    : { ...common, operator: 'less_than', threshold: '90' };
}

/** A number typed, or left out when the field is empty (the engine then names what is missing). */
const numberOf = (typed: string): number | undefined =>
  typed.trim() === '' ? undefined : Number(typed);

/**
 * The condition's own fields (beside type and agentId): a trend sends no operator (it fires above
 * its threshold only) and a pass rate no alpha; an empty alpha, window or minimum takes the default.
 */
export function productionConditionOf(type: string, v: ProductionValues): Record<string, unknown> {
  return {
    metricId: v.metricId || undefined,
    threshold: numberOf(v.threshold),
    timeWindow: v.timeWindow || undefined,
    minSamples: numberOf(v.minSamples),
    ...(type === 'production_trend'
      ? { alpha: numberOf(v.alpha) }
      : { operator: v.operator || undefined }),
  };
}

/** The fields on screen, by the engine's path: their refusals are said there, not in the note. */
export const PRODUCTION_FIELD_LABELS: FieldLabels = {
  'condition.agentId': 'Agent',
  'condition.metricId': 'Metric',
  'condition.operator': 'Operator',
  'condition.threshold': 'Threshold',
  'condition.alpha': 'Alpha',
  'condition.timeWindow': 'Window',
  'condition.minSamples': 'Minimum samples',
};

/** Agents with monitoring first, to pick; those without listed disabled, saying why. */
function agentItems(agents: Agent[]): ReactNode[] {
  if (agents.length === 0)
    return [
      <MenuItem key="" value="" disabled>
        No agent connected yet
      </MenuItem>,
    ];
  const ordered = [...agents].sort((a, b) => Number(!a.monitoring) - Number(!b.monitoring));
  return ordered.map((a) => (
    <MenuItem key={a.id} value={a.id} disabled={!a.monitoring}>
      {a.name} ({a.provider})
      {!a.monitoring && " — no monitoring: set it on the agent's Production tab"}
    </MenuItem>
  ));
}

/** The metrics of the agent's monitoring scorecard, after "All metrics". */
function useMonitoringMetrics(
  agent: Agent | undefined,
): { value: string; name: string; label: string }[] {
  const monitoring = agent?.monitoring;
  const card = useLoad(
    async () =>
      monitoring
        ? client().invoke('scorecards.get', {
            workspace_id: monitoring.workspaceId,
            scorecard_id: monitoring.scorecardId,
          })
        : null,
    // Compared by value (useLoad): a new agents list with the same settings loads nothing.
    [monitoring],
  );
  return (card.data?.scorecard.metrics ?? []).map((m) => ({
    value: m.id,
    name: m.name,
    label: `${m.name} (${m.type.replace(/_/g, ' ')})`,
  }));
}

/** What is said under the agent picker: the scorecard its calls are scored on, or why none. */
function agentHint(agents: Agent[], picked: Agent | undefined): string {
  if (picked?.monitoring)
    return `Calls scored on its monitoring scorecard${picked.monitoring.enabled ? '' : ' (monitoring paused)'}`;
  if (!agents.some((a) => a.monitoring))
    return "No agent has monitoring yet: turn it on in an agent's Production tab";
  return 'An agent with monitoring';
}

/** The agent, metric and bound of a production condition, with what it measures. */
export function ProductionConditionFields({
  type,
  agentId,
  field: f,
}: {
  type: ProductionType;
  agentId: string;
  field: ProductionField;
}) {
  const agents = useAgents((s) => s.items);
  const picked = agents.find((a) => a.id === agentId);
  const metrics = useMonitoringMetrics(picked);
  const trend = type === 'production_trend';
  return (
    <>
      <Typography variant="body2" color="text.secondary" aria-label="What it measures">
        {PRODUCTION_HELP[type]}
      </Typography>
      {f('target', 'Agent', {
        select: true,
        hint: agentHint(agents, picked),
        children: agentItems(agents),
      })}
      {f('metricId', 'Metric', {
        select: true,
        hint: 'One metric of the monitoring scorecard, or the whole evaluation',
        // The empty value must have an entry to show its label ("All metrics").
        slotProps: { select: { displayEmpty: true }, inputLabel: { shrink: true } },
        children: [
          <MenuItem key="" value="">
            All metrics
          </MenuItem>,
          ...metrics.map((m) => (
            <MenuItem key={m.value} value={m.value}>
              {m.label}
            </MenuItem>
          )),
        ],
      })}
      <Stack direction="row" spacing={1}>
        {!trend &&
          f('operator', 'Operator', {
            select: true,
            sx: { flex: 1 },
            children: ALERT_OPERATORS.map((s) => (
              <MenuItem key={s} value={s}>
                {s.replace(/_/g, ' ')}
              </MenuItem>
            )),
          })}
        {f('threshold', trend ? 'Threshold (points)' : 'Threshold (%)', {
          type: 'number',
          sx: { flex: 1 },
          hint: trend ? 'Fires when the drop is above it: 0 to 100' : '0 to 100',
        })}
        {trend &&
          f('alpha', 'Alpha', {
            type: 'number',
            sx: { flex: 1 },
            hint: '0 < alpha ≤ 1, default 0.3',
          })}
      </Stack>
      <Stack direction="row" spacing={1}>
        {f('timeWindow', 'Window', {
          sx: { flex: 1 },
          hint: 'Calls started in the last 15m, 2h, 1d',
        })}
        {f('minSamples', 'Minimum samples', {
          type: 'number',
          sx: { flex: 1 },
          hint: 'Fewer evaluated calls in the window never fire',
        })}
      </Stack>
    </>
  );
}

type Condition = OutputOf<'alerts.list'>['alerts'][number]['condition'];

/** A production condition in the alerts list: the agent, the metric, the bound and the window. */
export function ProductionConditionText({ condition: c }: { condition: Condition }) {
  const agents = useAgents((s) => s.items);
  const loaded = useAgents((s) => s.loaded || s.loading);
  const load = useAgents((s) => s.load);
  // The list may be the first screen opened: the agents' names come from their store.
  useEffect(() => {
    if (!loaded) void load();
  }, [loaded, load]);
  const agent = agents.find((a) => a.id === c.agentId);
  const metrics = useMonitoringMetrics(agent);
  const metric = c.metricId
    ? `metric ${metrics.find((m) => m.value === c.metricId)?.name ?? c.metricId}`
    : 'all metrics';
  const bound =
    c.type === 'production_trend'
      ? `drop above ${c.threshold ?? ''} points (alpha ${c.alpha ?? DEFAULT_ALPHA})`
      : `${c.operator?.replace(/_/g, ' ') ?? ''} ${c.threshold ?? ''}%`;
  return (
    <>
      {c.type.replace(/_/g, ' ')} of {agent?.name ?? c.agentId} ({metric}): {bound} ·{' '}
      {c.timeWindow ?? DEFAULT_WINDOW} · at least {c.minSamples ?? DEFAULT_MIN_SAMPLES} calls
    </>
  );
}
