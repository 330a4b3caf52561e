import { randomUUID } from 'node:crypto';

/** YooKassa's error codes, one per HTTP status it documents. */
export type ErrorCode =
  | 'invalid_request'
  | 'invalid_credentials'
  | 'forbidden'
  | 'not_found'
  | 'too_many_requests'
  | 'internal_server_error';

/** The HTTP statuses that carry a YooKassa error body (and that a fault may inject). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 429 | 500;

const CODES: Record<ErrorStatus, ErrorCode> = {
  400: 'invalid_request',
  401: 'invalid_credentials',
  403: 'forbidden',
  404: 'not_found',
  429: 'too_many_requests',
  500: 'internal_server_error',
};

/** The error code YooKassa pairs with `status`. */
export function codeFor(status: ErrorStatus): ErrorCode {
  return CODES[status];
}

/** The body YooKassa answers every error with; `id` is fresh per response, as in the real API. */
export interface ErrorBody {
  type: 'error';
  id: string;
  code: ErrorCode;
  description: string;
  parameter?: string;
}

/** 405 (wrong method) and 415 (not JSON): YooKassa documents no code for them; invalid_request is used. */
export type ProtocolErrorStatus = 405 | 415;

/**
 * A /v3 request failing the way YooKassa fails it. Thrown by the domain modules and turned into
 * an error body by the API layer, so handlers never build responses by hand.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: ErrorStatus | ProtocolErrorStatus,
    readonly description: string,
    readonly parameter?: string,
  ) {
    super(description);
  }

  /** The JSON body for this error. */
  body(): ErrorBody {
    const code = this.status === 405 || this.status === 415 ? 'invalid_request' : codeFor(this.status);
    const body: ErrorBody = { type: 'error', id: randomUUID(), code, description: this.description };
    if (this.parameter !== undefined) body.parameter = this.parameter;
    return body;
  }
}

/** 400 invalid_request naming the offending parameter. */
export function invalidRequest(description: string, parameter?: string): ApiError {
  return new ApiError(400, description, parameter);
}

/** 404 not_found: unknown object, or one that belongs to another shop (never reveals which). */
export function notFound(description: string): ApiError {
  return new ApiError(404, description);
}

/**
 * A control-API request that cannot be carried out (unknown object, wrong state, bad body).
 * Control errors are plain `{ error }` JSON, deliberately unlike YooKassa's, so a test never
 * mistakes one for the other.
 */
export class ControlError extends Error {
  override readonly name = 'ControlError';
  constructor(
    readonly status: 400 | 404 | 409,
    message: string,
  ) {
    super(message);
  }
}
