import { Code } from '@connectrpc/connect';

/**
 * The backend's closed set of domain error codes, each with the Connect code it maps to. The edge
 * (rpc/interceptors.ts) turns a DomainError into a ConnectError carrying the machine code in the
 * `x-error-code` metadata header; the gateway maps that code to HTTP.
 */
export const ERROR_CODES = {
  caller_required: Code.Unauthenticated,
  malformed_body: Code.InvalidArgument,
  launch_data_invalid: Code.Unauthenticated,
  launch_data_stale: Code.Unauthenticated,
  platform_not_configured: Code.FailedPrecondition,
  invalid_email: Code.InvalidArgument,
  invalid_password: Code.InvalidArgument,
  invalid_mode: Code.InvalidArgument,
  email_taken: Code.AlreadyExists,
  invalid_credentials: Code.Unauthenticated,
  session_invalid: Code.Unauthenticated,
  account_suspended: Code.PermissionDenied,
  untrusted_session: Code.PermissionDenied,
  invalid_display_name: Code.InvalidArgument,
  email_in_use: Code.AlreadyExists,
  confirmation_invalid: Code.NotFound,
  purchase_forbidden: Code.PermissionDenied,
  invalid_product_id: Code.InvalidArgument,
  unknown_product: Code.NotFound,
  not_sold_for_chips: Code.FailedPrecondition,
  insufficient_chips: Code.FailedPrecondition,
  invalid_idempotency_key: Code.InvalidArgument,
  idempotency_key_reused: Code.FailedPrecondition,
  invalid_title: Code.InvalidArgument,
  invalid_atoms: Code.InvalidArgument,
  invalid_prices: Code.InvalidArgument,
  invalid_platform: Code.InvalidArgument,
  invalid_external_id: Code.InvalidArgument,
  rate_limited: Code.ResourceExhausted,
} as const satisfies Record<string, Code>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Metadata header that carries the machine error code on every domain ConnectError. */
export const ERROR_CODE_HEADER = 'x-error-code';

/** An expected failure with a machine code and a short message safe to show to a user. */
export class DomainError extends Error {
  override readonly name = 'DomainError';
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Metadata header that carries the whole seconds a `rate_limited` caller must wait. */
export const RETRY_AFTER_HEADER = 'x-retry-after';

/**
 * A refusal by a rate limit (limits/): ResourceExhausted `rate_limited`, with the whole seconds
 * until the limit lets the caller try again, which the edge sends as `x-retry-after`.
 */
export class RateLimited extends DomainError {
  constructor(readonly retryAfterSeconds: number) {
    super('rate_limited', `too many attempts; try again in ${retryAfterSeconds} seconds`);
  }
}
