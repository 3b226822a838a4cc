import type { SimulationSettings } from '../simulations/settings.js';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import type { EventBus } from '../events.js';
import type { SecretBox } from '../kernel/secret-box.js';
import type { Store } from '../store/index.js';
import type { User } from '../store/personas.js';
import type { RuntimeDeps } from '../tools/types.js';
import type { SyncService } from '../providers/sync.js';
import type { AlertService } from '../alerts/service.js';
import type { AlertEvaluator } from '../alerts/evaluator.js';
import type { ModelConnection } from '../llm/types.js';
import type { SimulationRunner } from '../simulations/runner.js';
import type { CallEvaluator } from '../simulations/call-evaluator.js';
import type { Scheduler } from '../schedules/scheduler.js';
import type { Speech } from '../speech/index.js';
import type { Recordings } from '../voice/recordings.js';
import type { DemoHost } from '../demo/host.js';

/** Who is calling: an API key, a workspace token, or the desktop user over IPC. */
export type Caller =
  | { kind: 'api_key'; keyId: string; user: User }
  | { kind: 'token'; tokenId: string; workspaceId: string; user: User }
  | { kind: 'local'; user: User };

export interface EngineServices {
  store: Store;
  clock: Clock;
  events: EventBus;
  secrets: SecretBox;
  tools: RuntimeDeps;
  sync: SyncService;
  alerts: AlertService;
  evaluator: AlertEvaluator;
  /** The default model connection of every role (CALLBENCH_LLM_*), or null. */
  llmDefault: ModelConnection | null;
  runner: SimulationRunner;
  /** Scores imported calls of monitored agents in the background (production monitoring). */
  callEvaluator: CallEvaluator;
  /** Simulation pool size and limits where the settings say nothing (the engine's options). */
  simulationDefaults: SimulationSettings;
  scheduler: Scheduler;
  /** Voices and speech-to-text of audio simulations. */
  speech: Speech;
  /** Recordings of audio calls in the data dir. */
  recordings: Recordings;
  /** The built-in demo agent's server (started on first use). */
  demo: DemoHost;
  /** Aborted as the engine begins to stop: long waits (a `?wait=` poll) answer at once. */
  stopping: AbortSignal;
}

export interface OperationContext extends EngineServices {
  caller: Caller;
}

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface HttpBinding {
  method: HttpMethod;
  /** Fastify-style path (`/v1/tools/:tool`). Workspace paths start with `/api/v1/workspaces/:workspace_id`. */
  path: string;
  /** Success status (200 unless said); a handler may answer another with `withStatus`. */
  status?: number;
  /** The largest request body in bytes, where it is not the server's 1 MiB (a suite's files). */
  bodyLimit?: number;
  /**
   * Answered without a credential (a suite file's JSON Schema, which editors fetch): the handler
   * gets an anonymous caller and must answer the same to anyone.
   */
  public?: boolean;
}

type Shape = z.ZodRawShape;
/** No fields: the default for an operation without params, query or body. */
type NoFields = Record<never, never>;

export interface OperationSpec<
  N extends string,
  P extends Shape,
  Q extends Shape,
  B extends Shape,
  S extends z.ZodType | undefined,
  O,
> {
  name: N;
  summary: string;
  http?: HttpBinding;
  params?: P;
  query?: Q;
  body?: B;
  /** Response data schema, for the OpenAPI document and the clients' types. */
  output?: S;
  /**
   * Set on operations a workspace token must never call, even on its own workspace (those that
   * would widen or prolong its own access): a token gets a 403 with this message.
   */
  refuseTokens?: string;
  handler(input: z.output<z.ZodObject<P & Q & B>>, ctx: OperationContext): O | Promise<O>;
}

/** An operation with its merged input schema: path parameters, query and body in one flat object. */
export interface Operation {
  name: string;
  summary: string;
  http?: HttpBinding;
  params: Shape;
  query: Shape;
  body: Shape | undefined;
  input: z.ZodObject;
  output?: z.ZodType;
  refuseTokens?: string;
  handler(this: void, input: unknown, ctx: OperationContext): unknown;
}

/** What an operation answers: its output schema's type where it declares one, else the handler's. */
type AnswerOf<S, O> = S extends z.ZodType ? z.output<S> : O extends WithStatus<infer T> ? T : O;

/**
 * An operation that keeps its name, input and output types (for the catalogue's typed clients);
 * at run time it is the erased Operation that HTTP, IPC and the CLI use.
 */
export interface TypedOperation<N extends string, I, O> extends Operation {
  name: N;
  /** Types only: never set at run time. */
  readonly types?: { input: I; output: O };
}

/**
 * Defines an operation once. The HTTP routes, the IPC bridge and the CLI all call it through the
 * same invoker, so validation and behaviour cannot differ between them.
 */
export function defineOperation<
  N extends string,
  P extends Shape = NoFields,
  Q extends Shape = NoFields,
  B extends Shape = NoFields,
  S extends z.ZodType | undefined = undefined,
  O = unknown,
>(
  spec: OperationSpec<N, P, Q, B, S, O>,
): TypedOperation<N, z.input<z.ZodObject<P & Q & B>>, AnswerOf<S, Awaited<O>>> {
  const params = (spec.params ?? {}) as Shape;
  const query = (spec.query ?? {}) as Shape;
  const handler = spec.handler.bind(spec) as Operation['handler'];
  return {
    name: spec.name,
    summary: spec.summary,
    http: spec.http,
    params,
    query,
    body: spec.body,
    input: z.strictObject({ ...params, ...query, ...(spec.body ?? {}) }),
    output: spec.output,
    refuseTokens: spec.refuseTokens,
    handler,
  };
}

/** A handler's answer with a status other than its operation's default (e.g. 200 for an existing agent). */
export class WithStatus<T> {
  constructor(
    readonly status: number,
    readonly data: T,
  ) {}
}

export const withStatus = <T>(status: number, data: T): WithStatus<T> =>
  new WithStatus(status, data);

export const isWorkspaceOperation = (op: Operation): boolean => 'workspace_id' in op.params;
