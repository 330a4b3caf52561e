import { join } from 'node:path';
import { removeStackEnv, writeStackEnv } from '@wordgame/config';
import { DEV_BOT_CLIENT_NAME, DEV_POLICY_LINKS, ensureDevCerts, randomServiceTokens } from '@wordgame/testkit';
import { DEV_OPERATOR, ensureDevOperator } from './operator.js';
import { lastLines, startProcess, stopProcess, type ProcessSpec, type Running } from './processes.js';
import { httpOk, pgAnswers, tcpOpen, waitFor } from './wait.js';
import { DEFAULT_PORTS, type StackPorts } from './config.js';

export { DEFAULT_PORTS, type StackPorts } from './config.js';

export interface StackOptions {
  /** Repository root (where dist/ and node_modules/ are). */
  root: string;
  /** Where the PostgreSQL data (`postgres/`), certificates and the bot outbox live (default `<root>/.data`). */
  dataDir?: string;
  ports?: StackPorts;
  /** Receives every child's output line, prefixed with its name. */
  write?: (line: string) => void;
  readyTimeoutMs?: number;
  logLevel?: string;
}

/** Where each part listens once the stack is up. */
export interface StackUrls {
  /** The stack's DATABASE_URL (the embedded PostgreSQL on `<data>/postgres`). */
  database: string;
  gateway: string;
  /** The gateway's Prometheus endpoint, full URL. */
  metrics: string;
  botlink: string;
  backend: string;
  botHealth: string;
  platform: string;
  provider: string;
}

export interface Stack {
  urls: StackUrls;
  processes: Running[];
  /** Stops every process, bot first and emulators last; resolves when all have exited. */
  stop(): Promise<void>;
  /** Resolves with the name of the first process that exits on its own. */
  firstExit: Promise<string>;
  /** The credentials file the backend's commands read while the stack runs (`<data>/stack.env`). */
  envFile: string;
}

/** The dev stack's platform bot token (the platform emulator's; ops/dev.env's PLATFORM_BOT_TOKEN). */
export const DEV_BOT_TOKEN = 'dev-bot-token';
const BOT_TOKEN = DEV_BOT_TOKEN;
/** Dev-only secrets: the VK app secret the dev stack verifies launch params with, the card shop. */
export const DEV_VK_APP_SECRET = 'dev-vk-app-secret';
export const DEV_SHOP = { id: 'dev-shop', secretKey: 'dev-secret' };
/** The gateway route the provider posts notifications to. */
export const NOTIFICATION_PATH = '/api/v1/payments/notifications/yookassa';

/**
 * Starts the local stack from the built bundles in dist/ (backend, gateway, bot), the database
 * server (the embedded PostgreSQL 15 on `<data>/postgres`, kept across restarts) and both emulators, wired with the
 * dev certificates, and waits until each is ready: the database answers a query, the emulators
 * accept connections, the backend's and gateway's /health answer 200, the bot's probe answers. Once the
 * database is up it creates the dev operator and writes `<data>/stack.env`; `stop()` removes it.
 */
export async function startStack(options: StackOptions): Promise<Stack> {
  const { root } = options;
  const data = options.dataDir ?? join(root, '.data');
  const ports = options.ports ?? DEFAULT_PORTS;
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const certs = ensureDevCerts(join(data, 'certs'));
  const host = '127.0.0.1';
  const urls: StackUrls = {
    database: `postgres://postgres@${host}:${ports.database}/postgres`,
    gateway: `http://${host}:${ports.gatewayHttp}`,
    metrics: `http://${host}:${ports.gatewayMetrics}/metrics`,
    botlink: `https://${host}:${ports.botlink}`,
    backend: `http://${host}:${ports.backend}`,
    botHealth: `http://${host}:${ports.botHealth}`,
    platform: `http://${host}:${ports.platform}`,
    provider: `http://${host}:${ports.provider}`,
  };
  const node = process.execPath;
  const tsx = join(root, 'node_modules/tsx/dist/cli.mjs');
  const common = { LOG_LEVEL: options.logLevel ?? 'info' };
  // Fresh per start, held in the two processes' environments and in stack.env (0600, removed on stop):
  // a token copied out of it dies with this run of the stack.
  const tokens = randomServiceTokens();
  const tls = { BOTLINK_TLS_CA: certs.ca.cert };

  // What the backend and its commands share (stack.env holds these for the commands run beside the stack).
  const backendShared = {
    ...tokens,
    DATABASE_URL: urls.database,
    BACKEND_TELEGRAM_BOT_TOKEN: BOT_TOKEN,
    BACKEND_VK_APP_SECRET: DEV_VK_APP_SECRET,
    MAIL_DEV_DIR: join(data, 'mailbox'),
    PUBLIC_BASE_URL: urls.gateway,
    GATEWAY_INTERNAL_URL: `http://${host}:${ports.gatewayInternal}`,
    BACKEND_YOOKASSA_API_URL: `${urls.provider}/v3`,
    BACKEND_YOOKASSA_SHOPS: `direct:${DEV_SHOP.id}:${DEV_SHOP.secretKey}:test,vk:${DEV_SHOP.id}:${DEV_SHOP.secretKey}:test`,
  };

  const specs: ProcessSpec[] = [
    {
      name: 'database',
      command: node,
      args: [tsx, join(root, 'tools/devstack/src/database-main.ts')],
      env: {
        ...common,
        DEV_DATABASE_DIR: join(data, 'postgres'),
        DEV_DATABASE_HOST: host,
        DEV_DATABASE_PORT: String(ports.database),
        DEV_DATABASE_NAME: new URL(urls.database).pathname.slice(1),
      },
    },
    {
      name: 'platform',
      command: node,
      args: [tsx, join(root, 'tools/platform-emulator/src/main.ts')],
      env: {
        ...common,
        PLATFORM_EMULATOR_HOST: host,
        PLATFORM_EMULATOR_PORT: String(ports.platform),
        PLATFORM_BOT_TOKEN: BOT_TOKEN,
        // Beside .data/postgres, as the provider's: the star payments the stored orders refer to survive a restart with them.
        PLATFORM_EMULATOR_STATE_FILE: join(data, 'platform-emulator.json'),
      },
    },
    {
      name: 'provider',
      command: node,
      args: [tsx, join(root, 'tools/provider-emulator/src/main.ts')],
      env: {
        ...common,
        PROVIDER_EMULATOR_HOST: host,
        PROVIDER_EMULATOR_PORT: String(ports.provider),
        PROVIDER_EMULATOR_SHOPS: `${DEV_SHOP.id}:${DEV_SHOP.secretKey}:test`,
        PROVIDER_EMULATOR_WEBHOOK_URL: `${urls.gateway}${NOTIFICATION_PATH}`,
        // Beside .data/postgres: the payments the stored orders refer to survive a restart with them.
        PROVIDER_EMULATOR_STATE_FILE: join(data, 'provider-emulator.json'),
      },
    },
    {
      name: 'backend',
      command: node,
      args: [join(root, 'dist/apps/backend/main.js')],
      env: {
        ...common,
        ...backendShared,
        BACKEND_HOST: host,
        BACKEND_PORT: String(ports.backend),
        BACKEND_METRICS_PORT: String(ports.backendMetrics),
        BACKEND_SEED_CATALOG: 'true',
      },
    },
    {
      name: 'gateway',
      command: node,
      args: [join(root, 'dist/apps/gateway/main.js')],
      env: {
        ...common,
        ...tls,
        ...tokens,
        BOTLINK_ALLOWED_CLIENTS: DEV_BOT_CLIENT_NAME,
        BACKEND_URL: urls.backend,
        GATEWAY_HOST: host,
        GATEWAY_HTTP_PORT: String(ports.gatewayHttp),
        // Plain HTTP on loopback: the one place the console's cookies are not Secure.
        GATEWAY_CONSOLE_SECURE_COOKIE: 'false',
        BOTLINK_HOST: host,
        BOTLINK_PORT: String(ports.botlink),
        GATEWAY_INTERNAL_HOST: host,
        GATEWAY_INTERNAL_PORT: String(ports.gatewayInternal),
        GATEWAY_METRICS_HOST: host,
        GATEWAY_METRICS_PORT: String(ports.gatewayMetrics),
        GATEWAY_WALLET_DIR: join(root, 'dist/apps/wallet-web'),
        ...DEV_POLICY_LINKS,
        BOTLINK_TLS_CERT: certs.gateway.cert,
        BOTLINK_TLS_KEY: certs.gateway.key,
      },
    },
    {
      name: 'bot',
      command: node,
      args: [join(root, 'dist/apps/bot/main.js')],
      env: {
        ...common,
        ...tls,
        BOTLINK_URL: urls.botlink,
        BOTLINK_TLS_CERT: certs.bot.cert,
        BOTLINK_TLS_KEY: certs.bot.key,
        BOT_INSTANCE_ID: 'dev-bot-1',
        PLATFORM_API_ROOT: urls.platform,
        PLATFORM_BOT_TOKEN: BOT_TOKEN,
        OWNS_UPDATES: 'true',
        ...DEV_POLICY_LINKS,
        BOT_OUTBOX_PATH: join(data, 'bot-outbox.sqlite'),
        BOT_HEALTH_HOST: host,
        BOT_HEALTH_PORT: String(ports.botHealth),
      },
    },
  ];

  const processes: Running[] = [];
  const stop = async () => {
    for (const running of [...processes].reverse()) await stopProcess(running);
    removeStackEnv(data);
  };
  let exitedFirst: (name: string) => void = () => undefined;
  const firstExit = new Promise<string>((resolve) => (exitedFirst = resolve));

  const timeout = options.readyTimeoutMs ?? 60_000;
  const ready: Record<string, () => Promise<boolean>> = {
    database: () => pgAnswers(urls.database),
    platform: () => tcpOpen(host, ports.platform),
    provider: () => tcpOpen(host, ports.provider),
    backend: () => httpOk(`${urls.backend}/health`),
    gateway: () => httpOk(`${urls.gateway}/health`),
    bot: () => httpOk(`${urls.botHealth}/health`),
  };
  let envFile = '';
  try {
    for (const spec of specs) {
      const running = startProcess(spec, root, write);
      processes.push(running);
      void running.exited.then(() => exitedFirst(spec.name));
      const check = ready[spec.name];
      if (!check) throw new Error(`no readiness check for ${spec.name}`);
      const died = running.exited.then((code) => {
        throw new Error(`${spec.name} exited with code ${code} before it was ready${lastLines(running)}`);
      });
      let gone = false;
      void running.exited.then(() => (gone = true));
      const waited = waitFor(spec.name, check, timeout, 200, () => gone);
      void waited.catch(() => undefined);
      await Promise.race([waited, died]);
      void died.catch(() => undefined);
      if (spec.name === 'database') {
        ensureDevOperator(root, urls.database);
        envFile = writeStackEnv(
          data,
          {
            ...backendShared,
            PLATFORM_BOT_TOKEN: BOT_TOKEN,
            PROVIDER_EMULATOR_SHOPS: `${DEV_SHOP.id}:${DEV_SHOP.secretKey}:test`,
            DEV_OPERATOR_LOGIN: DEV_OPERATOR.login,
            DEV_OPERATOR_PASSWORD: DEV_OPERATOR.password,
            DEV_GATEWAY_URL: urls.gateway,
            DEV_PLATFORM_URL: urls.platform,
            DEV_PROVIDER_URL: urls.provider,
          },
          "The running dev stack's credentials (npm start writes it at each start with fresh service tokens and\n" +
            "removes it on stop). The backend's npm scripts (operator:create, reconcile, audit, migrate) read it.",
        );
      }
    }
  } catch (err: unknown) {
    await stop();
    throw err;
  }
  return { urls, processes, stop, firstExit, envFile };
}
