import { ERROR_CODES, statusOf, type ErrorCode } from './error-codes.js';

/**
 * A domain failure with its edge code; thrown by handlers and answered by `errorHandler`.
 * `retryAfterSeconds` (a `rate_limited` refusal) is answered as the `Retry-After` header.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly code: ErrorCode,
    message: string = ERROR_CODES[code][1],
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }

  get status(): number {
    return statusOf(this.code);
  }
}
