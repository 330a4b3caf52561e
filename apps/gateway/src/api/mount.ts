import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import {
  authenticate,
  type SessionResolver,
  backendCallOptions,
  bearerToken,
  operatorCallOptions,
  requireOperator,
} from '../auth/index.js';
import { sendJson, type ApiMetrics, bindRequestLog, requestLogs } from '../http/index.js';
import type { Operation } from './operation.js';

/** A route as mounted: method (upper case) and Express path. */
export interface MountedRoute {
  method: string;
  path: string;
}

/** The fixed-path routes `mountOperations` put on each router (they are not Express routes, so not in its stack). */
const fixedRoutes = new WeakMap<Router, MountedRoute[]>();
/** Each router's fixed-path handler chains by `routeKey`: what its lookup middleware runs. */
const fixedChains = new WeakMap<Router, Map<string, RequestHandler[]>>();

/**
 * Every route mounted on `router`: its Express routes (path parameters, streams, anything mounted
 * directly) and the fixed-path operations of `mountOperations`. HEAD served by GET is not listed.
 */
export function mountedRoutes(router: Router): MountedRoute[] {
  const out: MountedRoute[] = [...(fixedRoutes.get(router) ?? [])];
  for (const layer of router.stack) {
    const route = layer.route;
    if (route === undefined) continue;
    const paths = Array.isArray(route.path) ? route.path : [route.path];
    const methods = Object.keys((route as unknown as { methods: Record<string, boolean> }).methods).filter((m) => m !== '_all');
    for (const path of paths) for (const method of methods) out.push({ method: method.toUpperCase(), path: String(path) });
  }
  return out;
}

/** What mounting needs besides the operations themselves. */
export interface MountDeps {
  sessions: SessionResolver;
  metrics: ApiMetrics;
}

/**
 * Mounts every operation of the table on `router`: names the request (logger field and metrics
 * label), applies the operation's auth requirement, then runs the handler and sends its reply.
 * Errors go to the app's one error handler. Operations on fixed paths are found with one map
 * lookup (matching as Express does: any case, optional trailing slash, HEAD served by GET);
 * those with path parameters are Express routes.
 */
export function mountOperations(router: Router, operations: readonly Operation[], deps: MountDeps): void {
  const operator = requireOperator();
  const session = authenticate(deps.sessions, false);
  const trusted = authenticate(deps.sessions, true);
  const fixed = fixedChains.get(router) ?? new Map<string, RequestHandler[]>();
  fixedChains.set(router, fixed);
  const listed = fixedRoutes.get(router) ?? [];
  fixedRoutes.set(router, listed);
  for (const op of operations) {
    const guards: RequestHandler[] =
      op.auth === 'operator' ? [operator] : op.auth === 'session' ? [session] : op.auth === 'trusted_session' ? [trusted] : [];
    const chain: RequestHandler[] = [
      named(op.name, deps.metrics),
      ...guards,
      async (req, res) => {
        const reply = await op.handle({
          req,
          // Read on use: the request logger is only made when a handler logs.
          get log() {
            return req.log;
          },
          session: req.session,
          call:
            op.auth === 'operator'
              ? operatorCallOptions(req.requestId, bearerToken(req) ?? '', req.clientAddress)
              : backendCallOptions(req.requestId, req.session, req.clientAddress),
        });
        if (reply.body !== undefined) return sendJson(res, reply.status, reply.body);
        res.status(reply.status).end();
      },
    ];
    if (op.path.includes(':')) {
      router[op.method](op.path, ...chain);
      continue;
    }
    const method = op.method.toUpperCase();
    fixed.set(routeKey(method, op.path), chain);
    listed.push({ method, path: op.path });
    if (method === 'GET' && !fixed.has(routeKey('HEAD', op.path))) fixed.set(routeKey('HEAD', op.path), chain);
  }
  router.use((req, res, next) => {
    const chain = fixed.get(routeKey(req.method, req.path));
    if (chain === undefined) next();
    else runChain(chain, req, res, next);
  });
}

/**
 * The handlers `router` runs for a fixed-path operation (naming, auth, the handler), exactly those
 * its lookup would pick for `method path`; undefined when no fixed operation is mounted there. The
 * edge's direct route (http-app.ts) runs them without Express's router, so both paths share one chain.
 */
export function fixedChain(router: Router, method: string, path: string): readonly RequestHandler[] | undefined {
  return fixedChains.get(router)?.get(routeKey(method, path));
}

/** The lookup key of a fixed route: Express matches paths case-insensitively, a trailing slash optional. */
function routeKey(method: string, path: string): string {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return `${method} ${trimmed.toLowerCase()}`;
}

/**
 * Runs handlers in order as an Express route does: `next(err)` or a rejected promise ends in
 * `done(err)`, `next()` past the last handler (or `next('route')`) in `done()`.
 */
export function runChain(chain: readonly RequestHandler[], req: Request, res: Response, done: NextFunction): void {
  let index = 0;
  const step = (err?: unknown): void => {
    if (err !== undefined && err !== null) {
      if (err === 'route' || err === 'router') done();
      else done(err);
      return;
    }
    const handler = chain[index++];
    if (handler === undefined) {
      done();
      return;
    }
    try {
      const result: unknown = handler(req, res, step);
      if (result instanceof Promise) result.then(undefined, (e: unknown) => done(e ?? new Error('Rejected promise')));
    } catch (e: unknown) {
      done(e);
    }
  };
  step();
}

function named(operation: string, metrics: ApiMetrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    bindRequestLog(req, { operation });
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.observe(operation, res.statusCode, seconds);
      if (requestLogs(req, 'info')) req.log.info({ status: res.statusCode, ms: Math.round(seconds * 1e4) / 10 }, 'request done');
    });
    next();
  };
}
