import { ERRORS, type RestErrorCode } from '@wordgame/contracts';

/**
 * A failure the REST edge answers, by its registry code (status and default message from the one
 * registry in @wordgame/contracts); thrown by handlers and answered by `errorHandler`.
 * `retryAfterSeconds` (a `rate_limited` refusal) is answered as the `Retry-After` header.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly code: RestErrorCode,
    message: string = ERRORS[code].message,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }

  get status(): number {
    return ERRORS[this.code].http;
  }
}
