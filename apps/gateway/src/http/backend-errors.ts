import { Code, ConnectError } from '@connectrpc/connect';
import { ApiError } from './api-error.js';
import { isErrorCode, statusOf, type ErrorCode } from './error-codes.js';

/** Response metadata header in which the backend names its machine error code. */
export const BACKEND_ERROR_CODE_HEADER = 'x-error-code';

/** Response metadata header in which the backend states a `rate_limited` caller's wait, in whole seconds. */
export const BACKEND_RETRY_AFTER_HEADER = 'x-retry-after';

/** Longest wait passed on (a day); a missing or malformed one becomes 60 seconds. */
const RETRY_AFTER_MAX = 86_400;

/** The wait of a `rate_limited` backend refusal, in whole seconds (1 to a day). */
export function retryAfterOf(err: ConnectError): number {
  const raw = err.metadata.get(BACKEND_RETRY_AFTER_HEADER) ?? '';
  const seconds = /^[0-9]{1,6}$/.test(raw) ? Number(raw) : 60;
  return Math.min(Math.max(seconds, 1), RETRY_AFTER_MAX);
}

/** Edge code for a backend failure that names no machine code the edge knows, by Connect code. */
const BY_CONNECT_CODE: Partial<Record<Code, ErrorCode>> = {
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
 * 5xx machine codes the backend names that are kept as they are: each tells the client what is
 * unavailable (and the provider, for intake, to redeliver) rather than a generic outage.
 */
const NAMED_UNAVAILABLE: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'platform_not_configured',
  'rail_not_configured',
  'bot_unavailable',
  'provider_unavailable',
  'intake_unavailable',
]);

/**
 * Maps a failed backend call to the edge's error, or undefined when `err` is not a backend
 * (Connect) failure. A machine code the backend names is kept only when it is one of the edge's
 * client-facing (4xx) codes or one of `NAMED_UNAVAILABLE`; its message is kept with it because the
 * backend writes those for users; `rate_limited` keeps the backend's wait (`x-retry-after`) for the
 * `Retry-After` header. Everything else maps by Connect code with the edge's own
 * message, so no backend internals leak.
 */
export function fromBackendError(err: unknown): ApiError | undefined {
  if (!(err instanceof ConnectError)) return undefined;
  const named = err.metadata.get(BACKEND_ERROR_CODE_HEADER) ?? '';
  if (named === 'rate_limited') return new ApiError(named, err.rawMessage || undefined, retryAfterOf(err));
  if (isErrorCode(named) && (statusOf(named) < 500 || NAMED_UNAVAILABLE.has(named))) {
    return new ApiError(named, err.rawMessage || undefined);
  }
  if (isTransportFailure(err)) return new ApiError('backend_unavailable');
  return new ApiError(BY_CONNECT_CODE[err.code] ?? 'internal');
}

const NETWORK_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * A call that failed in the transport (the backend never answered), whatever Connect code the
 * client library chose for it: the network error is kept as the cause. connect-node picks the
 * code with `instanceof Error`, which a cross-realm error (jest's vm) fails, so read the errno.
 */
function isTransportFailure(err: ConnectError): boolean {
  const cause = err.cause as { code?: unknown } | undefined;
  return typeof cause?.code === 'string' && NETWORK_ERRNOS.has(cause.code);
}
