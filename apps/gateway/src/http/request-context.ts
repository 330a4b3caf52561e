import { randomUUID } from 'node:crypto';
import type { Express, Request, RequestHandler } from 'express';
import type { Logger } from '@wordgame/logging';
import type { SessionContext } from './session.js';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request id: the client's `x-request-id` when it is well-formed, else a fresh uuid. */
    requestId: string;
    /** A child logger carrying `requestId` (and, once known, the operation and account). */
    log: Logger;
    /** The caller's session, set by the auth middleware on authenticated operations. */
    session?: SessionContext;
    /** The client's address (`req.ip`: the socket's, or a trusted proxy's X-Forwarded-For per GATEWAY_TRUST_PROXY). */
    clientAddress: string;
  }
}

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const STATE = Symbol('request log');

/** A request's logger, made only when something logs: base logger plus the fields bound so far. */
interface LogState {
  base: Logger;
  bindings: Record<string, unknown>;
  made?: Logger;
}
type WithLogState = Request & { [STATE]?: LogState };

/**
 * Assigns every request an id (`x-request-id` in, echoed out) and a logger carrying it, so every
 * log line about one request, here and in the backend, can be joined on that id. `req.log` is made
 * on first use (a getter on the app's request prototype): a request that logs nothing at the
 * configured level builds no child logger at all; fields bound with `bindRequestLog` before then
 * cost nothing either.
 */
export function requestContext(app: Express, logger: Logger): RequestHandler {
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    enumerable: true,
    get(this: WithLogState): Logger {
      const state = this[STATE];
      if (state === undefined) return logger;
      return (state.made ??= state.base.child(state.bindings));
    },
    set(this: WithLogState, value: Logger) {
      const state = this[STATE];
      if (state) state.made = value;
      else this[STATE] = { base: value, bindings: {}, made: value };
    },
  });
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    req.requestId = incoming !== undefined && SAFE_ID.test(incoming) ? incoming : randomUUID();
    (req as WithLogState)[STATE] = { base: logger, bindings: { requestId: req.requestId } };
    res.setHeader('x-request-id', req.requestId);
    req.clientAddress = req.ip ?? req.socket.remoteAddress ?? '';
    next();
  };
}

/** Adds fields to every later log line of the request (free while nothing has logged yet). */
export function bindRequestLog(req: Request, fields: Record<string, unknown>): void {
  const state = (req as WithLogState)[STATE];
  if (state !== undefined && state.made === undefined) Object.assign(state.bindings, fields);
  else req.log = req.log.child(fields);
}

/** Whether the request's logger writes `level` (so a caller can skip building a line nobody reads). */
export function requestLogs(req: Request, level: 'info' | 'debug'): boolean {
  const state = (req as WithLogState)[STATE];
  return (state?.made ?? state?.base ?? req.log).isLevelEnabled(level);
}
