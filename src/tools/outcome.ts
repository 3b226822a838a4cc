export { FAILURE_TYPES, type FailureType, type Outcome } from '../domain/tools.js';
import type { FailureType } from '../domain/tools.js';
import type { ReadAnswer } from './raw-answer.js';

export class ToolFailure extends Error {
  constructor(
    readonly type: FailureType,
    message: string,
    readonly statusCode: number | null = null,
    /** The target's answer, when there was one (a tool test shows it raw). */
    readonly answer?: ReadAnswer,
  ) {
    super(message);
  }
}

export function failureForStatus(status: number, body: string, answer?: ReadAnswer): ToolFailure {
  const snippet = body.length > 200 ? `${body.slice(0, 200)}…` : body;
  const message = `The target answered ${status}${snippet ? `: ${snippet}` : ''}`;
  if (status === 401 || status === 403)
    return new ToolFailure('auth_error', message, status, answer);
  if (status === 404) return new ToolFailure('not_found', message, status, answer);
  return new ToolFailure('http_error', message, status, answer);
}

/** A failed call, with how many attempts it took (and which composite step failed, if any). */
export class CallFailed extends Error {
  constructor(
    readonly failure: ToolFailure,
    readonly attempts: number,
    readonly step?: string,
  ) {
    super(failure.message);
  }

  describe(): { type: string; message: string; step?: string } {
    return this.step
      ? { type: this.failure.type, message: this.failure.message, step: this.step }
      : { type: this.failure.type, message: this.failure.message };
  }
}
