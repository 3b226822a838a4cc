import { AppError } from '../../errors.js';
import type { Store } from '../../store/index.js';
import { agentOperations } from '../agents.js';
import { alertOperations } from '../alerts.js';
import { parseInput } from '../invoke.js';
import { personaOperations } from '../personas.js';
import { scenarioOperations } from '../scenarios.js';
import { scheduleOperations } from '../schedules.js';
import { scorecardOperations } from '../scorecards.js';
import { toolOperations } from '../tools.js';
import { WithStatus, type Operation, type OperationContext } from '../types.js';
import {
  KIND_SPECS,
  type FileObject,
  type InputRefs,
  type RefKind,
  type SuiteKind,
} from './kinds.js';
import { APPLY_ORDER, planSuite, type Planned, type SuiteRequest } from './plan.js';
import type { AgentStep, DeleteStep, ResourceStep, SuitePlan } from './plan-types.js';
import { updateInput } from './update-input.js';
import {
  errorProblems,
  problemAt,
  suiteInvalid,
  wholeFile,
  type Locator,
  type SuiteProblem,
} from './problems.js';

/**
 * Applying a suite (#38): the plan made inside one store transaction, then carried out through the
 * resources' own operations (so every rule of the API holds), tools first and deletes last. Any
 * problem, found by the plan or only by a write (an invalid cron in the last file), rolls it all
 * back and answers 400 `suite_invalid` naming the file and field.
 */

const operations = new Map<string, Operation>(
  [
    ...personaOperations,
    ...scorecardOperations,
    ...scenarioOperations,
    ...scheduleOperations,
    ...toolOperations,
    ...alertOperations,
    ...agentOperations,
  ].map((op) => [op.name, op]),
);

/** Each kind's operations and how their inputs name the resource. */
const OPS: Record<SuiteKind, { plural: string; id: string; workspace: boolean }> = {
  persona: { plural: 'personas', id: 'persona_id', workspace: true },
  scorecard: { plural: 'scorecards', id: 'scorecard_id', workspace: true },
  scenario: { plural: 'scenarios', id: 'scenario_id', workspace: true },
  schedule: { plural: 'schedules', id: 'schedule_id', workspace: true },
  tool: { plural: 'tools', id: 'tool', workspace: false },
  alert: { plural: 'alerts', id: 'alert_id', workspace: false },
};

/** Calls one operation as its route would (input validated), inside the apply's transaction. */
async function call(
  ctx: OperationContext,
  name: string,
  raw: Record<string, unknown>,
  where: Locator | ((err: AppError) => SuiteProblem[]),
): Promise<Record<string, unknown>> {
  const op = operations.get(name)!;
  try {
    const out = await op.handler(parseInput(op, raw), ctx);
    return (out instanceof WithStatus ? out.data : out) as Record<string, unknown>;
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    throw suiteInvalid(typeof where === 'function' ? where(err) : errorProblems(where, err));
  }
}

/** agents.connect's fields as callbench.yaml names them. */
const AGENT_FIELDS: Record<string, string> = {
  'credentials.base_url': 'url',
  'credentials.api_key': 'apiKey',
  agent_id: 'providerAgentId',
  format: 'format',
  provider: 'provider',
};

/** The id in an operation's answer: `{persona: {id}}` or the resource itself. */
const idIn = (out: Record<string, unknown>): string =>
  typeof out.id === 'string' ? out.id : (Object.values(out)[0] as { id: string }).id;

/** 403 when a workspace token would create or update a tool, an alert or an agent. */
export function assertTokenMayApply(ctx: OperationContext, plan: SuitePlan): void {
  if (ctx.caller.kind !== 'token') return;
  const refused = plan.entries.filter(
    (e) =>
      ['tool', 'alert', 'agent'].includes(e.kind) &&
      (e.action === 'create' || e.action === 'update'),
  );
  if (!refused.length) return;
  throw new AppError(
    'forbidden',
    403,
    `A workspace access token may not create or update tools, alerts or agents (${refused.length} in this suite); apply it with an API key`,
    refused.map((e) => ({ path: e.file, message: `would ${e.action} the ${e.kind} '${e.key}'` })),
  );
}

class Applying {
  /** Ids by kind and key: the ones this apply created, then the workspace's. */
  private readonly ids = new Map<string, string>();

  constructor(
    private readonly ctx: OperationContext,
    private readonly planned: Planned,
    private readonly workspaceId: string,
  ) {}

  idOf(kind: RefKind, key: string): string {
    const id =
      this.ids.get(`${kind}:${key}`) ??
      (kind === 'agent' ? undefined : this.planned.stored.find(kind, key)?.id);
    if (!id) throw new Error(`suite apply: no ${kind} '${key}' (the plan checked every reference)`);
    return id;
  }

  async agents(): Promise<void> {
    for (const [i, step] of this.planned.agents.entries()) {
      if (step.id) this.ids.set(`agent:${step.key}`, step.id);
      else await this.connect(step, i);
    }
  }

  private async connect(step: AgentStep, index: number): Promise<void> {
    const manifest = this.planned.manifest!.source;
    const c = step.connect!;
    const problems = (err: AppError): SuiteProblem[] => {
      const details = errorProblems(wholeFile(manifest.file), err);
      return details.map((d) => {
        const field = AGENT_FIELDS[d.field];
        return problemAt(manifest, ['agents', index, ...(field ? [field] : [])], d.message);
      });
    };
    const credentials = { base_url: c.url, ...(c.apiKey !== undefined && { api_key: c.apiKey }) };
    const out = await call(
      this.ctx,
      'agents.connect',
      { provider: 'http', agent_id: c.name, credentials, ...(c.format && { format: c.format }) },
      problems,
    );
    this.ids.set(`agent:${step.key}`, idIn(out));
  }

  /** The step's file as its operation's input: keys as ids, placeholders and cases filled. */
  private inputOf(step: ResourceStep): FileObject {
    const stored = step.stored;
    const byName = new Map(
      step.secretFields.map((f) => [f.name, stored?.secrets.get(f.path)] as const),
    );
    const values = this.planned.values;
    const refs: InputRefs = {
      idOf: (kind, key) => this.idOf(kind, key),
      secret: (name) => (Object.hasOwn(values, name) ? values[name]! : (byName.get(name) ?? '')),
      cases: () => step.csvCases ?? [],
    };
    const input = KIND_SPECS[step.kind].toInput(step.file.data, refs);
    if (step.kind === 'scorecard' && stored)
      return { ...input, metrics: keptMetricIds(input, stored.resource) };
    return input;
  }

  async resource(step: ResourceStep): Promise<void> {
    const { plural, id, workspace } = OPS[step.kind];
    const scope = workspace ? { workspace_id: this.workspaceId } : {};
    const key = `${step.kind}:${step.file.key}`;
    if (step.entry.action === 'unchanged') {
      this.ids.set(key, step.stored!.id);
      return;
    }
    const input = this.inputOf(step);
    if (step.entry.action === 'create') {
      const out = await call(
        this.ctx,
        `${plural}.create`,
        { ...scope, ...input },
        step.file.source,
      );
      this.ids.set(key, idIn(out));
      return;
    }
    this.ids.set(key, step.stored!.id);
    await call(
      this.ctx,
      `${plural}.update`,
      { ...scope, [id]: step.stored!.id, ...updateInput(step.kind, input, step.stored!) },
      step.file.source,
    );
  }

  async delete(step: DeleteStep): Promise<void> {
    const { plural, id } = OPS[step.kind];
    await call(
      this.ctx,
      `${plural}.delete`,
      { workspace_id: this.workspaceId, [id]: step.stored.id },
      wholeFile(step.entry.file),
    );
  }

  /** The keys of every resource the suite names, stored on those that had none. */
  async persistKeys(store: Store): Promise<void> {
    for (const kind of APPLY_ORDER) {
      const keys = new Map<string, string>();
      for (const step of this.planned.resources)
        if (step.kind === kind) keys.set(this.ids.get(`${kind}:${step.file.key}`)!, step.file.key);
      await store.suiteKeys.persist(kind, keys);
    }
  }
}

/** A stored scorecard's metric ids, kept on the metrics of the file with the same name. */
function keptMetricIds(input: FileObject, stored: Record<string, unknown>): unknown[] {
  const pool = [...((stored.metrics as { id: string; name: string }[] | undefined) ?? [])];
  return ((input.metrics as Record<string, unknown>[] | undefined) ?? []).map((m) => {
    const i = pool.findIndex((s) => s.name === m.name);
    return i < 0 ? m : { ...m, id: pool.splice(i, 1)[0]!.id };
  });
}

/** Plans and applies a suite in one transaction; see the module's comment. */
export async function applySuite(
  ctx: OperationContext,
  workspaceId: string,
  request: SuiteRequest,
): Promise<SuitePlan> {
  return ctx.store.transaction(async (tx) => {
    const inside: OperationContext = { ...ctx, store: tx };
    const planned = await planSuite(inside, tx, workspaceId, request);
    if (!planned.plan.valid) throw suiteInvalid(planned.plan.problems);
    assertTokenMayApply(ctx, planned.plan);
    const applying = new Applying(inside, planned, workspaceId);
    await applying.agents();
    for (const step of planned.resources) await applying.resource(step);
    for (const step of planned.deletes) await applying.delete(step);
    await applying.persistKeys(tx);
    if (planned.suiteName) await tx.workspaces.setSuiteName(workspaceId, planned.suiteName);
    return planned.plan;
  });
}
