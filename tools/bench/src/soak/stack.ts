import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { adminQuery, DEV_POLICY_LINKS, ensureDevCerts, TEST_RATE_LIMITS, TEST_SERVICE_TOKENS } from '@wordgame/testkit';
import { buildBundles, freePort, gatewayEnv, root, startBundle, stopAll, waitFor, waitHealthy } from '../services.js';

/** The five processes a soak runs and samples. */
export const SERVICES = ['backend', 'gateway', 'bot', 'platform', 'provider'] as const;
export type ServiceName = (typeof SERVICES)[number];

/** Every soak process listens on an inspector (127.0.0.1, a free port) so the soak can read its memory after a full GC (heap.ts). */
const INSPECT = { inspect: true };

/** The bot token the platform emulator accepts, the bot uses and the backend verifies Mini App init data with. */
export const BOT_TOKEN = '424242:soak-bot-token';
/** The card shop of the direct channel (a test shop). */
export const SHOP = { id: 'soak-shop', secretKey: 'soak-shop-secret' };

/** Where everything listens, the fresh database, and the processes. */
export interface SoakStack {
  dbUrl: string;
  /** The gateway's HTTP base (REST under /api/v1, /health). */
  gateway: string;
  /** The gateway's `/metrics` listener, full URL. */
  metrics: string;
  /** The gateway's internal BotCommandService (h2c), where the backend pushes bot commands. */
  internal: string;
  backend: string;
  botHealth: string;
  platform: string;
  provider: string;
  /** The backend's dev mailbox (e-mail confirmation links). */
  mailDir: string;
  /** The moderated discussion chat the bot applies chat_gate in. */
  discussionChatId: number;
  processes: Record<ServiceName, ChildProcess>;
  /** Services whose process has exited. */
  exited(): ServiceName[];
  /** Stops every process (SIGTERM, SIGKILL after 10 s); the database stays. */
  halt(): Promise<void>;
  /** Stops every process and drops the database. */
  stop(): Promise<void>;
}

async function postJson(url: string, body: unknown): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return res.json();
}

/**
 * Starts the soak's stack on a fresh PostgreSQL database: the platform (Telegram Bot API) and
 * provider (YooKassa) emulators, the backend (seeded catalog, reaper every 5 s, card rail on the
 * provider emulator), the gateway and the bot, each from its esbuild bundle with
 * NODE_ENV=production and LOG_LEVEL=warn, wired with throwaway certificates. The emulators are
 * always bundled (into dist/tools, which only the soak runs); the apps' bundles in dist/apps are
 * rebuilt with `rebuildApps`, else only when missing: under `npm test` Nx builds them before the
 * suite (the bench test target depends on their build), and other suites run the same files, so
 * rewriting them mid-run could hand a starting process half a file. The bot reports
 * Health every second and owns the update long poll. Resolves once every process answers its
 * health check, the bot holds its Link and its first Health report reached the gateway's metrics;
 * `stop()` ends them and drops the database.
 */
export async function startSoakStack(serverUrl: string, rebuildApps: boolean): Promise<SoakStack> {
  const dbName = `soak_${randomBytes(4).toString('hex')}`;
  await adminQuery(serverUrl, `create database ${dbName}`);
  const url = new URL(serverUrl);
  url.pathname = `/${dbName}`;
  const dbUrl = url.toString();
  const dir = mkdtempSync(path.join(tmpdir(), 'soak-'));
  const started: Partial<Record<ServiceName, ChildProcess>> = {};
  const halt = () => stopAll(SERVICES.flatMap((s) => (started[s] ? [started[s]] : [])));
  const stop = async () => {
    await halt();
    await adminQuery(serverUrl, `drop database if exists ${dbName} with (force)`);
    rmSync(dir, { recursive: true, force: true });
  };
  const gone = () => {
    const dead = SERVICES.flatMap((s) => {
      const child = started[s];
      return child && (child.exitCode !== null || child.signalCode !== null)
        ? [`${s} exited (${child.signalCode ?? `code ${child.exitCode}`})`]
        : [];
    });
    return dead.length > 0 ? dead.join(', ') : undefined;
  };
  try {
    const certs = ensureDevCerts(path.join(dir, 'certs'));
    const apps = ['backend', 'gateway', 'bot'].filter((app) => rebuildApps || !existsSync(path.join(root, 'dist/apps', app, 'main.js')));
    buildBundles([...apps, 'tools/platform-emulator', 'tools/provider-emulator']);
    const [platformPort, providerPort, backendPort, httpPort, botlinkPort, internalPort, botHealthPort, metricsPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const host = '127.0.0.1';
    const gateway = `http://${host}:${httpPort}`;
    const platform = `http://${host}:${platformPort}`;
    const provider = `http://${host}:${providerPort}`;
    const backend = `http://${host}:${backendPort}`;
    const metrics = `http://${host}:${metricsPort}/metrics`;
    const internal = `http://${host}:${internalPort}`;
    const botHealth = `http://${host}:${botHealthPort}`;
    const mailDir = path.join(dir, 'mailbox');

    started.platform = startBundle(
      'tools/platform-emulator',
      {
        PLATFORM_EMULATOR_PORT: String(platformPort),
        PLATFORM_BOT_TOKEN: BOT_TOKEN,
      },
      INSPECT,
    );
    started.provider = startBundle(
      'tools/provider-emulator',
      {
        PROVIDER_EMULATOR_PORT: String(providerPort),
        PROVIDER_EMULATOR_SHOPS: `${SHOP.id}:${SHOP.secretKey}:test`,
        PROVIDER_EMULATOR_WEBHOOK_URL: `${gateway}/api/v1/payments/notifications/yookassa`,
      },
      INSPECT,
    );
    await waitHealthy(`${platform}/bot${BOT_TOKEN}/getMe`, gone);
    await waitHealthy(`${provider}/_control/health`, gone);
    const chat = (await postJson(`${platform}/_control/chats`, {
      type: 'supergroup',
      title: 'Soak discussion',
      botStatus: 'administrator',
    })) as { id: number };

    started.backend = startBundle(
      'backend',
      {
        ...TEST_SERVICE_TOKENS,
        ...TEST_RATE_LIMITS,
        DATABASE_URL: dbUrl,
        BACKEND_PORT: String(backendPort),
        BACKEND_METRICS_PORT: '0',
        BACKEND_SEED_CATALOG: 'true',
        BACKEND_TELEGRAM_BOT_TOKEN: BOT_TOKEN,
        PUBLIC_BASE_URL: gateway,
        GATEWAY_INTERNAL_URL: internal,
        BACKEND_YOOKASSA_API_URL: `${provider}/v3`,
        BACKEND_YOOKASSA_SHOPS: `direct:${SHOP.id}:${SHOP.secretKey}:test`,
        MAIL_DEV_DIR: mailDir,
        REAPER_INTERVAL_MS: '5000',
      },
      INSPECT,
    );
    await waitHealthy(`${backend}/health`, gone);
    started.gateway = startBundle(
      'gateway',
      gatewayEnv(backend, { http: httpPort, botlink: botlinkPort, internal: internalPort, metrics: metricsPort }, certs),
      INSPECT,
    );
    await waitHealthy(`${gateway}/health`, gone);
    started.bot = startBundle(
      'bot',
      {
        BOTLINK_URL: `https://${host}:${botlinkPort}`,
        BOTLINK_TLS_CA: certs.ca.cert,
        BOTLINK_TLS_CERT: certs.bot.cert,
        BOTLINK_TLS_KEY: certs.bot.key,
        PLATFORM_API_ROOT: platform,
        PLATFORM_BOT_TOKEN: BOT_TOKEN,
        ...DEV_POLICY_LINKS,
        BOT_HEALTH_INTERVAL_MS: '1000',
        BOT_HEALTH_PORT: String(botHealthPort),
        BOT_POLL_TIMEOUT_S: '5',
        BOT_OUTBOX_PATH: path.join(dir, 'outbox.sqlite'),
        BOT_DISCUSSION_CHAT_ID: String(chat.id),
        BOT_INSTANCE_ID: 'soak-bot',
      },
      INSPECT,
    );
    let lastBotHealth = 'no answer';
    await waitFor(
      async () => {
        const res = await fetch(`${botHealth}/health`);
        lastBotHealth = `${res.status} ${await res.text()}`;
        return res.status === 200 && (JSON.parse(lastBotHealth.slice(4)) as { linkConnected?: boolean }).linkConnected === true;
      },
      'the bot and its Link',
      90_000,
      gone,
    ).catch((err: unknown) => {
      throw new Error(`${err instanceof Error ? err.message : String(err)}; the bot's last /health: ${lastBotHealth}`);
    });
    await waitFor(
      async () => {
        const text = await (await fetch(metrics)).text();
        return Number(/^bot_platform_last_ok_unix (\S+)$/m.exec(text)?.[1] ?? 0) > 0;
      },
      'the first Health report of the bot',
      90_000,
      gone,
    );
    const processes = started as Record<ServiceName, ChildProcess>;
    return {
      dbUrl,
      gateway,
      metrics,
      internal,
      backend,
      botHealth,
      platform,
      provider,
      mailDir,
      discussionChatId: chat.id,
      processes,
      exited: () => SERVICES.filter((s) => processes[s].exitCode !== null || processes[s].signalCode !== null),
      halt,
      stop,
    };
  } catch (err: unknown) {
    await stop();
    throw err;
  }
}
