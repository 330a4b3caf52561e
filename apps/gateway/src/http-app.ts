import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import type { Registry } from 'prom-client';
import type { Logger } from '@wordgame/logging';
import { NOTIFICATION_BODY_LIMIT, NOTIFICATIONS_PATH, WALLET_PATH, createApiRouter, fixedChain, runChain } from './api/index.js';
import { stripTrustHeaders, backendSessionResolver, SessionCache } from './auth/index.js';
import { checkBackend, type BackendClients } from './backend/index.js';
import { MAX_IN_FLIGHT_DEFAULT } from './config.js';
import { createConsoleRouter, type ConsoleOptions } from './console/index.js';
import { errorHandler, notFound, bigintAsString, createApiMetrics, createDoor, requestContext } from './http/index.js';
import { confirmPageRouter, walletPageBuilt, walletPageRouter, type WalletPageLinks } from './wallet-page/index.js';

export interface HttpDeps {
  logger: Logger;
  registry: Registry;
  backend: BackendClients;
  /** GATEWAY_SESSION_CACHE_MS: how long a resolved session is reused without asking the backend. */
  sessionCacheMs?: number;
  /** The operator console at /_gm (server-rendered pages); absent = not mounted. */
  console?: ConsoleOptions | undefined;
  /** Express `trust proxy` (GATEWAY_TRUST_PROXY): whose X-Forwarded-For names the client address; default none. */
  trustProxy?: boolean | number | string[];
  /** GATEWAY_WALLET_DIR: the built wallet page served at /wallet; absent or not built = not mounted. */
  walletDir?: string | undefined;
  /** PRIVACY_POLICY_URL and TERMS_OF_SERVICE_URL, handed to the wallet page (its settings view links them). */
  walletLinks: WalletPageLinks;
  /** The secret the e-mail confirmation page's tokens are keyed from (BACKEND_SERVICE_TOKEN: every replica holds it, no client does). */
  confirmPageSecret: string;
  /** Milliseconds since the epoch (confirmation page token expiry); default the system clock. */
  now?: () => number;
  /**
   * True once the gateway is stopping (SIGTERM, GATEWAY_DRAIN_DELAY_MS): `/readyz` answers 503 so a
   * balancer stops sending, and every answer carries `Connection: close` so no client keeps a
   * connection the stop would cut under its next request. Default: never.
   */
  draining?: () => boolean;
  /** GATEWAY_MAX_IN_FLIGHT: REST requests (`/api/v1`, `/_gm/api`) in progress at once; one more is shed at the door. */
  maxInFlight?: number;
  /**
   * Serve `GET /api/v1/user/wallet` by the direct route (default true); false sends it through
   * Express's router like every other request. Only the test that proves both alike turns it off.
   */
  directWallet?: boolean;
}

/** Largest JSON body the REST edge reads; anything larger is 413 `body_too_large`. */
export const JSON_BODY_LIMIT = '64kb';

/**
 * The gateway's public HTTP edge: `/livez` (the process serves), `/readyz` and `/health` (200 only
 * when the backend answers ok to a call carrying the service token; 503 while draining), the e-mail confirmation page
 * at the mailed link (a GET only shows it; its form's POST confirms), the wallet page at `/wallet`
 * (static, strict CSP), the REST operations of `/api/v1` and the catalog editor under `/_gm/api`,
 * behind a door (after the body parsers) that sheds what is over GATEWAY_MAX_IN_FLIGHT (503 `overloaded`, Retry-After),
 * and JSON errors for everything else (`/metrics` is not here: it has its own listener).
 * Every response carries `x-request-id`; every request gets `req.clientAddress`; bigints in JSON
 * bodies are written as decimal strings. `GET /api/v1/user/wallet` exactly as written, without a
 * body, takes the direct route: the very handlers the Express path runs for it (request context,
 * draining, trust headers, door, the operation's chain, the error handler), without the walk
 * through Express's router to reach them; every other request (HEAD, a query, another case or a
 * trailing slash included) goes to Express.
 */
export function createHttpApp({
  logger,
  registry,
  backend,
  sessionCacheMs = 5_000,
  console: consoleOptions,
  trustProxy = false,
  walletDir,
  walletLinks,
  confirmPageSecret,
  now = Date.now,
  draining = () => false,
  maxInFlight = MAX_IN_FLIGHT_DEFAULT,
  directWallet = true,
}: HttpDeps): RequestListener {
  const app = express();
  app.disable('x-powered-by');
  // API answers are per caller and never revalidated; hashing every body for an ETag was wasted CPU.
  app.set('etag', false);
  app.set('trust proxy', trustProxy);
  app.set('json replacer', bigintAsString);
  const context = requestContext(app, logger);
  const closeWhenDraining: RequestHandler = (_req, res, next) => {
    if (draining()) res.setHeader('connection', 'close');
    next();
  };
  app.use(context);
  app.use(closeWhenDraining);

  app.get('/livez', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.get(['/readyz', '/health'], async (req, res) => {
    if (draining()) {
      res.status(503).json({ status: 'draining' });
      return;
    }
    try {
      const status = await checkBackend(backend);
      res.status(status.status === 'ok' ? 200 : 503).json({ status: status.status === 'ok' ? 'ok' : 'degraded', backend: status });
    } catch (err: unknown) {
      req.log.warn({ err }, 'backend health check failed');
      res.status(503).json({ status: 'degraded', backend: { status: 'unreachable' } });
    }
  });

  app.use(confirmPageRouter({ backend, pageTokenSecret: confirmPageSecret, now }));
  if (walletDir !== undefined) {
    if (walletPageBuilt(walletDir)) app.use(walletPageRouter(walletDir, walletLinks));
    else logger.warn({ walletDir }, 'wallet page not built: /wallet answers 404 (run: npx nx build wallet-web)');
  }
  app.use(stripTrustHeaders);
  // Provider notifications are forwarded as raw bytes: read them before the JSON parser, which then skips them.
  app.use(NOTIFICATIONS_PATH, express.raw({ type: () => true, limit: NOTIFICATION_BODY_LIMIT }));
  app.use(['/api/v1', '/_gm/api'], express.json({ limit: JSON_BODY_LIMIT }));
  // After the bodies are read: a client trickling its body holds no place at the door.
  const door = createDoor(maxInFlight, registry);
  app.use(['/api/v1', '/_gm/api'], door);
  const api = createApiRouter({
    backend,
    sessions: backendSessionResolver(backend.account, new SessionCache(sessionCacheMs)),
    metrics: createApiMetrics(registry),
  });
  app.use(api);

  if (consoleOptions) app.use('/_gm', createConsoleRouter(consoleOptions));
  app.use(notFound);
  const onError = errorHandler(logger);
  app.use(onError);

  const walletChain = fixedChain(api, 'GET', WALLET_PATH);
  if (!directWallet || walletChain === undefined) return app;
  // What a body-less GET of the wallet meets on the Express path, in order (the page routers and
  // the notification parser do not match it; the JSON parser skips a request without a body).
  const walletRoute = [context, closeWhenDraining, stripTrustHeaders, door, ...walletChain];
  return (req, res) => {
    if (!isDirectWallet(req)) {
      app(req, res);
      return;
    }
    const [request, response] = asExpress(app, req, res);
    runChain(walletRoute, request, response, (err?: unknown) => {
      if (err === undefined) notFound(request, response, noNext);
      else onError(err, request, response, noNext);
    });
  };
}

/** `GET /api/v1/user/wallet` exactly (no query, case or slash variant) and no body: nothing for a parser to read. */
function isDirectWallet(req: IncomingMessage): boolean {
  return (
    req.method === 'GET' &&
    req.url === WALLET_PATH &&
    req.headers['content-length'] === undefined &&
    req.headers['transfer-encoding'] === undefined
  );
}

/** Makes a request and its response the app's, as Express's `app.handle` does before routing (its router sets the URL fields). */
function asExpress(app: Express, req: IncomingMessage, res: ServerResponse): [Request, Response] {
  const request = Object.setPrototypeOf(req, app.request) as Request;
  const response = Object.setPrototypeOf(res, app.response) as Response;
  request.res = response;
  response.req = request;
  response.locals = Object.create(null) as Record<string, unknown>;
  request.baseUrl = '';
  request.originalUrl = request.url;
  return [request, response];
}

/** The `next` of the last handlers: they answer, never pass on. */
function noNext(): void {}
