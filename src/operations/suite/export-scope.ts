import type { Agent } from '../../domain/agents.js';
import type { Alert } from '../../domain/alerts.js';
import type { Persona } from '../../domain/personas.js';
import type { Scenario } from '../../domain/scenarios.js';
import type { Schedule } from '../../domain/schedules.js';
import type { Scorecard } from '../../domain/scorecards.js';
import type { Tool } from '../../domain/tools.js';
import { effectiveConfiguration } from '../../providers/view.js';
import { alertOperations } from '../alerts.js';
import { toolView } from '../tools.js';
import type { OperationContext } from '../types.js';
import { everyPage } from './every-page.js';

/**
 * What an export holds (#38): the workspace's personas, scorecards, scenarios (but those carrying
 * an excluded tag) and their schedules; of the engine-wide resources, the tools its scenarios,
 * scorecards and target agents name, with the steps of composites, and the alerts whose condition
 * names one of its scenarios, target agents or exported tools. Resources are read in their answer
 * form (secrets masked: the files hold placeholders instead).
 */
export interface ExportScope {
  personas: Persona[];
  scorecards: Scorecard[];
  scenarios: Scenario[];
  schedules: Schedule[];
  tools: Tool[];
  alerts: Alert[];
  agents: Agent[];
}

/** Tags are matched as the scenario list's filter matches them: without regard to case. */
const carriesAny = (tags: string[], excluded: Set<string>): boolean =>
  tags.some((t) => excluded.has(t.toLowerCase()));

/** The tool names a scenario names: its expected tool calls and its script's `toolCalled`. */
const scenarioToolNames = (s: Scenario): string[] => [
  ...(s.expectedBehavior?.toolCalls ?? []),
  ...(s.script ?? []).flatMap((line) => (line.expect?.toolCalled ? [line.expect.toolCalled] : [])),
];

/** The tool names a scorecard's checks name (tool_called, tool_not_called). */
const scorecardToolNames = (s: Scorecard): string[] =>
  s.metrics.flatMap((m) => (typeof m.config.tool === 'string' ? [m.config.tool] : []));

/** The named tools and, transitively, the steps of the composites among them. */
function withSteps(named: Set<string>, tools: Tool[]): Tool[] {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const seen = new Set<string>();
  const queue = [...named];
  while (queue.length) {
    const name = queue.pop()!;
    const tool = byName.get(name);
    if (!tool || seen.has(name)) continue;
    seen.add(name);
    for (const step of tool.steps ?? []) if (typeof step.tool === 'string') queue.push(step.tool);
  }
  return tools.filter((t) => seen.has(t.name));
}

async function workspaceResources(ctx: OperationContext, ws: string, excludeTags: string[]) {
  const excluded = new Set(excludeTags.map((t) => t.toLowerCase()));
  const scenarios = (
    await everyPage((limit, offset) =>
      ctx.store.scenarios.list(ws, { sortBy: 'createdAt', sortOrder: 'asc', limit, offset }),
    )
  ).filter((s) => !carriesAny(s.tags, excluded));
  const scenarioIds = new Set(scenarios.map((s) => s.id));
  const schedules = (await everyPage((l, o) => ctx.store.schedules.list(ws, l, o))).filter((s) =>
    scenarioIds.has(s.scenarioId),
  );
  return {
    personas: await ctx.store.personas.all(ws),
    scorecards: await everyPage((l, o) => ctx.store.scorecards.list(ws, l, o)),
    scenarios,
    schedules,
  };
}

/** Reads what the export of a workspace holds (see ExportScope). */
export async function exportScope(
  ctx: OperationContext,
  ws: string,
  excludeTags: string[],
): Promise<ExportScope> {
  const own = await workspaceResources(ctx, ws, excludeTags);
  const agentIds = new Set(own.scenarios.flatMap((s) => s.targetAgents));
  const agents = (await ctx.store.agents.list()).filter((a) => agentIds.has(a.id));
  const named = new Set([
    ...own.scenarios.flatMap(scenarioToolNames),
    ...own.scorecards.flatMap(scorecardToolNames),
    ...agents.flatMap((a) => effectiveConfiguration(a).tools.map((t) => t.name)),
  ]);
  const allTools = (await ctx.store.tools.list()).map((t) => toolView(ctx, t));
  const tools = withSteps(named, allTools);
  const toolIds = new Set(tools.map((t) => t.id));
  const scenarioIds = new Set(own.scenarios.map((s) => s.id));
  const listAlerts = alertOperations.find((op) => op.name === 'alerts.list')!;
  const { alerts: every } = (await listAlerts.handler({}, ctx)) as { alerts: Alert[] };
  const alerts = every.filter(
    ({ condition: c }) =>
      (!!c.scenarioId && scenarioIds.has(c.scenarioId)) ||
      (!!c.agentId && agentIds.has(c.agentId)) ||
      (!!c.toolId && toolIds.has(c.toolId)),
  );
  return { ...own, tools, alerts, agents };
}
