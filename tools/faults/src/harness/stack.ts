import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEV_BOT_CLIENT_NAME,
  DEV_POLICY_LINKS,
  ensureDevCerts,
  freePort,
  TEST_RATE_LIMITS,
  TEST_SERVICE_TOKENS,
  type DevCerts,
} from '@wordgame/testkit';
import { signInOperator } from './operator.js';
import { ServiceProcess } from './service.js';

/** Secrets the stack is wired with, so a suite can sign launch data and call the operator API. */
export const TELEGRAM_BOT_TOKEN = '123456:faults-bot-token';
/** The direct channel's card shop (a test shop on both sides). */
export const CARD_SHOP = { shopId: 'faults-shop', secretKey: 'faults-secret', test: true } as const;
/** The gateway route the provider posts notifications to. */
export const NOTIFICATION_PATH = '/api/v1/payments/notifications/yookassa';

/** What a stack is wired to and how its services are tuned; everything but the database is optional. */
export interface StackOptions {
  databaseUrl: string;
  /** The platform emulator's Bot API root; with it the bot runs too. */
  platformApiRoot?: string;
  /** The provider emulator's /v3 root; with it the card rail is configured. */
  providerApiUrl?: string;
  backendEnv?: Record<string, string>;
  gatewayEnv?: Record<string, string>;
  botEnv?: Record<string, string>;
  logLevel?: string;
  /** The bot's bundle when not this checkout's `dist/apps/bot/main.js` (the bot A/B bench runs another build's). */
  botBundle?: string;
}

/** Where the stack listens. */
export interface StackUrls {
  /** `http://127.0.0.1:<port>` of the gateway's HTTP edge. */
  gateway: string;
  /** `${gateway}/api/v1` */
  api: string;
  /** The gateway's internal h2c BotCommandService. */
  internal: string;
  backend: string;
  /** The gateway's `/metrics` listener (GATEWAY_METRICS_PORT), full URL. */
  metrics: string;
}

/** The three services as restartable processes plus the files they share. */
export interface Stack {
  backend: ServiceProcess;
  gateway: ServiceProcess;
  bot: ServiceProcess | undefined;
  urls: StackUrls;
  /** The backend's dev mailbox (e-mail confirmation links land here). */
  mailDir: string;
  /** The bot's SQLite outbox (kept across bot restarts). */
  outboxPath: string;
  certs: DevCerts;
  /** Bearer token of the stack's operator (refunder, catalog_editor) on the operator API. */
  operatorToken: string;
  /** Stops bot, gateway, backend (SIGTERM) and removes the stack's files. */
  stop(): Promise<void>;
}

const httpOk = async (url: string): Promise<boolean> => {
  const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  await res.body?.cancel();
  return res.status === 200;
};

/**
 * Starts backend, gateway and (with a platform emulator) bot from their bundles on fixed free
 * ports, so a restarted process comes back where its peers expect it: the backend (ready when its
 * /health answers), the gateway (ready when it logged `gateway listening`: HTTP, bot-link and
 * internal listeners are all up) and the bot (ready when its loopback probe answers). Every knob
 * is that service's configuration variable (docs/reference/config.md).
 */
export async function startStack(options: StackOptions): Promise<Stack> {
  const dir = mkdtempSync(join(tmpdir(), 'faults-stack-'));
  const certs = ensureDevCerts(join(dir, 'certs'));
  const [backendPort, httpPort, botlinkPort, internalPort, botHealthPort, metricsPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const host = '127.0.0.1';
  const urls: StackUrls = {
    gateway: `http://${host}:${httpPort}`,
    api: `http://${host}:${httpPort}/api/v1`,
    internal: `http://${host}:${internalPort}`,
    backend: `http://${host}:${backendPort}`,
    metrics: `http://${host}:${metricsPort}/metrics`,
  };
  const logLevel = options.logLevel ?? 'info';
  const mailDir = join(dir, 'mail');
  const outboxPath = join(dir, 'bot-outbox.sqlite');

  const backend = new ServiceProcess(
    'backend',
    'backend',
    {
      ...TEST_SERVICE_TOKENS,
      ...TEST_RATE_LIMITS,
      LOG_LEVEL: logLevel,
      DATABASE_URL: options.databaseUrl,
      BACKEND_HOST: host,
      BACKEND_PORT: String(backendPort),
      BACKEND_METRICS_PORT: '0',
      BACKEND_SEED_CATALOG: 'false',
      BACKEND_TELEGRAM_BOT_TOKEN: TELEGRAM_BOT_TOKEN,
      PUBLIC_BASE_URL: urls.gateway,
      MAIL_TRANSPORT: 'dev',
      MAIL_DEV_DIR: mailDir,
      GATEWAY_INTERNAL_URL: urls.internal,
      MODERATION_LAPSE_INTERVAL_MS: '0',
      REAPER_INTERVAL_MS: '0',
      ...(options.providerApiUrl
        ? {
            BACKEND_YOOKASSA_API_URL: options.providerApiUrl,
            BACKEND_YOOKASSA_SHOPS: `direct:${CARD_SHOP.shopId}:${CARD_SHOP.secretKey}:test`,
          }
        : {}),
      ...options.backendEnv,
    },
    () => httpOk(`${urls.backend}/health`),
  );
  const gateway = new ServiceProcess(
    'gateway',
    'gateway',
    {
      ...TEST_SERVICE_TOKENS,
      BOTLINK_ALLOWED_CLIENTS: DEV_BOT_CLIENT_NAME,
      ...DEV_POLICY_LINKS,
      LOG_LEVEL: logLevel,
      BACKEND_URL: urls.backend,
      GATEWAY_HOST: host,
      GATEWAY_HTTP_PORT: String(httpPort),
      BOTLINK_HOST: host,
      BOTLINK_PORT: String(botlinkPort),
      GATEWAY_INTERNAL_HOST: host,
      GATEWAY_INTERNAL_PORT: String(internalPort),
      GATEWAY_METRICS_HOST: host,
      GATEWAY_METRICS_PORT: String(metricsPort),
      BOTLINK_TLS_CA: certs.ca.cert,
      BOTLINK_TLS_CERT: certs.gateway.cert,
      BOTLINK_TLS_KEY: certs.gateway.key,
      ...options.gatewayEnv,
    },
    (self) => self.messages('gateway listening', self.starts).length > 0,
  );
  const bot = options.platformApiRoot
    ? new ServiceProcess(
        'bot',
        'bot',
        {
          LOG_LEVEL: logLevel,
          BOTLINK_URL: `https://${host}:${botlinkPort}`,
          BOTLINK_TLS_CA: certs.ca.cert,
          BOTLINK_TLS_CERT: certs.bot.cert,
          BOTLINK_TLS_KEY: certs.bot.key,
          BOT_INSTANCE_ID: 'faults-bot',
          PLATFORM_API_ROOT: options.platformApiRoot,
          PLATFORM_BOT_TOKEN: TELEGRAM_BOT_TOKEN,
          ...DEV_POLICY_LINKS,
          OWNS_UPDATES: 'true',
          BOT_POLL_TIMEOUT_S: '1',
          BOT_OUTBOX_PATH: outboxPath,
          BOT_HEALTH_HOST: host,
          BOT_HEALTH_PORT: String(botHealthPort),
          ...options.botEnv,
        },
        () => httpOk(`http://${host}:${botHealthPort}/health`),
        options.botBundle,
      )
    : undefined;

  const started: ServiceProcess[] = [];
  const stop = async () => {
    for (const service of [...started].reverse()) await service.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  let operatorToken: string;
  try {
    for (const service of [backend, gateway, bot]) {
      if (!service) continue;
      started.push(service);
      await service.start();
    }
    operatorToken = await signInOperator(options.databaseUrl, urls.gateway);
  } catch (err: unknown) {
    await stop();
    throw err;
  }
  return { backend, gateway, bot, urls, mailDir, outboxPath, certs, operatorToken, stop };
}
