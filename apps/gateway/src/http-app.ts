import express, { type Express } from 'express';
import type { Registry } from 'prom-client';
import type { Logger } from '@wordgame/logging';
import { NOTIFICATION_BODY_LIMIT, NOTIFICATIONS_PATH, createApiRouter } from './api/index.js';
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
 * bodies are written as decimal strings.
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
}: HttpDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  // API answers are per caller and never revalidated; hashing every body for an ETag was wasted CPU.
  app.set('etag', false);
  app.set('trust proxy', trustProxy);
  app.set('json replacer', bigintAsString);
  app.use(requestContext(app, logger));
  app.use((_req, res, next) => {
    if (draining()) res.setHeader('connection', 'close');
    next();
  });

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
  app.use(['/api/v1', '/_gm/api'], createDoor(maxInFlight, registry));
  app.use(
    createApiRouter({
      backend,
      sessions: backendSessionResolver(backend.account, new SessionCache(sessionCacheMs)),
      metrics: createApiMetrics(registry),
    }),
  );

  if (consoleOptions) app.use('/_gm', createConsoleRouter(consoleOptions));
  app.use(notFound);
  app.use(errorHandler(logger));
  return app;
}
