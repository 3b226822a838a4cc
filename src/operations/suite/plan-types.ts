import { z } from 'zod';
import { SUITE_KINDS, type SuiteKind } from './kinds.js';
import type { ResourceFile } from './parse.js';
import { SuiteProblem } from './problems.js';
import type { SecretField } from './secrets.js';
import type { StoredResource } from './stored.js';

/** What a plan is (#38): one entry per resource and agent of the suite, and every problem. */

export const PLAN_KINDS = [...SUITE_KINDS, 'agent'] as const;
export type PlanKind = (typeof PLAN_KINDS)[number];
export const PLAN_ACTIONS = ['create', 'update', 'delete', 'unchanged'] as const;

export const PlanEntry = z.object({
  kind: z.enum(PLAN_KINDS),
  key: z.string(),
  name: z.string(),
  file: z.string().describe('The file that defines it (callbench.yaml for agents)'),
  action: z.enum(PLAN_ACTIONS),
  changes: z
    .array(z.string())
    .describe('update: the changed fields by dotted path (never their values); else empty'),
});
export type PlanEntry = z.infer<typeof PlanEntry>;

export const SuitePlan = z.object({
  valid: z.boolean().describe('No problems: an apply would write it'),
  entries: z.array(PlanEntry),
  problems: z.array(SuiteProblem),
});
export type SuitePlan = z.infer<typeof SuitePlan>;

/** A resource file's part of the plan, with what its apply needs. */
export interface ResourceStep {
  kind: SuiteKind;
  entry: PlanEntry;
  file: ResourceFile;
  stored: StoredResource | undefined;
  secretFields: SecretField[];
  /** A scenario's cases read from its CSV file (undefined: inline or none). */
  csvCases?: { variables: Record<string, string> }[];
}

/** A workspace resource no file defines, deleted by a pruning apply. */
export interface DeleteStep {
  kind: SuiteKind;
  entry: PlanEntry;
  stored: StoredResource;
}

/** An agent of callbench.yaml: connected already (its id), or an http agent the apply connects. */
export interface AgentStep {
  entry: PlanEntry;
  key: string;
  id: string | null;
  connect?: { name: string; url: string; format?: 'openai' | 'simple'; apiKey?: string };
}
