import { IdentifierName } from '../domain/names.js';
import { z } from 'zod';
import {
  PROMPT_VARIABLE_TYPES,
  Scenario,
  ScenarioEditable,
  type ScenarioPatch,
  ScenarioStats,
  ScriptLine,
  undeclaredVariables,
  WorkspaceScenarioStats,
} from '../domain/scenarios.js';
import { ScenarioAudio } from '../domain/audio.js';
import { isoNow } from '../clock.js';
import { conflict, invalidField, notFound, validationError, type ErrorDetail } from '../errors.js';
import { newId } from '../ids.js';
import { assertAgentsShared } from '../simulations/agent-sharing.js';

import type { Store } from '../store/index.js';
import {
  CommaList,
  Id,
  pagination,
  Pagination,
  Paging,
  SortOrder,
  Tags,
  WorkspaceParams,
  deleted,
  checked,
  countedNames,
  DeletedOrChecked,
  DryRunQuery,
} from './common.js';
import { defineOperation } from './types.js';
import { SuiteKey } from '../domain/suite-keys.js';
import { assertCasesDeclared, ScenarioCasesInput } from './scenario-cases.js';
import { withKey, withKeys, withoutKey } from './suite-key-answers.js';

const PromptVariableInput = z.strictObject({
  name: IdentifierName,
  type: z.enum(PROMPT_VARIABLE_TYPES).default('string'),
  defaultValue: z.string().max(2_000).default(''),
});

/** What a caller sends: the scenario's editable fields, with the rules of each. */
const ScenarioInput = ScenarioEditable.extend({
  name: z.string().trim().min(1).max(200),
  prompt: z.string().trim().min(1).max(20_000),
  promptVariables: z.array(PromptVariableInput).max(50),
  personas: z.array(Id).max(100),
  targetAgents: z.array(Id).max(100),
  scorecard: Id.nullable(),
  tags: Tags,
  expectedOutcome: z.string().max(5_000).nullable(),
  expectedBehavior: z
    .strictObject({
      toolCalls: z.array(z.string().min(1)).max(50).optional(),
      providesTrackingInfo: z.boolean().optional(),
    })
    .nullable(),
  script: z.array(ScriptLine).min(1).max(200).nullable(),
  maxTurns: z.number().int().min(1).max(200).nullable(),
  maxDurationMs: z.number().int().min(1_000).max(3_600_000).nullable(),
  // Described on its optional, as before: the published document stays byte for byte the same.
  audio: ScenarioAudio.nullable()
    .optional()
    .describe('Run as real audio calls (voices, latency, recording); null or absent: text'),
  cases: ScenarioCasesInput,
}).partial();

/** A new scenario's fields (the suite files are written from it too). */
export const ScenarioCreateInput = ScenarioInput.required({ name: true, prompt: true });

/** Create and update answer as before; GET and list answer the suite key too. */
const ScenarioSchema = Scenario.omit({ key: true });
const ScenarioWithStats = Scenario.extend({ key: SuiteKey, stats: ScenarioStats });

type Refs = {
  personas?: string[] | undefined;
  targetAgents?: string[] | undefined;
  scorecard?: string | null | undefined;
  promptVariables?: { name: string }[] | undefined;
};

/** Every referenced id must exist; one 400 names all that do not. */
async function checkReferences(store: Store, workspaceId: string, refs: Refs): Promise<void> {
  const details: ErrorDetail[] = [];
  const missing = (ids: string[], found: Set<string>) =>
    [...new Set(ids)].filter((id) => !found.has(id));
  if (refs.personas?.length) {
    const m = missing(refs.personas, await store.personas.existing(workspaceId, refs.personas));
    if (m.length)
      details.push({ path: 'personas', message: `unknown persona id(s): ${m.join(', ')}` });
  }
  if (refs.targetAgents?.length) {
    const m = missing(refs.targetAgents, await store.agents.existing(refs.targetAgents));
    if (m.length)
      details.push({
        path: 'targetAgents',
        message: `unknown agent id(s): ${m.join(', ')} (connect agents with POST /v1/agents/connect)`,
      });
  }
  if (refs.scorecard && !(await store.scorecards.get(workspaceId, refs.scorecard))) {
    details.push({ path: 'scorecard', message: `unknown scorecard id: ${refs.scorecard}` });
  }
  const names = (refs.promptVariables ?? []).map((v) => v.name);
  const dup = names.filter((n, i) => names.indexOf(n) !== i);
  if (dup.length)
    details.push({
      path: 'promptVariables',
      message: `duplicate variable name(s): ${[...new Set(dup)].join(', ')}`,
    });
  if (details.length)
    throw validationError(
      `Invalid references: ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}`,
      details,
    );
}

/** Refuses a scenario whose texts use a `{{variable}}` it does not declare, naming each. */
function assertVariablesDeclared(
  scenario: Pick<Scenario, 'prompt' | 'promptVariables' | 'script'>,
): void {
  const details = undeclaredVariables(scenario);
  if (details.length)
    throw validationError(
      `Undeclared variables: ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}`,
      details,
    );
}

const base = '/api/v1/workspaces/:workspace_id/scenarios';
const ItemParams = { ...WorkspaceParams, scenario_id: Id };

export const scenarioOperations = [
  defineOperation({
    name: 'scenarios.create',
    summary: 'Create a scenario: a caller situation, personas, target agents and a scorecard',
    http: { method: 'POST', path: base, status: 201 },
    params: WorkspaceParams,
    body: ScenarioCreateInput.shape,
    output: z.object({ scenario: ScenarioSchema }),
    async handler({ workspace_id, ...input }, ctx) {
      return ctx.store.transaction(async (tx) => {
        if (ctx.caller.kind === 'token')
          await assertAgentsShared(tx, workspace_id, input.targetAgents ?? []);
        await checkReferences(tx, workspace_id, input);
        const now = isoNow(ctx.clock);
        const scenario: Scenario = {
          id: newId('scn', ctx.clock.now()),
          key: null,
          name: input.name,
          prompt: input.prompt,
          promptVariables: input.promptVariables ?? [],
          personas: [...new Set(input.personas ?? [])],
          targetAgents: [...new Set(input.targetAgents ?? [])],
          scorecard: input.scorecard ?? null,
          tags: input.tags ?? [],
          expectedOutcome: input.expectedOutcome ?? null,
          expectedBehavior: input.expectedBehavior ?? null,
          script: input.script ?? null,
          maxTurns: input.maxTurns ?? null,
          maxDurationMs: input.maxDurationMs ?? null,
          audio: input.audio ?? null,
          cases: input.cases ?? null,
          created_at: now,
          updated_at: now,
          created_by: ctx.caller.user,
        };
        assertVariablesDeclared(scenario);
        assertCasesDeclared(scenario.cases, scenario.promptVariables);
        return { scenario: withoutKey(await tx.scenarios.insert(workspace_id, scenario)) };
      });
    },
  }),
  defineOperation({
    name: 'scenarios.list',
    summary: 'List scenarios with filters, sorting and paging',
    http: { method: 'GET', path: base },
    params: WorkspaceParams,
    query: {
      name: z
        .string()
        .trim()
        .min(1)
        .max(200)
        .optional()
        .describe('Case-insensitive partial match on the name'),
      tags: CommaList.optional().describe('Comma-separated; a scenario must carry all of them'),
      sortBy: z.enum(['name', 'createdAt', 'updatedAt', 'usage']).default('createdAt'),
      sortOrder: SortOrder.default('desc'),
      ...Paging,
    },
    output: z.object({
      scenarios: z.array(ScenarioWithStats),
      pagination: Pagination,
    }),
    async handler({ workspace_id, ...q }, ctx) {
      const { items, total } = await ctx.store.scenarios.list(workspace_id, q);
      const stats = await ctx.store.scenarios.statsOf(items.map((s) => s.id));
      const keyed = await withKeys(ctx.store, 'scenario', workspace_id, items);
      return {
        scenarios: keyed.map((s) => ({ ...s, stats: stats.get(s.id)! })),
        pagination: pagination(total, q.limit, q.offset),
      };
    },
  }),
  defineOperation({
    name: 'scenarios.stats',
    summary: 'Scenario statistics of the workspace',
    http: { method: 'GET', path: `${base}/stats` },
    params: WorkspaceParams,
    output: z.object({ stats: WorkspaceScenarioStats }),
    async handler({ workspace_id }, ctx) {
      const since = new Date(ctx.clock.now() - 30 * 86_400_000).toISOString();
      return { stats: await ctx.store.scenarios.workspaceStats(workspace_id, since) };
    },
  }),
  defineOperation({
    name: 'scenarios.get',
    summary: 'Get one scenario with its statistics',
    http: { method: 'GET', path: `${base}/:scenario_id` },
    params: ItemParams,
    output: z.object({ scenario: ScenarioWithStats }),
    async handler({ workspace_id, scenario_id }, ctx) {
      const scenario = await ctx.store.scenarios.get(workspace_id, scenario_id);
      if (!scenario) throw notFound('scenario', scenario_id);
      const keyed = await withKey(ctx.store, 'scenario', workspace_id, scenario);
      return { scenario: { ...keyed, stats: await ctx.store.scenarios.stats(scenario_id) } };
    },
  }),
  defineOperation({
    name: 'scenarios.update',
    summary: "Change any subset of a scenario's fields (null clears an optional one)",
    http: { method: 'PUT', path: `${base}/:scenario_id` },
    params: ItemParams,
    body: ScenarioInput.shape,
    output: z.object({ scenario: ScenarioSchema }),
    async handler({ workspace_id, scenario_id, ...patch }, ctx) {
      if (Object.values(patch).every((v) => v === undefined))
        throw invalidField('', 'send at least one field to change');
      return ctx.store.transaction(async (tx) => {
        const current = await tx.scenarios.get(workspace_id, scenario_id);
        if (!current) throw notFound('scenario', scenario_id);
        // Only agents it adds: those an API key put there stay, so the token may edit the rest.
        if (ctx.caller.kind === 'token' && patch.targetAgents)
          await assertAgentsShared(
            tx,
            workspace_id,
            patch.targetAgents.filter((id) => !current.targetAgents.includes(id)),
          );
        await checkReferences(tx, workspace_id, patch);
        const clean: ScenarioPatch = {
          ...patch,
          personas: patch.personas && [...new Set(patch.personas)],
          targetAgents: patch.targetAgents && [...new Set(patch.targetAgents)],
        };
        // Checked when the texts or their declarations change: a scenario saved before the rule
        // keeps every other edit (its execution names what is undeclared).
        if (patch.prompt !== undefined || patch.promptVariables || patch.script !== undefined)
          assertVariablesDeclared({
            prompt: patch.prompt ?? current.prompt,
            promptVariables: patch.promptVariables ?? current.promptVariables,
            script: patch.script === undefined ? current.script : patch.script,
          });
        if (patch.cases !== undefined || patch.promptVariables)
          assertCasesDeclared(
            patch.cases === undefined ? current.cases : patch.cases,
            patch.promptVariables ?? current.promptVariables,
          );
        const updated = await tx.scenarios.update(
          workspace_id,
          scenario_id,
          clean,
          isoNow(ctx.clock),
        );
        return { scenario: withoutKey(updated!) };
      });
    },
  }),
  defineOperation({
    name: 'scenarios.delete',
    summary: 'Delete a scenario that no schedule runs (its simulations go with it)',
    http: { method: 'DELETE', path: `${base}/:scenario_id` },
    params: ItemParams,
    query: DryRunQuery,
    output: DeletedOrChecked,
    async handler({ workspace_id, scenario_id, dryRun }, ctx) {
      return ctx.store.transaction(async (tx) => {
        const scenario = await tx.scenarios.get(workspace_id, scenario_id);
        if (!scenario) throw notFound('scenario', scenario_id);
        const schedules = await tx.schedules.forScenario(workspace_id, scenario_id);
        if (schedules.length)
          throw conflict(
            `Scenario '${scenario.name}' is run by ${countedNames(schedules, 'schedule')}; delete them first`,
            { schedules },
          );
        if (dryRun) return checked(scenario_id);
        await tx.scenarios.delete(workspace_id, scenario_id);
        return deleted(scenario_id);
      });
    },
  }),
];
