import type { Store } from '../../store/index.js';
import type { OperationContext } from '../types.js';
import { KIND_SPECS, type RefKind, type SuiteKind } from './kinds.js';
import {
  assertWithinLimits,
  duplicateKeys,
  parseSuite,
  type ParsedSuite,
  type SuiteFile,
} from './parse.js';
import { manifestSecretProblems, planAgents } from './plan-agents.js';
import { planResource, type PlanScope } from './plan-resource.js';
import type { AgentStep, DeleteStep, PlanEntry, ResourceStep, SuitePlan } from './plan-types.js';
import { sortProblems, type SuiteProblem } from './problems.js';
import { loadStored, type StoredSuite } from './stored.js';

/**
 * A suite's plan (#38): every file read and checked at once, each resource matched by key with the
 * workspace's and compared, and every problem listed with its place. Writes nothing; apply.ts
 * carries out what it planned.
 */

/** The order a suite is applied in: what others refer to first. Deletes go the other way. */
export const APPLY_ORDER: readonly SuiteKind[] = [
  'tool',
  'persona',
  'scorecard',
  'scenario',
  'schedule',
  'alert',
];
/** The kinds `prune` deletes: a workspace's own (tools and alerts are engine-wide, never pruned). */
const PRUNED_KINDS: readonly SuiteKind[] = ['schedule', 'scenario', 'scorecard', 'persona'];

export interface SuiteRequest {
  files: SuiteFile[];
  secrets?: Record<string, string>;
  prune?: boolean;
}

export interface Planned {
  plan: SuitePlan;
  suiteName: string | null;
  manifest: ParsedSuite['manifest'];
  agents: AgentStep[];
  resources: ResourceStep[];
  deletes: DeleteStep[];
  stored: StoredSuite;
  values: Readonly<Record<string, string>>;
}

/** Stored resources no file defines, when pruning: deleted, schedules first. */
function pruneSteps(parsed: ParsedSuite, stored: StoredSuite): DeleteStep[] {
  return PRUNED_KINDS.flatMap((kind) =>
    stored.byKind[kind]
      .filter((r) => !parsed.definedKeys.get(kind)!.has(r.key))
      .map((r) => ({
        kind,
        stored: r,
        entry: {
          kind,
          key: r.key,
          name: r.name,
          file: `${KIND_SPECS[kind].dir}/${r.key}.yaml`,
          action: 'delete' as const,
          changes: [],
        },
      })),
  );
}

function scopeOf(
  parsed: ParsedSuite,
  stored: StoredSuite,
  values: Readonly<Record<string, string>>,
  extra: { deletes: DeleteStep[]; agents: AgentStep[] },
): PlanScope {
  const deleted = new Set(extra.deletes.map((d) => `${d.kind}:${d.stored.key}`));
  const agentKeys = new Map(extra.agents.map((a) => [a.key, a.id]));
  const manifestKeys = new Set(parsed.manifest?.data.agents.map((a) => a.key) ?? []);
  return {
    parsed,
    stored,
    values,
    known(kind: RefKind, key: string) {
      if (kind === 'agent') return manifestKeys.has(key);
      if (parsed.definedKeys.get(kind)!.has(key)) return true;
      return !!stored.find(kind, key) && !deleted.has(`${kind}:${key}`);
    },
    agentKeyOf: (id) => [...agentKeys].find(([, agentId]) => agentId === id)?.[0],
  };
}

/**
 * Tools ordered so a composite comes after the tools its steps name (by name, as the API takes
 * them), each else by key; a cycle keeps its order (the tool operations refuse it with a reason).
 */
function toolsInStepOrder(tools: ResourceStep[]): ResourceStep[] {
  const byName = new Map(tools.map((t) => [t.file.data.name as string, t]));
  const out: ResourceStep[] = [];
  const visiting = new Set<ResourceStep>();
  const visit = (t: ResourceStep) => {
    if (out.includes(t) || visiting.has(t)) return;
    visiting.add(t);
    for (const step of (t.file.data.steps as { tool?: unknown }[] | undefined) ?? []) {
      const used = typeof step.tool === 'string' ? byName.get(step.tool) : undefined;
      if (used) visit(used);
    }
    out.push(t);
  };
  tools.forEach(visit);
  return out;
}

const byApplyOrder = (a: ResourceStep, b: ResourceStep): number =>
  APPLY_ORDER.indexOf(a.kind) - APPLY_ORDER.indexOf(b.kind) || (a.file.key < b.file.key ? -1 : 1);

/** Plans a suite against a workspace; see the module's comment. */
export async function planSuite(
  ctx: OperationContext,
  store: Store,
  workspaceId: string,
  request: SuiteRequest,
): Promise<Planned> {
  assertWithinLimits(request.files);
  const values = request.secrets ?? {};
  const parsed = parseSuite(request.files);
  const stored = await loadStored(ctx, store, workspaceId);
  const problems: SuiteProblem[] = [...parsed.problems, ...duplicateKeys(parsed.keyed)];
  const manifest = parsed.manifest;
  const agents = manifest
    ? planAgents(manifest.source, manifest.data, stored.agents, values)
    : { steps: [], problems: [] };
  if (manifest) problems.push(...manifestSecretProblems(manifest.source, manifest.data));
  problems.push(...agents.problems);
  const deletes = request.prune ? pruneSteps(parsed, stored) : [];
  const scope = scopeOf(parsed, stored, values, { deletes, agents: agents.steps });
  const resources: ResourceStep[] = [];
  for (const file of parsed.resources) {
    const planned = planResource(scope, file);
    resources.push(planned.step);
    problems.push(...planned.problems);
  }
  resources.sort(byApplyOrder);
  const tools = resources.filter((r) => r.kind === 'tool');
  resources.splice(0, tools.length, ...toolsInStepOrder(tools));
  const entries: PlanEntry[] = [
    ...agents.steps.map((s) => s.entry),
    ...resources.map((s) => s.entry),
    ...deletes.map((s) => s.entry),
  ];
  const sorted = sortProblems(problems);
  return {
    plan: { valid: sorted.length === 0, entries, problems: sorted },
    suiteName: manifest?.data.name ?? null,
    manifest,
    agents: agents.steps,
    resources,
    deletes,
    stored,
    values,
  };
}
