import type { Kysely } from 'kysely';
import type { DB } from './db/schema.js';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { backendApi } from '@wordgame/contracts';
import type { Logger } from '@wordgame/logging';
import { accountService } from './accounts/service.js';
import { catalogAdminService } from './catalog/service.js';
import { seedDevCatalog } from './catalog/seed.js';
import type { BackendConfig } from './config.js';
import { openDatabase, type Database } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { botIntakeService } from './intake/service.js';
import { paymentsService } from './orders/service.js';
import { paymentDeps } from './payments/module.js';
import { notificationService } from './payments/notifications.js';
import { starsIntakeMethods } from './payments/stars.js';
import { createReaper, type Reaper } from './reaper/reaper.js';
import { createLimits, type LimitSettings, type Limits } from './limits/index.js';
import { consoleService } from './console/service.js';
import { chatGateOver } from './moderation/chat-gate.js';
import { createLapseLoop, type LapseLoop } from './moderation/lapse.js';
import { refundService } from './operators/refund-service.js';
import { createStarRefunder, type StarRefunder } from './refunds/star-refunds.js';
import { mailerFor, type Mailer } from './mail/mailer.js';
import { edgeError, errorEdge } from './rpc/interceptors.js';
import type { SessionDeps } from './sessions/open.js';
import { walletService } from './wallet/service.js';
import { listenDual, type DualListener } from './server/listener.js';
import { backendGate } from './server/service-auth.js';
import { MAX_BODY_BYTES, unaryFastPath, type ServiceRegistration } from './server/unary-fast-path.js';
import { checkSystem } from './system/check.js';
import { systemService } from './system/service.js';
import { systemClock, type Clock } from './game/clock.js';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectNats } from './cluster/nats.js';
import { NatsGameBus } from './cluster/game-events.js';
import { GameEventBus, type GameBus } from './game/events.js';
import { gameService } from './game/service.js';
import { socialService } from './social/service.js';

export const BACKEND_VERSION = process.env['npm_package_version'] ?? '0.1.0';

/** A built backend: `start()` opens the database, migrates, and listens; `stop()` undoes it. */
export interface BackendApp {
  /** Opens the database and listens; answers where, and the database handle (tests seed operators through it). */
  start(): Promise<{ url: string; port: number; db: Kysely<DB> }>;
  stop(): Promise<void>;
}

/** Optional dependencies of buildBackend (tests inject a clock). */
export interface BackendOptions {
  /** The server clock of the game rules (hint idle gate, daily allowance); default the system clock. */
  now?: Clock;
}

/**
 * Builds the backend service without side effects: nothing is opened until `start()`, so tests
 * build it with their own config (port 0, a fresh database) and main.ts adds only signals.
 */
export function buildBackend(config: BackendConfig, logger: Logger, options: BackendOptions = {}): BackendApp {
  let database: Database | undefined;
  let listener: DualListener | undefined;
  let reaper: Reaper | undefined;
  let starRefunds: StarRefunder | undefined;
  let lapses: LapseLoop | undefined;
  let gameBus: GameBus | undefined;
  let nats: NatsConnection | undefined;
  /** Set on stop: /readyz answers 503 from then on while in-flight calls finish. */
  let draining = false;
  const startedAt = Date.now();

  return {
    async start() {
      database = await openDatabase({
        url: config.DATABASE_URL,
        pgliteDir: config.PGLITE_DIR,
        poolMax: config.DB_POOL_MAX,
        statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
        logger,
      });
      const applied = await migrateToLatest(database.db);
      logger.info({ dialect: database.dialect, applied }, 'database ready');

      if (config.BACKEND_SEED_CATALOG ?? config.DATABASE_URL === undefined) {
        const seeded = await seedDevCatalog(database.db);
        if (seeded > 0) logger.info({ products: seeded }, 'dev catalog seeded');
      }

      const db = database;
      const check = () => checkSystem(db, startedAt, BACKEND_VERSION);
      const mailer = mailerFor(config);
      const limits = createLimits(limitSettings(config), db.pool ? { kind: 'postgres', pool: db.pool } : { kind: 'memory' });
      const sessions = sessionDeps(config, db, logger, mailer, limits);
      const payments = paymentDeps(config, db.db, logger, { mailer });
      const chatGate = chatGateOver(payments.bot);
      if (config.NATS_URL) nats = await connectNats(config.NATS_URL, config.NATS_PING_INTERVAL_MS, 'backend', logger);
      gameBus = nats ? new NatsGameBus(nats, config.NATS_SUBJECT_PREFIX, logger) : new GameEventBus();
      const games = { db: db.db, logger, now: options.now ?? systemClock, bus: gameBus, dailyHints: config.GAME_DAILY_HINTS, chatGate };
      const services: ServiceRegistration[] = [
        { service: backendApi.SystemService, impl: systemService(check) },
        { service: backendApi.AccountService, impl: accountService(sessions) },
        { service: backendApi.WalletService, impl: walletService(db.db, logger) },
        { service: backendApi.CatalogAdminService, impl: catalogAdminService(db.db, logger) },
        { service: backendApi.BotIntakeService, impl: { ...botIntakeService(db.db), ...starsIntakeMethods(payments) } },
        { service: backendApi.PaymentsService, impl: paymentsService(payments, limits.orderCreate) },
        { service: backendApi.NotificationService, impl: notificationService(payments) },
        { service: backendApi.RefundService, impl: refundService(payments) },
        { service: backendApi.GameService, impl: gameService(games) },
        { service: backendApi.SocialService, impl: socialService(games) },
        { service: backendApi.ConsoleService, impl: consoleService({ db: db.db, logger, payments, chatGate, sessionTtlHours: config.OPERATOR_SESSION_TTL_HOURS, signInLimit: limits.operatorSignIn }) },
      ];
      const connect = connectNodeAdapter({
        readMaxBytes: MAX_BODY_BYTES,
        interceptors: [errorEdge(logger)],
        routes: (router) => {
          for (const { service, impl } of services) router.service(service, impl);
        },
        fallback: (req, res) => void health(req, res, check, () => draining),
      });
      const fast = unaryFastPath(services, edgeError(logger));
      const gate = backendGate(config.BACKEND_SERVICE_TOKEN, logger);
      listener = await listenDual(gate.handler(connect), config.BACKEND_HOST, config.BACKEND_PORT, undefined, gate.taker(fast));
      logger.info({ url: listener.url }, 'backend listening');
      reaper = createReaper(payments, {
        intervalMs: config.REAPER_INTERVAL_MS,
        recheckBatch: config.REAPER_RECHECK_BATCH,
        recheckConcurrency: config.REAPER_RECHECK_CONCURRENCY,
      });
      reaper.start();
      starRefunds = createStarRefunder(payments, { intervalMs: config.STAR_REFUND_INTERVAL_MS, retryMaxMs: config.STAR_REFUND_RETRY_MAX_MS });
      starRefunds.start();
      lapses = createLapseLoop({ db: db.db, logger, chatGate }, config.MODERATION_LAPSE_INTERVAL_MS);
      lapses.start();
      return { url: listener.url, port: listener.port, db: db.db };
    },
    async stop() {
      // Drain: not ready first (a load balancer stops sending), then GOAWAY below; in-flight calls finish.
      draining = true;
      if (config.BACKEND_DRAIN_DELAY_MS > 0 && listener) await new Promise((r) => setTimeout(r, config.BACKEND_DRAIN_DELAY_MS));
      await reaper?.stop();
      reaper = undefined;
      await starRefunds?.stop();
      starRefunds = undefined;
      await lapses?.stop();
      lapses = undefined;
      gameBus?.close();
      gameBus = undefined;
      await listener?.close();
      await nats?.drain().catch(() => undefined);
      nats = undefined;
      await database?.close();
      listener = undefined;
      database = undefined;
    },
  };
}

function sessionDeps(config: BackendConfig, database: Database, logger: Logger, mailer: Mailer, limits: Limits): SessionDeps {
  return {
    db: database.db,
    mailer,
    limits,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    logger,
    settings: {
      telegramBotToken: config.BACKEND_TELEGRAM_BOT_TOKEN,
      vkAppSecret: config.BACKEND_VK_APP_SECRET,
      launchDataMaxAgeSeconds: config.LAUNCH_DATA_MAX_AGE_SECONDS,
      sessionTtlHours: config.SESSION_TTL_HOURS,
    },
  };
}

/** The rate limits as configured (README "Rate limits"). */
function limitSettings(config: BackendConfig): LimitSettings {
  return {
    signInWindowSeconds: config.SIGNIN_WINDOW_SECONDS,
    signInMaxFailures: config.SIGNIN_MAX_FAILURES,
    signInAddressMaxFailures: config.SIGNIN_ADDRESS_MAX_FAILURES,
    orderCreateMax: config.ORDER_CREATE_MAX,
    orderCreateAddressMax: config.ORDER_CREATE_ADDRESS_MAX,
    confirmationMailMax: config.CONFIRMATION_MAIL_MAX,
    confirmationMailAddressMax: config.CONFIRMATION_MAIL_ADDRESS_MAX,
  };
}

/** The parts of a Node request/response (HTTP/1.1 or HTTP/2) that the health route uses. */
interface AnyRequest {
  method?: string | undefined;
  url?: string | undefined;
}
interface AnyResponse {
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body: string): unknown;
}

/** GET /livez: 200 while the process serves. GET /readyz (and /health, /healthz): 200 with the status when the database answers, 503 when degraded or draining (SIGTERM); else 404. */
async function health(req: AnyRequest, res: AnyResponse, check: () => ReturnType<typeof checkSystem>, draining: () => boolean): Promise<void> {
  const send = (status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
  };
  if (req.method === 'GET' && req.url === '/livez') {
    send(200, { status: 'ok' });
    return;
  }
  if (req.method !== 'GET' || (req.url !== '/health' && req.url !== '/healthz' && req.url !== '/readyz')) {
    send(404, { error: { code: 'not_found', message: 'no such route' } });
    return;
  }
  if (draining()) {
    send(503, { status: 'draining' });
    return;
  }
  const s = await check();
  send(s.status === 'ok' ? 200 : 503, s);
}
