/**
 * A Bot API failure: thrown by method handlers and turned into Telegram's error body
 * `{"ok":false,"error_code":code,"description":...}` by the server. `description` carries
 * Telegram's prefix ("Bad Request: ...", "Forbidden: ...") because bots match on it.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly code: number,
    readonly description: string,
    readonly retryAfter?: number,
  ) {
    super(description);
  }
}

/** 400 with Telegram's "Bad Request: " prefix. */
export function badRequest(detail: string): ApiError {
  return new ApiError(400, `Bad Request: ${detail}`);
}

/** 403 with Telegram's "Forbidden: " prefix. */
export function forbidden(detail: string): ApiError {
  return new ApiError(403, `Forbidden: ${detail}`);
}

/** The JSON body Telegram sends for a failed call. */
export function errorBody(err: ApiError): Record<string, unknown> {
  const body: Record<string, unknown> = { ok: false, error_code: err.code, description: err.description };
  if (err.retryAfter !== undefined) body['parameters'] = { retry_after: err.retryAfter };
  return body;
}

/**
 * A control API failure (bad input or unknown entity in a test's setup). Kept apart from
 * ApiError so a test mistake is never confused with an emulated Telegram answer.
 */
export class ControlError extends Error {
  override readonly name = 'ControlError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}
