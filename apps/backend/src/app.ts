import type { Kysely } from 'kysely';
import { type DB, openDatabase, type Database, migrateToLatest } from './db/index.js';
import { backendApi } from '@wordgame/contracts';
import { unaryServers, type ServiceRegistration } from '@wordgame/h2-unary';
import { settledWithin, stopSteps } from '@wordgame/lifecycle';
import type { Logger } from '@wordgame/logging';
import { accountService, type SessionDeps } from './accounts/index.js';
import { catalogAdminService, refundService, requireRole } from './operators/index.js';
import { type CatalogCache, createCatalogCache, createCatalogMetrics, seedDevCatalog } from './catalog/index.js';
import { inflightGraceMs, listenerCaps, STOP_CLOSE_RESERVE_MS, type BackendConfig, cardPriceCurrencies } from './config/index.js';
import {
  chatEligibilityMethods,
  createReaper,
  createStarRefunder,
  notificationService,
  paymentDeps,
  paymentsService,
  starsIntakeMethods,
  type PaymentDeps,
  type Reaper,
  type StarRefunder,
} from './payments/index.js';
import { createLimits, type LimitSettings, type Limits } from './limits/index.js';
import { consoleService, revenueService } from './console/index.js';
import { helpdeskService, registerSupportMetrics, supportIntakeMethods } from './helpdesk/index.js';
import { createMakeGoodOutcomes, makeGoodService } from './makegoods/index.js';
import { chatGateOver } from './botcommands/index.js';
import { createLapseLoop, type LapseLoop } from './moderation/index.js';
import { mailerFor, type Mailer } from './mail/index.js';
import { createBackendMetrics, instrumentServices, registerStateCollector, type BackendMetrics } from './metrics/index.js';
import { subscriptionService } from './subscriptions/index.js';
import { walletService } from './wallet/index.js';
import { historyMethods } from './history/index.js';
import { createPromoMetrics, promoKey, promoService } from './promos/index.js';
import { backendGate, callScope, errorEdge, listenDual, MAX_BODY_BYTES, type DualListener } from './server/index.js';
import { checkSystem, systemService } from './system/index.js';
import { systemClock, type Clock } from './support/index.js';
import type { NatsConnection } from '@nats-io/transport-node';
import { closeNats, connectNats, listenMetrics, type MetricsListener } from '@wordgame/service-kit';
import { createGameEventRejections, gameEventSeal, NatsGameBus, GameEventBus, type GameBus, gameService } from './game/index.js';
import { socialService } from './social/index.js';
import { createForgetLoop, type ForgetLoop, privacyService, registerForgetGauges } from './privacy/index.js';
import { Registry } from 'prom-client';
import { type Reconciler, reconcilerFor, type ReconcilerOverrides, reconciliationService } from './reconciliation/index.js';

export const BACKEND_VERSION = process.env['npm_package_version'] ?? '0.1.0';

/** A built backend: `start()` opens the database, migrates, and listens; `stop()` undoes it. */
export interface BackendApp {
  /** Opens the database and listens; answers where (Connect and /metrics), and the database handle (tests seed operators through it). */
  start(): Promise<{ url: string; port: number; metricsUrl: string; db: Kysely<DB> }>;
  stop(): Promise<void>;
  /** This backend's metrics (its own prom-client Registry; other jobs register their series on `metrics.registry`). */
  readonly metrics: BackendMetrics;
  /** The backend's prom-client registry (`metrics.registry`; reconciliation metrics are on it; the metrics port serves it). */
  metricsRegistry(): Registry;
  /** The reconciliation job once started (the console and tests run it on demand). */
  reconciler(): Reconciler | undefined;
  /** The in-memory catalog once started (tests wait on its invalidations). */
  catalog(): CatalogCache | undefined;
}

/** Optional dependencies of buildBackend (tests inject a clock). */
export interface BackendOptions {
  /** The backend's one clock (support/clock.ts): every time-dependent rule reads it; default the system clock. */
  now?: Clock;
  /** The metrics registry to register on; default a new one. */
  registry?: Registry;
  /** Reconciliation replacements (tests). */
  reconciliation?: ReconcilerOverrides;
}

/**
 * Builds the backend service without side effects: nothing is opened until `start()`, so tests
 * build it with their own config (port 0, a fresh database) and main.ts adds only signals.
 */
export function buildBackend(config: BackendConfig, logger: Logger, options: BackendOptions = {}): BackendApp {
  let database: Database | undefined;
  let listener: DualListener | undefined;
  let reaper: Reaper | undefined;
  let rereads: PaymentDeps['rereads'] | undefined;
  let starRefunds: StarRefunder | undefined;
  let lapses: LapseLoop | undefined;
  let forgets: ForgetLoop | undefined;
  let gameBus: GameBus | undefined;
  let nats: NatsConnection | undefined;
  /** Set on stop: /readyz answers 503 from then on while in-flight calls finish. */
  let draining = false;
  let metricsListener: MetricsListener | undefined;
  let unregisterState: (() => void) | undefined;
  let unregisterForgets: (() => void) | undefined;
  let unregisterSupport: (() => void) | undefined;
  let reconciler: Reconciler | undefined;
  let catalog: CatalogCache | undefined;
  const clock = options.now ?? systemClock;
  const startedAt = clock().getTime();
  const metrics = createBackendMetrics(options.registry);
  const natsRejected = createGameEventRejections(metrics.registry);
  const makeGoodOutcomes = createMakeGoodOutcomes(metrics.registry);
  const promoMetrics = createPromoMetrics(metrics.registry);
  const catalogMetrics = createCatalogMetrics(metrics.registry);

  return {
    metrics,
    async start() {
      database = await openDatabase({
        url: config.DATABASE_URL,
        poolMax: config.DB_POOL_MAX,
        statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
        jobAcquireTimeoutMs: config.DB_ACQUIRE_TIMEOUT_MS,
        logger,
      });
      const applied = await migrateToLatest(database.db);
      logger.info({ applied }, 'database ready');

      if (config.BACKEND_SEED_CATALOG) {
        const seeded = await seedDevCatalog(database.db, clock());
        if (seeded > 0) logger.info({ products: seeded }, 'dev catalog seeded');
      }

      const db = database;
      const products = createCatalogCache({ db: db.db, connectionString: config.DATABASE_URL, logger, metrics: catalogMetrics });
      catalog = products;
      products.start();
      const check = () => checkSystem(db, startedAt, BACKEND_VERSION, clock);
      const mailer = mailerFor(config, clock);
      const limits = createLimits(limitSettings(config), { kind: 'postgres', pool: db.pool }, clock);
      const sessions = sessionDeps(config, db, logger, mailer, limits, clock);
      const payments = paymentDeps(config, db.db, logger, { mailer, metrics, now: clock, catalog: products });
      rereads = payments.rereads;
      const chatGate = chatGateOver(payments.bot);
      if (config.NATS_URL && config.NATS_NKEY_SEED) {
        const nc = await connectNats(
          {
            servers: config.NATS_URL,
            seed: config.NATS_NKEY_SEED,
            ...(config.NATS_TLS_CA === undefined ? {} : { tlsCaFile: config.NATS_TLS_CA }),
            pingIntervalMs: config.NATS_PING_INTERVAL_MS,
            name: 'backend',
          },
          logger,
        );
        nats = nc;
        gameBus = new NatsGameBus(nc, {
          prefix: config.NATS_SUBJECT_PREFIX,
          seal: gameEventSeal(config.BACKEND_SERVICE_TOKEN, () => clock().getTime()),
          rejected: natsRejected,
          logger,
        });
      } else gameBus = new GameEventBus();
      const games = { db: db.db, logger, now: clock, bus: gameBus, dailyHints: config.GAME_DAILY_HINTS, chatGate };
      const services: ServiceRegistration[] = instrumentServices(
        [
          { service: backendApi.SystemService, impl: systemService(check) },
          { service: backendApi.AccountService, impl: accountService(sessions) },
          {
            service: backendApi.WalletService,
            impl: {
              ...walletService(db.db, products, logger, clock, (reason) => metrics.payments.offerRefused(reason, 'chips')),
              ...historyMethods(db.db),
            },
          },
          {
            service: backendApi.CatalogAdminService,
            impl: catalogAdminService(db.db, logger, clock, cardPriceCurrencies(payments.card?.shops)),
          },
          {
            service: backendApi.BotIntakeService,
            impl: {
              ...chatEligibilityMethods(db.db, clock),
              ...starsIntakeMethods(payments),
              ...supportIntakeMethods({
                db: db.db,
                logger,
                now: clock,
                chargesLimit: limits.starChargesList,
                openLimit: limits.supportCaseOpen,
                openCap: config.SUPPORT_CASE_OPEN_CAP,
              }),
            },
          },
          { service: backendApi.PaymentsService, impl: paymentsService(payments, limits.orderCreate) },
          { service: backendApi.NotificationService, impl: notificationService(payments) },
          { service: backendApi.RefundService, impl: refundService(payments) },
          { service: backendApi.ReconciliationService, impl: reconciliationService(payments) },
          { service: backendApi.GameService, impl: gameService(games) },
          { service: backendApi.SocialService, impl: socialService({ ...games, mailer }) },
          { service: backendApi.PrivacyService, impl: privacyService({ ...games, mailer }, limits.dataExport) },
          {
            service: backendApi.ConsoleService,
            impl: consoleService({
              db: db.db,
              logger,
              now: clock,
              payments,
              chatGate,
              sessionTtlHours: config.OPERATOR_SESSION_TTL_HOURS,
              signInLimit: limits.operatorSignIn,
            }),
          },
          {
            service: backendApi.PromoService,
            impl: promoService({
              db: db.db,
              logger,
              now: clock,
              key: promoKey(config.PROMO_CODE_SECRET, config.BACKEND_SERVICE_TOKEN),
              limit: limits.codeRedeem,
              metrics: promoMetrics,
            }),
          },
          {
            service: backendApi.SubscriptionService,
            impl: subscriptionService(
              { db: db.db, logger, bot: payments.bot, metrics: payments.metrics, now: clock },
              limits.subscriptionEdit,
              (headers) => requireRole(db.db, headers, 'viewer', 'subscription_figures', clock()),
            ),
          },
          {
            service: backendApi.HelpdeskService,
            impl: helpdeskService({ db: db.db, logger, now: clock, sendToUser: (to, text) => payments.bot.sendToUser(to, text) }),
          },
          {
            service: backendApi.MakeGoodService,
            impl: makeGoodService({
              db: db.db,
              now: clock,
              outcomes: makeGoodOutcomes,
              caps: {
                chips: BigInt(config.BACKEND_MAKE_GOOD_DAILY_CHIPS_CAP),
                hints: BigInt(config.BACKEND_MAKE_GOOD_DAILY_HINTS_CAP),
                noAdsDays: BigInt(config.BACKEND_MAKE_GOOD_DAILY_NO_ADS_DAYS_CAP),
              },
            }),
          },
          { service: backendApi.RevenueService, impl: revenueService({ db: db.db, now: clock }) },
        ],
        metrics.rpc,
      );
      unregisterForgets = registerForgetGauges(metrics.registry, db.db, clock, logger);
      unregisterState = registerStateCollector(metrics.registry, {
        db: db.db,
        pool: db.pool,
        ready: async () => !draining && (await check()).status === 'ok',
        logger,
      });
      unregisterSupport = registerSupportMetrics(metrics.registry, db.db, clock, config.SUPPORT_CASE_MAX_WAIT_SECONDS, logger);
      const caps = listenerCaps(config);
      metricsListener = await listenMetrics(
        config.BACKEND_METRICS_HOST,
        config.BACKEND_METRICS_PORT,
        metrics.registry,
        logger,
        { handshakeTimeoutMs: config.BACKEND_HANDSHAKE_TIMEOUT_MS, maxConnections: caps.BACKEND_METRICS_MAX_CONNECTIONS },
        metrics.listeners.onRefused('metrics'),
      );
      logger.info({ url: metricsListener.url }, 'backend metrics listening');
      // One options object for connect-node and the fast path: the error edge is registered once.
      const servers = unaryServers(
        { services, interceptors: [errorEdge(logger), callScope], readMaxBytes: MAX_BODY_BYTES, fast: config.BACKEND_FAST_PATH },
        ['connect'],
        'http',
        (req, res) => void health(req, res, check, () => draining),
      );
      const gate = backendGate(config.BACKEND_SERVICE_TOKEN, logger);
      listener = await listenDual(
        gate.handler(servers.handler),
        config.BACKEND_HOST,
        config.BACKEND_PORT,
        inflightGraceMs(config),
        gate.taker(servers.take),
        {
          limits: { handshakeTimeoutMs: config.BACKEND_HANDSHAKE_TIMEOUT_MS, maxConnections: caps.BACKEND_MAX_CONNECTIONS },
          logger,
          onRefused: metrics.listeners.onRefused('connect'),
        },
      );
      logger.info({ url: listener.url }, 'backend listening');
      reaper = createReaper(payments, {
        intervalMs: config.REAPER_INTERVAL_MS,
        recheckBatch: config.REAPER_RECHECK_BATCH,
        recheckConcurrency: config.REAPER_RECHECK_CONCURRENCY,
      });
      reaper.start();
      starRefunds = createStarRefunder(payments, {
        intervalMs: config.STAR_REFUND_INTERVAL_MS,
        retryMaxMs: config.STAR_REFUND_RETRY_MAX_MS,
      });
      starRefunds.start();
      lapses = createLapseLoop({ db: db.db, logger, chatGate, now: clock }, config.MODERATION_LAPSE_INTERVAL_MS);
      lapses.start();
      forgets = createForgetLoop(
        { db: db.db, bot: payments.bot, logger, now: clock },
        { intervalMs: config.USER_FORGET_INTERVAL_MS, retryMaxMs: config.USER_FORGET_RETRY_MAX_MS },
      );
      forgets.start();
      reconciler = reconcilerFor(config, payments, metrics.registry, options.reconciliation);
      reconciler.start();
      return { url: listener.url, port: listener.port, metricsUrl: metricsListener.url, db: db.db };
    },
    metricsRegistry: () => metrics.registry,
    reconciler: () => reconciler,
    catalog: () => catalog,
    async stop() {
      // Each step is timed and logged (libs/lifecycle stopSteps): the whole stop must fit its grace.
      const { step, done } = stopSteps(logger);
      // Drain: not ready first (a load balancer stops sending), then GOAWAY below; in-flight calls finish.
      draining = true;
      // The background loops stop while the drain delay runs (each waits at most TICK_STOP_WAIT_MS for
      // a tick in flight), so their share never comes out of the in-flight grace the listener needs.
      const loopsStopped = Promise.allSettled([
        step('reconciler', () => reconciler?.stop()),
        step('reaper', () => reaper?.stop()),
        step('rereads', () => rereads?.stop()),
        step('star_refunds', () => starRefunds?.stop()),
        step('lapses', () => lapses?.stop()),
        step('forgets', () => forgets?.stop()),
        step('catalog_listener', () => catalog?.stop()),
      ]);
      if (config.BACKEND_DRAIN_DELAY_MS > 0 && listener)
        await step('drain_delay', () => new Promise((r) => setTimeout(r, config.BACKEND_DRAIN_DELAY_MS)));
      for (const stopped of await loopsStopped) if (stopped.status === 'rejected') throw stopped.reason;
      reconciler = undefined;
      reaper = undefined;
      rereads = undefined;
      starRefunds = undefined;
      lapses = undefined;
      forgets = undefined;
      catalog = undefined;
      await step('game_bus', () => gameBus?.close());
      gameBus = undefined;
      await step('listener', () => listener?.close());
      // Past the listener only STOP_CLOSE_RESERVE_MS is left: NATS and the pool (which waits for
      // clients still checked out by calls the listener cut off) get bounded shares of it.
      await step('nats', async () => {
        const ms = STOP_CLOSE_RESERVE_MS / 2;
        if (nats && !(await closeNats(nats, ms))) logger.warn({ ms }, 'nats drain did not finish in time: closed');
      });
      nats = undefined;
      await step('metrics_listener', () => metricsListener?.close());
      metricsListener = undefined;
      unregisterState?.();
      unregisterState = undefined;
      unregisterForgets?.();
      unregisterForgets = undefined;
      unregisterSupport?.();
      unregisterSupport = undefined;
      await step('database', () => within(STOP_CLOSE_RESERVE_MS / 2, database?.close(), 'database close', logger));
      listener = undefined;
      database = undefined;
      done('backend stopped');
    },
  };
}

/** Waits for `work` at most `ms` (then logs and moves on: the stop must fit its grace; process exit ends the rest). */
async function within(ms: number, work: Promise<unknown> | undefined, what: string, logger: Logger): Promise<void> {
  if (work === undefined) return;
  if (!(await settledWithin(work, ms))) logger.warn({ ms }, `${what} did not finish in time, going on`);
}

function sessionDeps(config: BackendConfig, database: Database, logger: Logger, mailer: Mailer, limits: Limits, now: Clock): SessionDeps {
  return {
    db: database.db,
    now,
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
    dataExportMax: config.DATA_EXPORT_MAX,
    dataExportAddressMax: config.DATA_EXPORT_ADDRESS_MAX,
    confirmationMailMax: config.CONFIRMATION_MAIL_MAX,
    confirmationMailAddressMax: config.CONFIRMATION_MAIL_ADDRESS_MAX,
    confirmationMailRecipientMax: config.CONFIRMATION_MAIL_RECIPIENT_MAX,
    confirmationMailRecipientWindowHours: config.CONFIRMATION_MAIL_RECIPIENT_WINDOW_HOURS,
    starChargesListMax: config.STAR_CHARGES_LIST_MAX,
    supportCaseOpenMax: config.SUPPORT_CASE_OPEN_MAX,
    codeRedeemMax: config.CODE_REDEEM_MAX,
    codeRedeemAddressMax: config.CODE_REDEEM_ADDRESS_MAX,
    subscriptionEditMax: config.SUBSCRIPTION_EDIT_MAX,
    subscriptionEditAddressMax: config.SUBSCRIPTION_EDIT_ADDRESS_MAX,
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
async function health(
  req: AnyRequest,
  res: AnyResponse,
  check: () => ReturnType<typeof checkSystem>,
  draining: () => boolean,
): Promise<void> {
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
