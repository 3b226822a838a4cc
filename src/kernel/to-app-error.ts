// The error mapping, in the kernel: the HTTP server and the desktop's IPC both answer errors
// through it, so neither borrows it from the other.
import { AppError } from '../errors.js';

const MIB = 1024 * 1024;

interface FastifyishError {
  code?: string;
  statusCode?: number;
  message: string;
}

/**
 * The one place where any thrown thing becomes an AppError: ours pass through, the HTTP layer's
 * own (body too large, bad content type, malformed JSON) get our codes, and anything else is an
 * unexpected failure that the caller sees only as a 500 with the request id.
 */
export function toAppError(
  err: unknown,
  requestId: string,
  bodyLimit = MIB,
): { error: AppError; unexpected: boolean } {
  if (err instanceof AppError) return { error: err, unexpected: false };
  const e = err as FastifyishError;
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {
        error: new AppError(
          'payload_too_large',
          413,
          `The request body is larger than ${bodyLimit / MIB} MiB`,
        ),
        unexpected: false,
      };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        error: new AppError(
          'unsupported_media_type',
          415,
          'Send request bodies as JSON with Content-Type: application/json',
        ),
        unexpected: false,
      };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return {
        error: new AppError(
          'bad_request',
          400,
          'The Content-Length header does not match the body',
        ),
        unexpected: false,
      };
    default:
      if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
        return { error: new AppError('bad_request', e.statusCode, e.message), unexpected: false };
      }
      return {
        error: new AppError(
          'internal_error',
          500,
          `An unexpected error occurred (request ${requestId}); nothing already saved was lost`,
          { requestId },
        ),
        unexpected: true,
      };
  }
}
