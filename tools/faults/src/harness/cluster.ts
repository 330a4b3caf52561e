import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import {
  DEV_BOT_CLIENT_NAME,
  DEV_POLICY_LINKS,
  ensureDevCerts,
  freePort,
  startNatsServer,
  TEST_RATE_LIMITS,
  TEST_SERVICE_TOKENS,
  type NatsTestServer,
} from '@wordgame/testkit';
import { ROOT, ServiceProcess } from './service.js';
import { CARD_SHOP, TELEGRAM_BOT_TOKEN } from './stack.js';
import { startTcpBalancer, type TcpBalancer } from './tcp-balancer.js';

/** One gateway replica and where it listens. */
export interface GatewayReplica {
  process: ServiceProcess;
  http: string;
  api: string;
  internal: string;
  botlinkPort: number;
}

/** One backend replica. */
export interface BackendReplica {
  process: ServiceProcess;
  url: string;
}

/** One bot process. */
export interface BotReplica {
  process: ServiceProcess;
  instanceId: string;
}

export interface ClusterOptions {
  databaseUrl: string;
  platformApiRoot: string;
  providerApiUrl: string;
  gateways?: number;
  backends?: number;
  /** Bots: the first owns updates, the others do not. */
  bots?: number;
  logLevel?: string;
  /** Extra environment of every backend (e.g. DB_POOL_MAX when many stacks share one PostgreSQL, BACKEND_DRAIN_DELAY_MS), applied last. */
  backendEnv?: Record<string, string>;
  /** Extra environment of every gateway (e.g. NODE_OPTIONS for a CPU profile), applied last. */
  gatewayEnv?: Record<string, string>;
}

/** Every process of a scaled-out stack. */
export interface Cluster {
  gateways: GatewayReplica[];
  backends: BackendReplica[];
  bots: BotReplica[];
  /** The L4 balancer in front of the gateways' bot-link ports (what the bots dial). */
  balancer: TcpBalancer;
  mailDir: string;
  /** The stack's own nats-server (ops/nats/nats.conf: NKEY users, per-service permissions). */
  nats: NatsTestServer;
  /** NATS subjects of this stack start with it. */
  prefix: string;
  stop(): Promise<void>;
}

const httpOk = async (url: string): Promise<boolean> => {
  const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
  await res.body?.cancel();
  return res.status === 200;
};

/**
 * Starts N backends and M gateways sharing one PostgreSQL database and their own nats-server (run
 * with ops/nats/nats.conf, as compose does: each replica signs in with its service's NKEY and may
 * use only its subjects), every gateway given every backend (BACKEND_URL list) and every backend every
 * gateway (GATEWAY_INTERNAL_URL list), plus bots dialling the gateways through an L4 balancer, all
 * from the production bundles as separate processes.
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'scale-stack-'));
  const certs = ensureDevCerts(join(dir, 'certs'));
  const host = '127.0.0.1';
  const logLevel = options.logLevel ?? 'info';
  const prefix = `scale${randomBytes(4).toString('hex')}`;
  const nats = await startNatsServer({ prefix });
  const mailDir = join(dir, 'mail');
  const nB = options.backends ?? 2;
  const nG = options.gateways ?? 2;
  const nBots = options.bots ?? 2;
  const backendPorts = await ports(nB);
  const g = { http: await ports(nG), botlink: await ports(nG), internal: await ports(nG), metrics: await ports(nG) };
  const backendUrls = backendPorts.map((p) => `http://${host}:${p}`);
  const internalUrls = g.internal.map((p) => `http://${host}:${p}`);

  const backends: BackendReplica[] = backendPorts.map((port, i) => ({
    url: backendUrls[i] as string,
    process: new ServiceProcess(
      `backend${i + 1}`,
      'backend',
      {
        ...TEST_SERVICE_TOKENS,
        ...TEST_RATE_LIMITS,
        LOG_LEVEL: logLevel,
        DATABASE_URL: options.databaseUrl,
        BACKEND_HOST: host,
        BACKEND_PORT: String(port),
        BACKEND_METRICS_PORT: '0',
        BACKEND_SEED_CATALOG: 'false',
        BACKEND_TELEGRAM_BOT_TOKEN: TELEGRAM_BOT_TOKEN,
        PUBLIC_BASE_URL: `http://${host}:${g.http[0] ?? 0}`,
        MAIL_TRANSPORT: 'dev',
        MAIL_DEV_DIR: mailDir,
        GATEWAY_INTERNAL_URL: internalUrls.join(','),
        ...nats.env('backend'),
        MODERATION_LAPSE_INTERVAL_MS: '0',
        REAPER_INTERVAL_MS: '2000',
        BACKEND_YOOKASSA_API_URL: options.providerApiUrl,
        BACKEND_YOOKASSA_SHOPS: `direct:${CARD_SHOP.shopId}:${CARD_SHOP.secretKey}:test`,
        ...options.backendEnv,
      },
      () => httpOk(`${backendUrls[i] ?? ''}/readyz`),
    ),
  }));
  const gateways: GatewayReplica[] = g.http.map((httpPort, i) => ({
    http: `http://${host}:${httpPort}`,
    api: `http://${host}:${httpPort}/api/v1`,
    internal: internalUrls[i] as string,
    botlinkPort: g.botlink[i] as number,
    process: new ServiceProcess(
      `gateway${i + 1}`,
      'gateway',
      {
        ...TEST_SERVICE_TOKENS,
        BOTLINK_ALLOWED_CLIENTS: DEV_BOT_CLIENT_NAME,
        ...DEV_POLICY_LINKS,
        LOG_LEVEL: logLevel,
        BACKEND_URL: backendUrls.join(','),
        ...nats.env('gateway'),
        GATEWAY_HOST: host,
        GATEWAY_HTTP_PORT: String(httpPort),
        BOTLINK_HOST: host,
        BOTLINK_PORT: String(g.botlink[i]),
        GATEWAY_INTERNAL_HOST: host,
        GATEWAY_INTERNAL_PORT: String(g.internal[i]),
        GATEWAY_METRICS_HOST: host,
        GATEWAY_METRICS_PORT: String(g.metrics[i]),
        BOTLINK_TLS_CA: certs.ca.cert,
        BOTLINK_TLS_CERT: certs.gateway.cert,
        BOTLINK_TLS_KEY: certs.gateway.key,
        ...options.gatewayEnv,
      },
      // The metrics listener starts last, once HTTP, bot-link and internal listeners are up.
      () => httpOk(`http://${host}:${g.metrics[i] ?? 0}/metrics`),
    ),
  }));
  const balancer = await startTcpBalancer(g.botlink, host);
  const botHealth = await ports(nBots);
  const bots: BotReplica[] = botHealth.map((healthPort, i) => {
    const instanceId = `scale-bot-${i + 1}`;
    return {
      instanceId,
      process: new ServiceProcess(
        `bot${i + 1}`,
        'bot',
        {
          LOG_LEVEL: logLevel,
          BOTLINK_URL: `https://${host}:${balancer.port}`,
          BOTLINK_TLS_CA: certs.ca.cert,
          BOTLINK_TLS_CERT: certs.bot.cert,
          BOTLINK_TLS_KEY: certs.bot.key,
          BOT_INSTANCE_ID: instanceId,
          PLATFORM_API_ROOT: options.platformApiRoot,
          PLATFORM_BOT_TOKEN: TELEGRAM_BOT_TOKEN,
          ...DEV_POLICY_LINKS,
          OWNS_UPDATES: i === 0 ? 'true' : 'false',
          BOT_POLL_TIMEOUT_S: '1',
          BOT_OUTBOX_PATH: join(dir, `bot${i + 1}-outbox.sqlite`),
          BOT_HEALTH_HOST: host,
          BOT_HEALTH_PORT: String(healthPort),
          BOTLINK_BACKOFF_INITIAL_MS: '200',
          BOTLINK_BACKOFF_MAX_MS: '1000',
          BOT_OUTBOX_RETRY_INITIAL_MS: '200',
          BOT_OUTBOX_RETRY_MAX_MS: '2000',
        },
        () => httpOk(`http://${host}:${healthPort}/readyz`),
      ),
    };
  });

  const all = [...backends.map((b) => b.process), ...gateways.map((x) => x.process), ...bots.map((b) => b.process)];
  const stop = async () => {
    for (const p of [...all].reverse()) await p.stop();
    await balancer.close();
    await nats.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // The first backend migrates alone; then the rest start together.
    // Generous: two cores shared with other suites can make a cold start slow.
    await backends[0]?.process.start(120_000);
    await Promise.all([...backends.slice(1).map((b) => b.process.start(120_000)), ...gateways.map((x) => x.process.start(120_000))]);
    await Promise.all(bots.map((b) => b.process.start(120_000)));
  } catch (err: unknown) {
    await stop();
    throw err;
  }
  return { gateways, backends, bots, balancer, mailDir, nats, prefix, stop };
}

async function ports(n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i += 1) out.push(await freePort());
  return out;
}

/** Creates an operator with `roles` through the backend's CLI and signs it in at `gateway`; answers its session token. */
export async function operatorToken(databaseUrl: string, gateway: string, roles: string): Promise<string> {
  const login = 'scale-operator';
  const password = 'scale operator password';
  const run = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'apps/backend/src/operators/create-cli.ts'), login, roles],
    {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: databaseUrl, OPERATOR_PASSWORD: password, LOG_LEVEL: 'silent' },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  if (run.status !== 0) throw new Error(`operator:create failed: ${run.stdout}${run.stderr}`);
  const res = await fetch(`${gateway}/_gm/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ login, password }),
  });
  const body = (await res.json()) as { token?: string };
  if (res.status !== 200 || body.token === undefined) throw new Error(`operator sign-in: ${res.status} ${JSON.stringify(body)}`);
  return body.token;
}
