import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { botlink as botlinkApi } from '@wordgame/contracts';
import { stopSteps } from '@wordgame/lifecycle';
import type { Logger } from '@wordgame/logging';
import { createBackendClients } from './backend/index.js';
import { BotIdentityGate, PlatformHealth, botlinkServers, botlinkService, listenMtls, type MtlsServer } from './botlink/index.js';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  ClusterCommandRouter,
  commandSeals,
  replyPrefix,
  CommandHub,
  type CommandRouter,
  listenInternal,
  type InternalServer,
  commandRoutes,
} from './commands/index.js';
import { inflightGraceMs, listenerCaps, type GatewayConfig } from './config.js';
import { createHttpApp } from './http-app.js';
import {
  createBotlinkMetrics,
  createClusterMetrics,
  createGatewayListenerMetrics,
  createInternalMetrics,
  createRegistry,
} from './metrics/index.js';
import {
  closeNats,
  connectNats,
  guardListener,
  http1Drain,
  IDLE_LINGER_MS,
  listenMetrics,
  type Http1Drain,
  type ListenerGuard,
  type MetricsListener,
} from '@wordgame/service-kit';

/** Where a started gateway listens. */
export interface GatewayUrls {
  httpUrl: string;
  botlinkUrl: string;
  /** gateway.v1.BotCommandService (h2c, internal). */
  internalUrl: string;
  httpPort: number;
  botlinkPort: number;
  internalPort: number;
  /** The `/metrics` listener (GATEWAY_METRICS_HOST/PORT), apart from the public REST port. */
  metricsUrl: string;
  metricsPort: number;
}

/**
 * A built gateway: `start()` listens on the HTTP port, the bot-link port and the internal command
 * port; `stop()` ends every Link cleanly, then closes the listeners. Start once per build.
 */
export interface GatewayApp {
  /** The command hub (the in-process way to push a command to the bot). */
  readonly hub: CommandHub;
  start(): Promise<GatewayUrls>;
  stop(): Promise<void>;
}

/** Builds the gateway without side effects until `start()`. */
export function buildGateway(config: GatewayConfig, logger: Logger): GatewayApp {
  const registry = createRegistry();
  const metrics = createBotlinkMetrics(registry);
  const internalMetrics = createInternalMetrics(registry);
  const clusterMetrics = createClusterMetrics(registry);
  const listenerMetrics = createGatewayListenerMetrics(registry);
  const caps = listenerCaps(config);
  const limits = (maxConnections: number) => ({ handshakeTimeoutMs: config.GATEWAY_HANDSHAKE_TIMEOUT_MS, maxConnections });
  const backend = createBackendClients(
    config.BACKEND_URL,
    config.BACKEND_SERVICE_TOKEN,
    config.BACKEND_DNS_REFRESH_MS,
    logger,
    config.GATEWAY_FAST_PATH,
  );
  let cluster: ClusterCommandRouter | undefined;
  const hub = new CommandHub({ metrics, logger, queueLimit: config.BOTLINK_SEND_QUEUE_LIMIT, onLinksChanged: () => cluster?.sync() });
  let nats: NatsConnection | undefined;
  const health = new PlatformHealth(metrics, logger);
  let http: Server | undefined;
  let draining = false;
  let httpDrain: Http1Drain | undefined;
  let httpGuard: ListenerGuard | undefined;
  let botlink: MtlsServer | undefined;
  let internal: InternalServer | undefined;
  let metricsServer: MetricsListener | undefined;

  return {
    hub,
    async start() {
      draining = false;
      if (config.NATS_URL && config.NATS_NKEY_SEED) {
        nats = await connectNats(
          {
            servers: config.NATS_URL,
            seed: config.NATS_NKEY_SEED,
            ...(config.NATS_TLS_CA === undefined ? {} : { tlsCaFile: config.NATS_TLS_CA }),
            inboxPrefix: replyPrefix(config.NATS_SUBJECT_PREFIX),
            pingIntervalMs: config.NATS_PING_INTERVAL_MS,
            name: 'gateway',
          },
          logger,
        );
        cluster = new ClusterCommandRouter({
          nc: nats,
          hub,
          metrics,
          clusterMetrics,
          seals: commandSeals(config.GATEWAY_INTERNAL_TOKEN),
          logger,
          prefix: config.NATS_SUBJECT_PREFIX,
        });
        cluster.sync();
      }
      const router: Pick<CommandRouter, 'send'> = cluster ?? hub;
      const app = createHttpApp({
        logger,
        registry,
        backend,
        sessionCacheMs: config.GATEWAY_SESSION_CACHE_MS,
        trustProxy: config.GATEWAY_TRUST_PROXY,
        walletDir: config.GATEWAY_WALLET_DIR,
        walletLinks: { privacyPolicyUrl: config.PRIVACY_POLICY_URL, termsOfServiceUrl: config.TERMS_OF_SERVICE_URL },
        confirmPageSecret: config.BACKEND_SERVICE_TOKEN,
        draining: () => draining,
        maxInFlight: config.GATEWAY_MAX_IN_FLIGHT,
        console: {
          backendUrl: config.BACKEND_URL,
          backendToken: config.BACKEND_SERVICE_TOKEN,
          secureCookie: config.GATEWAY_CONSOLE_SECURE_COOKIE,
          exportCap: config.GATEWAY_CONSOLE_EXPORT_CAP,
        },
      });
      // Node checks the headers and request timeouts of later requests on a keep-alive connection every
      // second; a connection's first request head is the guard's (GATEWAY_HANDSHAKE_TIMEOUT_MS).
      const httpServer = createServer({ connectionsCheckingInterval: 1_000 }, app);
      http = httpServer;
      httpDrain = http1Drain(httpServer);
      httpGuard = guardListener(
        httpServer,
        { ...limits(caps.GATEWAY_HTTP_MAX_CONNECTIONS), listener: 'http', logger, onRefused: listenerMetrics.onRefused('http') },
        { http1: [httpServer] },
      );
      await new Promise<void>((resolve, reject) => {
        httpServer.once('listening', resolve);
        httpServer.once('error', reject);
        httpServer.listen(config.GATEWAY_HTTP_PORT, config.GATEWAY_HOST);
      });
      const botlinkImpl = botlinkService({
        hub,
        health,
        metrics,
        logger,
        backend,
        idleTimeoutMs: config.BOTLINK_IDLE_TIMEOUT_MS,
        duplicateProbeMs: config.BOTLINK_PING_TIMEOUT_MS,
      });
      const identity = new BotIdentityGate(config.BOTLINK_ALLOWED_CLIENTS, (refused) => {
        metrics.linkRejections.inc({ reason: 'client_identity' });
        logger.warn(refused, 'bot-link call refused: client certificate is not an allowed bot');
      });
      const servers = botlinkServers(botlinkApi.BotLink, botlinkImpl, logger, config.GATEWAY_FAST_PATH);
      const botlinkHandler = identity.handler(servers.handler);
      const botlinkUnary = identity.taker(servers.take);
      botlink = await listenMtls(
        {
          host: config.BOTLINK_HOST,
          port: config.BOTLINK_PORT,
          caPath: config.BOTLINK_TLS_CA,
          certPath: config.BOTLINK_TLS_CERT,
          keyPath: config.BOTLINK_TLS_KEY,
          logger,
          pingIntervalMs: config.BOTLINK_PING_INTERVAL_MS,
          pingTimeoutMs: config.BOTLINK_PING_TIMEOUT_MS,
          limits: limits(caps.BOTLINK_MAX_CONNECTIONS),
          onConnectionRefused: listenerMetrics.onRefused('botlink'),
          onHandshakeRefused: () => metrics.linkRejections.inc({ reason: 'tls_handshake' }),
          onPingTimeout: () => metrics.pingTimeouts.inc(),
        },
        botlinkHandler,
        botlinkUnary,
      );
      internal = await listenInternal(
        config.GATEWAY_INTERNAL_HOST,
        config.GATEWAY_INTERNAL_PORT,
        commandRoutes(router, config.BOTLINK_COMMAND_TIMEOUT_MS),
        {
          token: config.GATEWAY_INTERNAL_TOKEN,
          onRefused: (refusal) => {
            internalMetrics.refusals.inc({ reason: refusal.reason });
            logger.warn(refusal, 'internal call refused: no valid service token');
          },
        },
        inflightGraceMs(config),
        { limits: limits(caps.GATEWAY_INTERNAL_MAX_CONNECTIONS), logger, onRefused: listenerMetrics.onRefused('internal') },
      );
      metricsServer = await listenMetrics(
        config.GATEWAY_METRICS_HOST,
        config.GATEWAY_METRICS_PORT,
        registry,
        logger,
        limits(caps.GATEWAY_METRICS_MAX_CONNECTIONS),
        listenerMetrics.onRefused('metrics'),
      );
      const httpPort = (httpServer.address() as AddressInfo).port;
      const urls: GatewayUrls = {
        httpUrl: `http://${config.GATEWAY_HOST}:${httpPort}`,
        botlinkUrl: `https://${config.BOTLINK_HOST}:${botlink.port}`,
        internalUrl: `http://${config.GATEWAY_INTERNAL_HOST}:${internal.port}`,
        httpPort,
        botlinkPort: botlink.port,
        internalPort: internal.port,
        metricsUrl: `http://${config.GATEWAY_METRICS_HOST}:${metricsServer.port}/metrics`,
        metricsPort: metricsServer.port,
      };
      logger.info(urls, 'gateway listening');
      return urls;
    },
    async stop() {
      // Budget (GATEWAY_STOP_GRACE_MS, validated): the drain delay (/readyz 503, every answer closes its
      // connection, so a balancer and keep-alive clients move elsewhere), then the cluster's
      // unsubscribes (CLUSTER_CLOSE_FLUSH_MS at most), Links end at once, the three listeners close
      // side by side (each lets in-flight calls finish for at most inflightGraceMs, then destroys
      // every connection left, also one whose peer vanished, so their worst cases do not add up),
      // then NATS gets NATS_DRAIN_MS. Each step's ms is logged (libs/lifecycle stopSteps).
      const { step, done } = stopSteps(logger);
      draining = true;
      if (config.GATEWAY_DRAIN_DELAY_MS > 0 && http)
        await step('drain', () => new Promise((r) => setTimeout(r, config.GATEWAY_DRAIN_DELAY_MS)));
      await step('cluster', () => cluster?.close());
      cluster = undefined;
      await step('links', () => hub.close());
      await step('metrics_listener', () => metricsServer?.close());
      metricsServer = undefined;
      await step('listeners', () =>
        Promise.all([
          step('internal_listener', () => internal?.close()),
          step('botlink_listener', () => botlink?.close(inflightGraceMs(config))),
          step('http_listener', () => (http ? closeHttp(http, httpDrain, inflightGraceMs(config)) : undefined)),
        ]),
      );
      httpGuard?.close();
      httpGuard = undefined;
      backend.close();
      await step('nats', async () => {
        if (nats && !(await closeNats(nats, NATS_DRAIN_MS)))
          logger.warn({ ms: NATS_DRAIN_MS }, 'nats drain did not finish in time: closed');
      });
      nats = undefined;
      internal = undefined;
      botlink = undefined;
      http = undefined;
      done('gateway stopped');
    },
  };
}

/** The most time the stop waits for the NATS drain (ms). */
const NATS_DRAIN_MS = 1_000;

/**
 * Closes the public HTTP server: first `drain` (every answer from now on says `Connection: close`;
 * idle keep-alive sockets get IDLE_LINGER_MS for a request already on its way, busy ones end after
 * their answer) while still accepting for that linger, then stops accepting, and destroys what is
 * still open after `graceMs` (a slow call must not hold the stop past its grace). Node's close()
 * alone resets a request racing onto an idle socket and keeps a busy one for keepAliveTimeout.
 */
async function closeHttp(server: Server, drain: Http1Drain | undefined, graceMs: number): Promise<void> {
  if (drain) {
    void drain.start();
    await new Promise((resolve) => setTimeout(resolve, IDLE_LINGER_MS));
    // close() would destroy every socket idle at that instant, also one whose request is on its
    // way (a reset); the drain already ends each one once nothing is in flight on it.
    server.closeIdleConnections = () => undefined;
  }
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const force = setTimeout(() => server.closeAllConnections(), graceMs);
  force.unref();
  await closed;
  clearTimeout(force);
}
