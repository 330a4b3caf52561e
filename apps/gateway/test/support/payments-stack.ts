import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createLogger } from '@wordgame/logging';
import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import { startProviderEmulator, type ProviderEmulator, type ShopConfig } from '@wordgame/provider-emulator';
import { confirmByPage, DEV_POLICY_LINKS, ensureDevCerts, type DevCerts, freePort } from '@wordgame/testkit';
import { buildGateway, type GatewayApp, type GatewayUrls } from '../../src/app.js';
import { freshDatabase, startBackendProcess, type BackendProcess, type FreshDatabase } from './backend-process.js';
import { TELEGRAM_BOT_TOKEN, VK_APP_SECRET } from './chain.js';
import { operatorApiToken } from './operator-api.js';
import { eventually } from './botlink-gateway.js';
import { call } from './edge.js';
import { nowSeconds, telegramInitData, vkLaunchParams } from './launch-data.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
import { testGatewayConfig } from './gateway-config.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const TSX = join(ROOT, 'node_modules/tsx/dist/cli.mjs');

/** The direct channel's card shop (a test shop, as the emulator marks it). */
export const DIRECT_SHOP: ShopConfig = { shopId: 'direct-shop', secretKey: 'direct-secret', test: true };
/** The vk channel's shop: the backend is told it is live while the emulator marks its payments test. */
export const VK_SHOP: ShopConfig = { shopId: 'vk-shop', secretKey: 'vk-secret', test: true };

/** A service as its own process (the real bot: `apps/bot/src/main.ts`), killable and restartable on the same files. */
export interface BotProcess {
  /** Starts (or restarts) the process. */
  start(): void;
  /** SIGKILL: no shutdown code runs (a crash). */
  kill(): Promise<void>;
  /** SIGTERM and wait. */
  stop(): Promise<void>;
  /** The process's log lines (JSON), across restarts. */
  logs: Record<string, unknown>[];
}

/** Runs `entry` (a path under the repository root, through tsx) with exactly `env` plus PATH. */
export function serviceProcess(entry: string, env: Record<string, string>): BotProcess {
  let child: ChildProcess | undefined;
  const logs: Record<string, unknown>[] = [];
  const exited = (c: ChildProcess) => c.exitCode !== null || c.signalCode !== null;
  // tsx runs the bot in a child of its own process: signal the whole process group, so SIGKILL
  // reaches the bot itself (a signal to the tsx wrapper alone would orphan a live bot).
  const end = (signal: NodeJS.Signals) => {
    const c = child;
    if (!c || exited(c) || c.pid === undefined) return Promise.resolve();
    const group = c.pid;
    return new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      process.kill(-group, signal);
    });
  };
  return {
    logs,
    start() {
      if (child && !exited(child)) throw new Error(`${entry} is already running`);
      const c = spawn(process.execPath, [TSX, join(ROOT, entry)], {
        cwd: ROOT,
        env: { PATH: process.env['PATH'] ?? '', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      let buffered = '';
      c.stdout?.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) {
          try {
            logs.push(JSON.parse(line) as Record<string, unknown>);
          } catch {
            logs.push({ raw: line });
          }
        }
      });
      c.stderr?.on('data', (chunk: Buffer) => logs.push({ stderr: chunk.toString('utf8') }));
      child = c;
    },
    kill: () => end('SIGKILL'),
    stop: () => end('SIGTERM'),
  };
}

/** The real bot as its own process. */
export function botProcess(env: Record<string, string>): BotProcess {
  return serviceProcess('apps/bot/src/main.ts', env);
}

/** Options of the payments stack. */
export interface PaymentsStackOptions {
  /** Start the platform emulator and the real bot process (stars rail). */
  bot?: boolean;
  /** Provider notifications sent automatically on payment changes (default true). */
  autoNotify?: boolean;
  /** Backend REAPER_INTERVAL_MS (default 0 = off). */
  reaperIntervalMs?: number;
  /** Backend replicas on the one database (default 1); the gateway spreads its calls over all. */
  backends?: number;
  /** More backend variables (e.g. PRECHECKOUT_HOLD_MS, STAR_REFUND_INTERVAL_MS). */
  backendEnv?: Record<string, string>;
  /** More gateway variables (e.g. GATEWAY_SESSION_CACHE_MS, which is 0 here unless set). */
  gatewayEnv?: Record<string, string>;
  /**
   * A built wallet page for the gateway to serve; the gateway then listens on a port chosen up
   * front, and that address is the backend's PUBLIC_BASE_URL (card return page, mailed links).
   */
  walletDir?: string;
}

/**
 * Everything the payment flows cross, each real: a fresh PostgreSQL database, the backend as its own
 * process, the gateway in-process (buildGateway: HTTP edge, bot-link over mutual TLS, internal
 * command port), the provider emulator (YooKassa) posting notifications to the gateway's intake
 * route, and with `bot` the platform emulator plus the real bot process linked through a TCP relay
 * (so a test can take "the gateway" away from the bot).
 */
export interface PaymentsStack {
  db: FreshDatabase;
  /** The first backend replica. */
  backend: BackendProcess;
  /** Every backend replica (one mailbox between them). */
  backends: BackendProcess[];
  gateway: GatewayApp;
  urls: GatewayUrls;
  /** `${urls.httpUrl}/api/v1` */
  api: string;
  provider: ProviderEmulator;
  platform: PlatformEmulator | undefined;
  bot: BotProcess | undefined;
  /** The relay between the bot and the gateway's bot-link port. */
  link: TcpProxy | undefined;
  /** The bot's SQLite outbox file. */
  outboxPath: string;
  /** Bearer token of an operator (refunder, catalog_editor) signed in through the operator API. */
  operatorToken: string;
  /** The gateway's log lines (JSON, level info and up). */
  gatewayLogs: Record<string, unknown>[];
  certs: DevCerts;
  stop(): Promise<void>;
}

export async function startPaymentsStack(options: PaymentsStackOptions = {}): Promise<PaymentsStack> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-payments-'));
  const certs = ensureDevCerts(dir);
  const db = await freshDatabase();
  const provider = await startProviderEmulator({ shops: [DIRECT_SHOP, VK_SHOP], autoNotify: options.autoNotify ?? true });
  const internalPort = await freePort();
  const httpPort = options.walletDir === undefined ? 0 : await freePort();
  const mailDir = join(dir, 'mail');
  mkdirSync(mailDir);
  const backendEnv = {
    BACKEND_TELEGRAM_BOT_TOKEN: TELEGRAM_BOT_TOKEN,
    BACKEND_VK_APP_SECRET: VK_APP_SECRET,
    PUBLIC_BASE_URL: httpPort === 0 ? 'http://gateway.test' : `http://127.0.0.1:${httpPort}`,
    GATEWAY_INTERNAL_URL: `http://127.0.0.1:${internalPort}`,
    BOT_COMMAND_TIMEOUT_MS: '5000',
    BACKEND_YOOKASSA_API_URL: provider.apiUrl,
    BACKEND_YOOKASSA_SHOPS: `direct:${DIRECT_SHOP.shopId}:${DIRECT_SHOP.secretKey}:test,vk:${VK_SHOP.shopId}:${VK_SHOP.secretKey}:live`,
    PROVIDER_TIMEOUT_MS: '2000',
    REAPER_INTERVAL_MS: String(options.reaperIntervalMs ?? 0),
    MODERATION_LAPSE_INTERVAL_MS: '0',
    MAIL_DEV_DIR: mailDir,
    ...options.backendEnv,
  };
  // One after the other: the first migrates the fresh database.
  const backends: BackendProcess[] = [];
  for (let i = 0; i < (options.backends ?? 1); i += 1) backends.push(await startBackendProcess(db.url, backendEnv));
  const backend = backends[0] as BackendProcess;
  const gatewayLogs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) gatewayLogs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const gateway = buildGateway(
    testGatewayConfig(certs, {
      BACKEND_URL: backends.map((b) => b.url).join(','),
      GATEWAY_INTERNAL_PORT: String(internalPort),
      GATEWAY_SESSION_CACHE_MS: '0',
      ...options.gatewayEnv,
      ...(options.walletDir === undefined ? {} : { GATEWAY_HTTP_PORT: String(httpPort), GATEWAY_WALLET_DIR: options.walletDir }),
    }),
    createLogger('gateway-payments-test', 'info', sink),
  );
  const urls = await gateway.start();
  provider.control.setWebhookUrl(`${urls.httpUrl}/api/v1/payments/notifications/yookassa`);
  const outboxPath = join(dir, 'outbox.sqlite');
  let platform: PlatformEmulator | undefined;
  let bot: BotProcess | undefined;
  let link: TcpProxy | undefined;
  if (options.bot) {
    platform = await startPlatformEmulator({ tokens: [TELEGRAM_BOT_TOKEN] });
    link = await startTcpProxy(urls.botlinkPort);
    bot = botProcess({
      BOTLINK_URL: `https://127.0.0.1:${link.port}`,
      BOTLINK_TLS_CA: certs.ca.cert,
      BOTLINK_TLS_CERT: certs.bot.cert,
      BOTLINK_TLS_KEY: certs.bot.key,
      BOTLINK_BACKOFF_INITIAL_MS: '100',
      BOTLINK_BACKOFF_MAX_MS: '300',
      BOTLINK_RPC_TIMEOUT_MS: '10000',
      PLATFORM_API_ROOT: platform.apiRoot,
      PLATFORM_BOT_TOKEN: TELEGRAM_BOT_TOKEN,
      ...DEV_POLICY_LINKS,
      BOT_POLL_TIMEOUT_S: '1',
      BOT_PRECHECKOUT_TIMEOUT_MS: '8000',
      BOT_OUTBOX_PATH: outboxPath,
      BOT_OUTBOX_RETRY_INITIAL_MS: '100',
      BOT_OUTBOX_RETRY_MAX_MS: '300',
      BOT_INSTANCE_ID: 'e2e-bot',
      LOG_LEVEL: 'info',
    });
    bot.start();
    await waitForBot(gateway);
  }
  return {
    db,
    backend,
    backends,
    gateway,
    urls,
    operatorToken: await operatorApiToken(db.url, urls.httpUrl),
    api: `${urls.httpUrl}/api/v1`,
    provider,
    platform,
    bot,
    link,
    outboxPath,
    gatewayLogs,
    certs,
    stop: async () => {
      await bot?.stop();
      await link?.close();
      await gateway.stop();
      for (const b of backends) await b.stop();
      await platform?.stop();
      await provider.stop();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves once a bot holds a Link to the gateway. */
export function waitForBot(gateway: GatewayApp, timeoutMs = 30_000): Promise<void> {
  return eventually(() => gateway.hub.connected > 0, timeoutMs);
}

/** A customer's session: the bearer token and account id. */
export interface Customer {
  token: string;
  accountId: string;
}

/** Opens a telegram Mini App session for platform user `userId` (signed init data). */
export async function telegramCustomer(api: string, userId: number): Promise<Customer> {
  const res = await call(`${api}/session/telegram`, {
    method: 'POST',
    json: { init_data: telegramInitData(TELEGRAM_BOT_TOKEN, { id: userId, first_name: 'Payer' }, nowSeconds()) },
  });
  if (res.status !== 200) throw new Error(`telegram session: ${res.status} ${JSON.stringify(res.body)}`);
  const body = res.body as { token: string; account_id: string };
  return { token: body.token, accountId: body.account_id };
}

/** Opens a vk Mini App session (android) for vk user `userId`. */
export async function vkCustomer(api: string, userId: string): Promise<Customer> {
  const res = await call(`${api}/session/vk`, {
    method: 'POST',
    json: { launch_params: vkLaunchParams(VK_APP_SECRET, userId, 'mobile_android', nowSeconds()) },
  });
  if (res.status !== 200) throw new Error(`vk session: ${res.status} ${JSON.stringify(res.body)}`);
  const body = res.body as { token: string; account_id: string };
  return { token: body.token, accountId: body.account_id };
}

/** Opens the newest confirmation link mailed to `email` (the backend's dev mailbox) and presses the page's button, as the customer would. */
async function confirmFromMailbox(stack: Pick<PaymentsStack, 'api' | 'backend'>, email: string): Promise<void> {
  let token: string | undefined;
  await eventually(() => {
    for (const file of readdirSync(stack.backend.mailDir).sort().reverse()) {
      const mail = readFileSync(join(stack.backend.mailDir, file), 'utf8').replace(/=\r?\n/g, '');
      if (!mail.includes(email)) continue;
      token = /confirm-email\?token=([A-Za-z0-9_%=-]+)/.exec(mail)?.[1];
      if (token !== undefined) return true;
    }
    return false;
  });
  const confirmed = await confirmByPage(`${stack.api}/user/profile/confirm-email?token=${token ?? ''}`);
  if (confirmed.outcome !== 'confirmed') throw new Error(`confirm e-mail: ${confirmed.status} ${confirmed.message}`);
}

/**
 * Signs up a direct (web) customer; with `confirm`, follows the confirmation link mailed at signup
 * so the card rail is open to them.
 */
export async function directCustomer(stack: Pick<PaymentsStack, 'api' | 'backend'>, email: string, confirm: boolean): Promise<Customer> {
  const res = await call(`${stack.api}/session/direct`, {
    method: 'POST',
    json: { email, password: 'payments password 1', mode: 'signup', subtype: 'web' },
  });
  if (res.status !== 200) throw new Error(`direct session: ${res.status} ${JSON.stringify(res.body)}`);
  const body = res.body as { token: string; account_id: string };
  if (confirm) await confirmFromMailbox(stack, email);
  return { token: body.token, accountId: body.account_id };
}

/** Links and confirms an e-mail on a customer's profile (a mini-app customer paying by card needs one). */
export async function linkEmail(stack: Pick<PaymentsStack, 'api' | 'backend'>, customer: Customer, email: string): Promise<void> {
  const res = await call(`${stack.api}/user/profile`, { method: 'PATCH', headers: bearer(customer), json: { email } });
  if (res.status !== 200) throw new Error(`link e-mail: ${res.status} ${JSON.stringify(res.body)}`);
  await confirmFromMailbox(stack, email);
}

/** Authorization header of a customer. */
export const bearer = (c: Customer): Record<string, string> => ({ authorization: `Bearer ${c.token}` });

/** Creates a catalog product through the operator catalog editor; answers its id. */
export async function createProduct(
  stack: Pick<PaymentsStack, 'urls' | 'operatorToken'>,
  title: string,
  chips: bigint,
  prices: { xtr?: bigint; rub?: bigint },
): Promise<string> {
  const list = [
    ...(prices.xtr !== undefined ? [{ method: 'xtr', amount: prices.xtr.toString(), currency: 'XTR' }] : []),
    ...(prices.rub !== undefined ? [{ method: 'provider', amount: prices.rub.toString(), currency: 'RUB' }] : []),
  ];
  const res = await call(`${stack.urls.httpUrl}/_gm/api/catalog/products`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.operatorToken}` },
    json: { title, texts: { ru: { title } }, atoms: [{ kind: 'chips', quantity: chips.toString() }], prices: list },
  });
  if (res.status !== 201) throw new Error(`create product: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { product_id: string }).product_id;
}

/** An order as the REST edge answers it. */
export interface OrderBody {
  order_id: string;
  product_id: string;
  title: string;
  rail: string;
  provider: string;
  state: string;
  amount: string;
  currency: string;
  chips: string;
  created_at: string;
  expires_at: string;
  paid_at: string | null;
  invoice_link: string | null;
  confirmation_url: string | null;
  failure_reason: string | null;
  refunded: boolean;
}

/** The balance of one wallet segment as the customer's wallet shows it ("0" when absent). */
export async function balance(api: string, customer: Customer, segment: string): Promise<string> {
  const res = await call(`${api}/user/wallet`, { headers: bearer(customer) });
  const wallet = res.body as { segments: { segment: string; balance: string }[] };
  return wallet.segments.find((s) => s.segment === segment)?.balance ?? '0';
}

/** Rows of one ledger kind for an order (exactly-once checks). */
export async function ledgerRows(db: FreshDatabase, orderId: string, kind: string): Promise<number> {
  const res = await db.query<{ n: number }>('select count(*)::int as n from ledger_operations where order_id = $1 and kind = $2', [
    orderId,
    kind,
  ]);
  return res.rows[0]?.n ?? 0;
}
