import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '@wordgame/logging';
import type { SessionContext } from '../auth/session.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request id: the client's `x-request-id` when it is well-formed, else a fresh uuid. */
    requestId: string;
    /** A child logger carrying `requestId` (and, once known, the operation and account). */
    log: Logger;
    /** The caller's session, set by the auth middleware on authenticated operations. */
    session?: SessionContext;
  }
}

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Assigns every request an id (`x-request-id` in, echoed out) and a child logger with it, so
 * every log line about one request, here and in the backend, can be joined on that id.
 */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    req.requestId = incoming !== undefined && SAFE_ID.test(incoming) ? incoming : randomUUID();
    req.log = logger.child({ requestId: req.requestId });
    res.setHeader('x-request-id', req.requestId);
    next();
  };
}
