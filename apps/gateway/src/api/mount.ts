import type { RequestHandler, Router } from 'express';
import { authenticate, type SessionResolver } from '../auth/middleware.js';
import { backendCallOptions } from '../auth/backend-headers.js';
import { requireOperator } from '../auth/operator.js';
import type { ApiMetrics } from '../http/metrics.js';
import type { Operation } from './operation.js';

/** What mounting needs besides the operations themselves. */
export interface MountDeps {
  sessions: SessionResolver;
  operatorToken: string | undefined;
  metrics: ApiMetrics;
}

/**
 * Mounts every operation of the table on `router`: names the request (logger field and metrics
 * label), applies the operation's auth requirement, then runs the handler and sends its reply.
 * Errors go to the app's one error handler.
 */
export function mountOperations(router: Router, operations: readonly Operation[], deps: MountDeps): void {
  const operator = requireOperator(deps.operatorToken);
  const session = authenticate(deps.sessions, false);
  const trusted = authenticate(deps.sessions, true);
  for (const op of operations) {
    const guards: RequestHandler[] =
      op.auth === 'operator' ? [operator] : op.auth === 'session' ? [session] : op.auth === 'trusted_session' ? [trusted] : [];
    router[op.method](op.path, named(op.name, deps.metrics), ...guards, async (req, res) => {
      const reply = await op.handle({ req, log: req.log, session: req.session, call: backendCallOptions(req.requestId, req.session) });
      res.status(reply.status);
      if (reply.body === undefined) res.end();
      else res.json(reply.body);
    });
  }
}

function named(operation: string, metrics: ApiMetrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    req.log = req.log.child({ operation });
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.observe(operation, res.statusCode, seconds);
      req.log.info({ status: res.statusCode, ms: Math.round(seconds * 1e4) / 10 }, 'request done');
    });
    next();
  };
}
