import { Code, ConnectError } from '@connectrpc/connect';
import { ERRORS, errorCodeOf, RETRY_AFTER_HEADER, type ErrorCode, type RestErrorCode } from '@wordgame/contracts';
import { isNetworkFailure } from '@wordgame/net-errors';
import { ApiError } from './api-error.js';

/** Longest wait passed on (a day); a missing or malformed one becomes 60 seconds. */
const RETRY_AFTER_MAX = 86_400;

/** The wait of a `rate_limited` backend refusal, in whole seconds (1 to a day). */
export function retryAfterOf(err: ConnectError): number {
  const raw = err.metadata.get(RETRY_AFTER_HEADER) ?? '';
  const seconds = /^[0-9]{1,6}$/.test(raw) ? Number(raw) : 60;
  return Math.min(Math.max(seconds, 1), RETRY_AFTER_MAX);
}

/** Edge code for a backend failure that names no client-facing code, by Connect code. */
const BY_CONNECT_CODE: Partial<Record<Code, RestErrorCode>> = {
  [Code.InvalidArgument]: 'invalid_request',
  [Code.OutOfRange]: 'invalid_request',
  [Code.Unauthenticated]: 'unauthenticated',
  [Code.PermissionDenied]: 'forbidden',
  [Code.NotFound]: 'not_found',
  [Code.AlreadyExists]: 'conflict',
  [Code.FailedPrecondition]: 'conflict',
  [Code.Aborted]: 'conflict',
  [Code.Unavailable]: 'backend_unavailable',
  [Code.DeadlineExceeded]: 'backend_unavailable',
  [Code.ResourceExhausted]: 'backend_unavailable',
  [Code.Canceled]: 'backend_unavailable',
  [Code.Unimplemented]: 'backend_unavailable',
};

/**
 * The REST edge's one mapping of a failed backend call, or undefined when `err` is not a backend
 * (Connect) failure. A code the backend names in `x-error-code` is kept, with the backend's
 * message (written for users), when the registry marks it `client`; `rate_limited` keeps the
 * backend's wait (`x-retry-after`) for the `Retry-After` header. Anything else (a `service` code,
 * the backend's `internal`, a code this build does not know because the backend is newer, or no
 * code) maps by Connect code with the edge's own message, so no backend internals leak.
 */
export function fromBackendError(err: unknown): ApiError | undefined {
  if (!(err instanceof ConnectError)) return undefined;
  const named = errorCodeOf(err);
  if (named !== undefined && isClientCode(named)) {
    return new ApiError(named, err.rawMessage || undefined, named === 'rate_limited' ? retryAfterOf(err) : undefined);
  }
  // The transport failed (the backend never answered), whatever Connect code the client library
  // chose: connect-node picks it with `instanceof Error`, which a cross-realm error (jest's vm) fails.
  if (isNetworkFailure(err)) return new ApiError('backend_unavailable');
  return new ApiError(BY_CONNECT_CODE[err.code] ?? 'internal');
}

function isClientCode(code: ErrorCode): code is RestErrorCode {
  return ERRORS[code].audience === 'client';
}
