import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '@wordgame/logging';
import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import { startProviderEmulator, type ProviderEmulator } from '@wordgame/provider-emulator';
import { chromiumPath, DEV_POLICY_LINKS, ensureDevCerts, freePort } from '@wordgame/testkit';
import { chromium, type Browser } from 'playwright-core';
import { buildGateway, type GatewayApp, type GatewayUrls } from '../src/app.js';
import { freshDatabase, startBackendProcess, type BackendProcess, type FreshDatabase } from './support/backend-process.js';
import { testGatewayConfig } from './support/gateway-config.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export const SHOP = { shopId: 'console-shop', secretKey: 'console-secret', test: true };
export { createOperator, OPERATOR_PASSWORD } from './support/operator-api.js';
export const EXPORT_CAP = 40;
export const DISCUSSION_CHAT = -1001234567890;

/** The whole console chain: browser-facing gateway, backend process, database, emulators, maybe the bot. */
export interface ConsoleStack {
  db: FreshDatabase;
  backend: BackendProcess;
  gateway: GatewayApp;
  urls: GatewayUrls;
  provider: ProviderEmulator;
  platform?: PlatformEmulator;
  stop(): Promise<void>;
}

async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Starts a fresh database, the provider emulator, the real backend process (its ChatGate client
 * pointed at the gateway's internal port) and the gateway in-process; with `bot`, also the platform
 * emulator (a discussion supergroup where the bot is admin) and the real bot process linked to the
 * gateway over mutual TLS. `backendEnv` adds to (or overrides) the backend's environment.
 */
export async function startConsoleStack(options: { bot?: boolean; backendEnv?: Record<string, string> } = {}): Promise<ConsoleStack> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-console-'));
  const certs = ensureDevCerts(dir);
  const db = await freshDatabase();
  const provider = await startProviderEmulator({ shops: [SHOP], autoNotify: false });
  const internalPort = await freePort();
  const backend = await startBackendProcess(db.url, {
    GATEWAY_INTERNAL_URL: `http://127.0.0.1:${internalPort}`,
    BACKEND_YOOKASSA_API_URL: provider.apiUrl,
    BACKEND_YOOKASSA_SHOPS: `direct:${SHOP.shopId}:${SHOP.secretKey}:test`,
    REAPER_INTERVAL_MS: '0',
    MODERATION_LAPSE_INTERVAL_MS: '500',
    ...options.backendEnv,
  });
  const gateway = buildGateway(
    testGatewayConfig(certs, {
      BACKEND_URL: backend.url,
      GATEWAY_INTERNAL_PORT: String(internalPort),
      GATEWAY_CONSOLE_EXPORT_CAP: String(EXPORT_CAP),
    }),
    createLogger('gateway-console-test', 'silent'),
  );
  const urls = await gateway.start();
  let platform: PlatformEmulator | undefined;
  let bot: ChildProcess | undefined;
  if (options.bot) {
    platform = await startPlatformEmulator();
    platform.control.createChat({ id: DISCUSSION_CHAT, type: 'supergroup', title: 'Discussion' });
    bot = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'apps/bot/src/main.ts')], {
      cwd: ROOT,
      env: {
        PATH: process.env['PATH'] ?? '',
        BOTLINK_URL: urls.botlinkUrl,
        BOTLINK_TLS_CA: certs.ca.cert,
        BOTLINK_TLS_CERT: certs.bot.cert,
        BOTLINK_TLS_KEY: certs.bot.key,
        BOTLINK_BACKOFF_INITIAL_MS: '100',
        BOTLINK_BACKOFF_MAX_MS: '500',
        PLATFORM_API_ROOT: platform.apiRoot,
        PLATFORM_BOT_TOKEN: platform.tokens[0] ?? 'dev-bot-token',
        ...DEV_POLICY_LINKS,
        BOT_POLL_TIMEOUT_S: '1',
        BOT_DISCUSSION_CHAT_ID: String(DISCUSSION_CHAT),
        BOT_OUTBOX_PATH: join(dir, 'outbox.sqlite'),
        LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const hub = gateway.hub;
    await until(() => hub.connected > 0, 'the bot to link');
  }
  return {
    db,
    backend,
    gateway,
    urls,
    provider,
    ...(platform ? { platform } : {}),
    stop: async () => {
      if (bot && bot.exitCode === null) {
        const child = bot;
        await new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        });
      }
      await gateway.stop();
      await backend.stop();
      await platform?.stop();
      await provider.stop();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Headless Chromium (testkit's chromiumPath: CHROMIUM_PATH or PATH) driven by playwright-core (no browser download). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** A paid card order as crediting leaves it: a succeeded emulator payment, the order, the balance and the purchase row. */
export async function paidCardOrder(
  stack: ConsoleStack,
  account: string,
  product: string,
  amount: bigint,
  chips: bigint,
  at: Date,
): Promise<string> {
  const orderId = crypto.randomUUID();
  const res = await fetch(`${stack.provider.apiUrl}/payments`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${SHOP.shopId}:${SHOP.secretKey}`).toString('base64')}`,
      'idempotence-key': orderId,
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      amount: { value: `${BigInt(amount) / 100n}.${String(BigInt(amount) % 100n).padStart(2, '0')}`, currency: 'RUB' },
      capture: true,
      confirmation: { type: 'redirect', return_url: 'https://game.example/wallet' },
      description: 'Chip pack',
      metadata: { order_id: orderId },
    }),
  });
  if (res.status !== 200) throw new Error(`emulator refused the payment: ${res.status}`);
  const payment = (await res.json()) as { id: string };
  await stack.provider.control.succeedPayment(payment.id);
  await stack.db.query(
    `insert into orders (id, account_id, product_id, title, rail, provider, shop, segment, amount, currency, chips, state, created_at, expires_at, paid_at, provider_payment_id)
     values ($1, $2, $3, 'Chip pack', 'card', 'yookassa', $4, 'direct', $5, 'RUB', $6, 'paid', $7, $7::timestamptz + interval '30 minutes', $7, $8)`,
    [orderId, account, product, SHOP.shopId, amount.toString(), chips.toString(), at.toISOString(), payment.id],
  );
  await stack.db.query(
    `insert into wallet_segments (account_id, segment, balance) values ($1, 'direct', $2)
     on conflict (account_id, segment) do update set balance = wallet_segments.balance + excluded.balance`,
    [account, chips.toString()],
  );
  await stack.db.query(
    `insert into ledger_operations (account_id, kind, segment, rail, provider, product_id, order_id, chips_delta, money_minor, currency, created_at)
     values ($1, 'purchase', 'direct', 'yookassa', 'yookassa', $2, $3, $4, $5, 'RUB', $6)`,
    [account, product, orderId, chips.toString(), amount.toString(), at.toISOString()],
  );
  return orderId;
}

/** A card payment taken at the provider for a pending order that was never credited, and its reconciliation row. */
export async function takenNotCredited(
  stack: ConsoleStack,
  account: string,
  product: string,
): Promise<{ orderId: string; paymentId: string; mismatch: string }> {
  const orderId = crypto.randomUUID();
  const res = await fetch(`${stack.provider.apiUrl}/payments`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${SHOP.shopId}:${SHOP.secretKey}`).toString('base64')}`,
      'idempotence-key': orderId,
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      amount: { value: '49.00', currency: 'RUB' },
      capture: true,
      confirmation: { type: 'redirect', return_url: 'https://game.example/wallet' },
      description: 'Chip pack',
      metadata: { order_id: orderId },
    }),
  });
  const payment = (await res.json()) as { id: string };
  await stack.provider.control.succeedPayment(payment.id);
  await stack.db.query(
    `insert into orders (id, account_id, product_id, title, rail, provider, shop, segment, amount, currency, chips, state, created_at, expires_at, provider_payment_id)
     values ($1, $2, $3, 'Chip pack', 'card', 'yookassa', $4, 'direct', 4900, 'RUB', 10, 'pending', now(), now() + interval '30 minutes', $5)`,
    [orderId, account, product, SHOP.shopId, payment.id],
  );
  const run = await stack.db.query<{ id: string }>(
    `insert into reconciliation_runs (trigger, window_from, window_to, started_at, finished_at, outcome, rails)
     values ('cli', now() - interval '1 hour', now(), now(), now(), 'mismatches', 'card') returning id`,
  );
  const row = await stack.db.query<{ id: string }>(
    `insert into reconciliation_mismatches (run_id, kind, rail, provider, shop, order_id, payment_ref, provider_amount, provider_currency)
     values ($1, 'taken_not_credited', 'card', 'yookassa', $2, $3, $4, 4900, 'RUB') returning id`,
    [run.rows[0]?.id, SHOP.shopId, orderId, payment.id],
  );
  return { orderId, paymentId: payment.id, mismatch: row.rows[0]?.id ?? '' };
}
