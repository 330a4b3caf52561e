import { ERRORS } from '@wordgame/contracts';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import type { Logger } from '@wordgame/logging';
import { fromBackendError } from './backend-errors.js';
import { ApiError } from './api-error.js';
import { sendJson } from './json.js';

/** Sends the one error body shape of the REST edge: `{error:{code,message}}`. */
export function sendError(res: Response, status: number, code: string, message: string): void {
  sendJson(res, status, { error: { code, message } });
}

/** Answers an ApiError with its status and body (and `Retry-After` when it carries a wait). */
export function sendApiError(res: Response, err: ApiError): void {
  if (err.retryAfterSeconds !== undefined) res.setHeader('retry-after', String(err.retryAfterSeconds));
  sendError(res, err.status, err.code, err.message);
}

/** Unknown route: 404 `not_found`. */
export const notFound: RequestHandler = (_req, res) => sendApiError(res, new ApiError('not_found'));

/**
 * Last-resort handler and the edge's one mapping: ApiErrors answer as themselves, backend
 * (Connect) failures map through `fromBackendError`, malformed JSON and oversized bodies are the
 * client's fault (4xx with a code); anything else is logged with its cause and answered 500
 * without detail.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const log = req.log ?? logger;
    if (res.headersSent) {
      log.error({ err }, 'failure after the response started');
      res.end();
      return;
    }
    if (err instanceof ApiError) return sendApiError(res, err);
    const e = err as { type?: unknown; status?: unknown };
    if (e.type === 'entity.parse.failed') return sendApiError(res, new ApiError('malformed_json'));
    if (e.type === 'entity.too.large') return sendApiError(res, new ApiError('body_too_large'));
    if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported')
      return sendApiError(res, new ApiError('unsupported_media_type'));
    if (typeof e.status === 'number' && e.status >= 400 && e.status < 500)
      return sendError(res, e.status, 'invalid_request', ERRORS.invalid_request.message);
    const mapped = fromBackendError(err);
    if (mapped) {
      if (mapped.status >= 500) log.warn({ err, code: mapped.code }, 'backend call failed');
      return sendApiError(res, mapped);
    }
    log.error({ err, method: req.method, path: req.path }, 'unhandled request failure');
    return sendApiError(res, new ApiError('internal'));
  };
}
