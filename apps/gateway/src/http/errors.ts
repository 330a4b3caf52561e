import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import type { Logger } from '@wordgame/logging';

/** Sends the one error body shape of the REST edge: `{error:{code,message}}`. */
export function sendError(res: Response, status: number, code: string, message: string): void {
  res.status(status).json({ error: { code, message } });
}

/** Unknown route: 404 `not_found`. */
export const notFound: RequestHandler = (_req, res) => sendError(res, 404, 'not_found', 'no such route');

/**
 * Last-resort handler: malformed JSON and oversized bodies are the client's fault (4xx with a
 * code); anything else is logged with its cause and answered 500 without detail.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const e = err as { type?: unknown; status?: unknown };
    if (e.type === 'entity.parse.failed') return sendError(res, 400, 'malformed_json', 'request body is not valid JSON');
    if (e.type === 'entity.too.large') return sendError(res, 413, 'body_too_large', 'request body is too large');
    if (typeof e.status === 'number' && e.status >= 400 && e.status < 500) return sendError(res, e.status, 'bad_request', 'bad request');
    logger.error({ err, method: req.method, path: req.path }, 'unhandled request failure');
    return sendError(res, 500, 'internal', 'internal error');
  };
}
