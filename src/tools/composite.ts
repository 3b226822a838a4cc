import { AppError, validationError } from '../errors.js';
import { CallFailed, ToolFailure } from './outcome.js';
import type { ExecuteTool, ToolAnswer, ToolCall, ToolDef } from './types.js';
import { isRecord } from '../domain/records.js';

/** A step that did not succeed, with its answer: ends the composite. */
class StepFailed extends Error {
  constructor(
    readonly step: string,
    readonly answer: ToolAnswer,
  ) {
    super(`Step ${step} failed`);
  }
}

export interface CompositeRun {
  def: ToolDef;
  values: Record<string, unknown>;
  call: ToolCall;
  /** The runtime passes itself in: importing it would be circular. */
  execute: ExecuteTool;
}

/**
 * Runs a composite's steps: a step waits for the step it dependsOn, steps without one start at
 * once (in parallel). A step's params come from the composite's own parameters, else from the
 * mapped results of the steps finished before it, newest first.
 */
export async function runComposite({
  def,
  values,
  call,
  execute,
}: CompositeRun): Promise<
  { result: unknown; statusCode: null; attempts: number; warnings: string[] } | ToolAnswer
> {
  const steps = def.steps ?? [];
  const finished: { tool: string; result: unknown }[] = [];
  const runs: Promise<ToolAnswer>[] = [];

  steps.forEach((step, i) => {
    const after = step.dependsOn
      ? runs[steps.findIndex((s) => s.tool === step.dependsOn)]!
      : Promise.resolve(null);
    runs[i] = after.then(async () => {
      const tool = await call.deps.findTool(step.tool);
      if (!tool) throw new StepFailed(step.tool, missing(step.tool));
      const params: Record<string, unknown> = {};
      for (const name of step.params) {
        if (values[name] !== undefined) params[name] = values[name];
        else {
          const source = [...finished]
            .reverse()
            .find((f) => isRecord(f.result) && f.result[name] !== undefined);
          if (source) params[name] = (source.result as Record<string, unknown>)[name];
        }
      }
      let answer: ToolAnswer;
      try {
        // A composite's raw answer would be one of many: its steps keep none.
        const depth = (call.depth ?? 0) + 1;
        answer = await execute(tool, params, { ...call, depth, captureRaw: false });
      } catch (err) {
        if (err instanceof AppError && err.code === 'validation_error') {
          const details = (err.details as { path: string; message: string }[]).map((d) => ({
            path: `steps.${step.tool}.${d.path}`,
            message: d.message,
          }));
          throw validationError(
            `Step ${step.tool} cannot be called: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}`,
            details,
          );
        }
        throw err;
      }
      if (!answer.success) throw new StepFailed(step.tool, answer);
      finished.push({ tool: step.tool, result: answer.result });
      return answer;
    });
  });

  const settled = await Promise.allSettled(runs);
  const rejected = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (rejected) {
    const reason = rejected.reason as Error;
    if (!(reason instanceof StepFailed)) throw reason;
    if (reason.answer.approvalRequired) return reason.answer;
    const type = (reason.answer.error?.type ?? 'http_error') as ToolFailure['type'];
    throw new CallFailed(
      new ToolFailure(
        type,
        `Step ${reason.step} failed: ${reason.answer.error?.message ?? 'unknown error'}`,
        reason.answer.statusCode,
      ),
      1,
      reason.step,
    );
  }
  const answers = settled.map((s) => (s as PromiseFulfilledResult<ToolAnswer>).value);
  const result = def.aggregateResults
    ? Object.fromEntries(steps.map((s, i) => [s.tool, answers[i]!.result]))
    : (answers[answers.length - 1]?.result ?? null);
  return {
    result,
    statusCode: null,
    attempts: 1,
    warnings: answers.flatMap((a, i) => a.warnings.map((w) => `${steps[i]!.tool}: ${w}`)),
  };
}

const missing = (name: string): ToolAnswer => ({
  success: false,
  responseTime: 0,
  result: null,
  statusCode: null,
  attempts: 0,
  warnings: [],
  error: { type: 'not_found', message: `The step's tool ${name} no longer exists` },
});
