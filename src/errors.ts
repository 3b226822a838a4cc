/**
 * The one error type of the engine. Every failure an operation can report is an AppError;
 * the HTTP server and the IPC bridge turn it into their envelope in one place each.
 */
export interface ErrorDetail {
  path: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'AppError';
  }

  toBody(): { code: string; message: string; details?: unknown } {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

export const validationError = (message: string, details: ErrorDetail[]): AppError =>
  new AppError('validation_error', 400, message, details);

/** A single-field validation failure, the most common case in handlers. */
export const invalidField = (path: string, message: string): AppError =>
  validationError(`${path}: ${message}`, [{ path, message }]);

export const notFound = (what: string, id: string): AppError =>
  new AppError('not_found', 404, `${what} '${id}' was not found`, { resource: what, id });

export const conflict = (message: string, details?: unknown): AppError =>
  new AppError('conflict', 409, message, details);

export const unauthorized = (message: string): AppError =>
  new AppError('unauthorized', 401, message);
export const forbidden = (message: string): AppError => new AppError('forbidden', 403, message);
