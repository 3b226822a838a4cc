import { z } from 'zod';
import { isoNow } from '../clock.js';
import { conflict, invalidField, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { Metric, Scorecard } from '../domain/scorecards.js';
import {
  Id,
  pagination,
  Pagination,
  Paging,
  WorkspaceParams,
  deleted,
  checked,
  countedNames,
  DeletedOrChecked,
  DryRunQuery,
} from './common.js';
import { defineOperation } from './types.js';
import { SuiteKey } from '../domain/suite-keys.js';
import { withKey, withKeys, withoutKey } from './suite-key-answers.js';

import { METRIC_CONFIGS } from '../domain/metrics.js';

export { METRIC_CONFIGS };

export const METRIC_TYPES = Object.keys(METRIC_CONFIGS) as (keyof typeof METRIC_CONFIGS)[];

const metricCommon = {
  id: z
    .string()
    .optional()
    .describe('Kept when it names a metric of this scorecard; assigned by the server otherwise'),
  name: z.string().trim().min(1).max(200),
  category: z.string().trim().min(1).max(100).default('general'),
  description: z.string().max(2_000).nullable().optional(),
  weight: z.number().positive().max(1_000).default(1),
  critical: z.boolean().default(false),
};

interface MetricInputValue {
  id?: string;
  name: string;
  category: string;
  description?: string | null;
  weight: number;
  critical: boolean;
  type: string;
  config: Record<string, unknown>;
}

/** A metric as sent, one strict object per type; suite files name no metric ids (`withId` false). */
export const metricInputUnion = ({ withId }: { withId: boolean }) => {
  const { id, ...common } = metricCommon;
  return z.discriminatedUnion(
    'type',
    METRIC_TYPES.map((type) =>
      z.strictObject({
        ...(withId ? { id } : {}),
        ...common,
        type: z.literal(type),
        config: METRIC_CONFIGS[type],
      }),
    ) as unknown as [z.ZodObject, ...z.ZodObject[]],
  );
};

/** A scorecard's metrics as sent (at most 100). */
export const metricInputList = ({ withId }: { withId: boolean }) =>
  z.array(metricInputUnion({ withId })).max(100);

// The union is built from METRIC_CONFIGS, so TypeScript cannot name its output: it is MetricInputValue.
const MetricInputList = metricInputList({ withId: true }) as unknown as z.ZodArray<
  z.ZodType<MetricInputValue>
>;

// Answers name only the metric types the scorer knows.
const MetricSchema = Metric.extend({ type: z.enum(METRIC_TYPES) });
export const ScorecardSchema = Scorecard.omit({ key: true }).extend({
  metrics: z.array(MetricSchema),
});
/** GET and list answer the suite key too (stored, or the one an export would give). */
const KeyedScorecard = Scorecard.extend({ key: SuiteKey, metrics: z.array(MetricSchema) });

/** What a caller sends: the scorecard's editable fields, with the rules of each. */
export const ScorecardCreateFields = Scorecard.pick({
  name: true,
  description: true,
  metrics: true,
  passThreshold: true,
}).extend({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(5_000).nullable().optional(),
  metrics: MetricInputList,
  passThreshold: z.number().min(0).max(100).optional(),
}).shape;
const fields = ScorecardCreateFields;

function toMetrics(input: MetricInputValue[], existing: Metric[], now: number): Metric[] {
  const ids = new Set(existing.map((m) => m.id));
  return input.map((m) => ({
    id: m.id && ids.has(m.id) ? m.id : newId('met', now),
    name: m.name,
    category: m.category,
    type: m.type,
    description: m.description ?? null,
    weight: m.weight,
    critical: m.critical,
    config: m.config,
  }));
}

const base = '/api/v1/workspaces/:workspace_id/scorecards';
const ItemParams = { ...WorkspaceParams, scorecard_id: Id };

export const scorecardOperations = [
  defineOperation({
    name: 'scorecards.create',
    summary: 'Create a scorecard: weighted metrics and a pass threshold (default 70)',
    http: { method: 'POST', path: base, status: 201 },
    params: WorkspaceParams,
    body: fields,
    output: z.object({ scorecard: ScorecardSchema }),
    async handler({ workspace_id, ...input }, ctx) {
      const now = isoNow(ctx.clock);
      const scorecard = await ctx.store.scorecards.insert(workspace_id, {
        id: newId('scd', ctx.clock.now()),
        key: null,
        name: input.name,
        description: input.description ?? null,
        metrics: toMetrics(input.metrics, [], ctx.clock.now()),
        passThreshold: input.passThreshold ?? 70,
        created_at: now,
        updated_at: now,
      });
      return { scorecard: withoutKey(scorecard) };
    },
  }),
  defineOperation({
    name: 'scorecards.list',
    summary: 'List scorecards',
    http: { method: 'GET', path: base },
    params: WorkspaceParams,
    query: Paging,
    output: z.object({ scorecards: z.array(KeyedScorecard), pagination: Pagination }),
    async handler({ workspace_id, limit, offset }, ctx) {
      const { items, total } = await ctx.store.scorecards.list(workspace_id, limit, offset);
      const scorecards = await withKeys(ctx.store, 'scorecard', workspace_id, items);
      return { scorecards, pagination: pagination(total, limit, offset) };
    },
  }),
  defineOperation({
    name: 'scorecards.get',
    summary: 'Get one scorecard',
    http: { method: 'GET', path: `${base}/:scorecard_id` },
    params: ItemParams,
    output: z.object({ scorecard: KeyedScorecard }),
    async handler({ workspace_id, scorecard_id }, ctx) {
      const scorecard = await ctx.store.scorecards.get(workspace_id, scorecard_id);
      if (!scorecard) throw notFound('scorecard', scorecard_id);
      return { scorecard: await withKey(ctx.store, 'scorecard', workspace_id, scorecard) };
    },
  }),
  defineOperation({
    name: 'scorecards.update',
    summary:
      'Change any subset of a scorecard; `metrics`, when sent, replaces the list (ids of kept metrics stay)',
    http: { method: 'PUT', path: `${base}/:scorecard_id` },
    params: ItemParams,
    body: { ...fields, name: fields.name.optional(), metrics: fields.metrics.optional() },
    output: z.object({ scorecard: ScorecardSchema }),
    async handler({ workspace_id, scorecard_id, ...patch }, ctx) {
      if (Object.values(patch).every((v) => v === undefined))
        throw invalidField('', 'send at least one field to change');
      return ctx.store.transaction(async (tx) => {
        const current = await tx.scorecards.get(workspace_id, scorecard_id);
        if (!current) throw notFound('scorecard', scorecard_id);
        const metrics = patch.metrics && toMetrics(patch.metrics, current.metrics, ctx.clock.now());
        const scorecard = await tx.scorecards.update(
          workspace_id,
          scorecard_id,
          { ...patch, metrics },
          isoNow(ctx.clock),
        );
        return { scorecard: withoutKey(scorecard!) };
      });
    },
  }),
  defineOperation({
    name: 'scorecards.delete',
    summary: 'Delete a scorecard that no scenario uses',
    http: { method: 'DELETE', path: `${base}/:scorecard_id` },
    params: ItemParams,
    query: DryRunQuery,
    output: DeletedOrChecked,
    async handler({ workspace_id, scorecard_id, dryRun }, ctx) {
      return ctx.store.transaction(async (tx) => {
        const scorecard = await tx.scorecards.get(workspace_id, scorecard_id);
        if (!scorecard) throw notFound('scorecard', scorecard_id);
        const users = await tx.scenarios.usingScorecard(workspace_id, scorecard_id);
        if (users.length)
          throw conflict(
            `Scorecard '${scorecard.name}' is used by ${countedNames(users, 'scenario')}; give them another scorecard first`,
            { scenarios: users },
          );
        if (dryRun) return checked(scorecard_id);
        await tx.scorecards.delete(workspace_id, scorecard_id);
        return deleted(scorecard_id);
      });
    },
  }),
];
