import type { Client } from '@connectrpc/connect';
import { backendApi } from '@wordgame/contracts';
import { createLogger } from '@wordgame/logging';
import { startProviderEmulator, type ProviderEmulator } from '@wordgame/provider-emulator';
import type { Kysely } from 'kysely';
import { loadBackendConfig } from '../src/config/index.js';
import type { DB } from '../src/db/schema.js';
import type { PaymentDeps } from '../src/payments/deps.js';
import { paymentDeps } from '../src/payments/module.js';
import type { PaymentProvider, Shop } from '../src/payments/card/provider/types.js';
import { YooKassaProvider } from '../src/payments/card/provider/yookassa.js';
import { startHarness, type Harness } from './support/harness.js';
import { createProduct } from './support/wallet.js';
import { SHOPS, SHOPS_ENV, startBotCommandServer, startWebhook, type BotCommandServer, type Webhook } from './payments-support.js';
import { TEST_RATE_LIMITS, TEST_SERVICE_TOKENS } from '@wordgame/testkit';

/**
 * A backend with the card rail on the provider emulator: the harness (real PostgreSQL, Connect),
 * the emulator posting notifications to a webhook that plays the gateway's intake route, a bot
 * command server recording notify commands, payment deps built from the same configuration (same
 * database and mailbox) for calling the domain directly, and one 299.00 RUB pack of 1000 chips.
 */
export interface CardFixture {
  emulator: ProviderEmulator;
  bot: BotCommandServer;
  h: Harness;
  webhook: Webhook;
  payments: Client<typeof backendApi.PaymentsService>;
  notifications: Client<typeof backendApi.NotificationService>;
  refunds: Client<typeof backendApi.RefundService>;
  deps: PaymentDeps;
  /** A second adapter on the emulator, for payments and refunds made behind the backend's back. */
  adapter: YooKassaProvider;
  directShop: Shop;
  pack: bigint;
  db(): Kysely<DB>;
  stop(): Promise<void>;
}

export async function startCardFixture(extraEnv: Record<string, string> = {}): Promise<CardFixture> {
  const emulator = await startProviderEmulator({ shops: [SHOPS.direct, SHOPS.vk] });
  const bot = await startBotCommandServer();
  const env = {
    BACKEND_YOOKASSA_API_URL: emulator.apiUrl,
    BACKEND_YOOKASSA_SHOPS: SHOPS_ENV,
    GATEWAY_INTERNAL_URL: bot.url,
    REAPER_INTERVAL_MS: '0',
    PROVIDER_TIMEOUT_MS: '2000',
    ...extraEnv,
  };
  const h = await startHarness(env);
  const notifications = h.client(backendApi.NotificationService);
  const webhook = await startWebhook(notifications);
  const config = loadBackendConfig({
    ...TEST_SERVICE_TOKENS,
    ...TEST_RATE_LIMITS,
    ...env,
    DATABASE_URL: h.database.url,
    PUBLIC_BASE_URL: 'https://game.example',
    MAIL_DEV_DIR: h.mailDir,
  });
  const pack = await createProduct(h.client(backendApi.CatalogAdminService), {
    title: '1000 chips',
    atoms: [['chips', 1000n]],
    prices: [['provider', 29_900n, 'RUB']],
  });
  return {
    emulator,
    bot,
    h,
    webhook,
    payments: h.client(backendApi.PaymentsService),
    notifications,
    refunds: h.client(backendApi.RefundService),
    deps: paymentDeps(config, h.database.db, createLogger('card-fixture', 'silent')),
    adapter: new YooKassaProvider({ apiUrl: emulator.apiUrl }),
    directShop: { id: SHOPS.direct.shopId, secretKey: SHOPS.direct.secretKey, test: true },
    pack,
    db: () => h.database.db,
    async stop() {
      await webhook.stop();
      await h.stop();
      await bot.stop();
      await emulator.stop();
    },
  };
}

/** Resets the emulator between tests (after the last test's notifications landed) and points them at the fixture's webhook. */
export async function resetCardFixture(f: CardFixture): Promise<void> {
  await f.emulator.control.flushNotifications();
  f.emulator.control.reset();
  f.emulator.control.setWebhookUrl(f.webhook.url);
  f.webhook.dispositions.length = 0;
  f.bot.commands.length = 0;
}

/** The provider payment id recorded on an order (throws when none is). */
export async function paymentIdOf(db: Kysely<DB>, orderId: string): Promise<string> {
  const { provider_payment_id: id } = await db
    .selectFrom('orders')
    .select('provider_payment_id')
    .where('id', '=', orderId)
    .executeTakeFirstOrThrow();
  if (id === null) throw new Error(`order ${orderId} has no provider payment id`);
  return id;
}

/** A provider double around a real adapter that counts getPayment calls in flight and per payment. */
export interface CountingProvider extends PaymentProvider {
  maxInFlight: number;
  reads: string[];
}

export function countingProvider(inner: PaymentProvider): CountingProvider {
  let inFlight = 0;
  const counting: CountingProvider = {
    name: inner.name,
    maxInFlight: 0,
    reads: [],
    async getPayment(shop, paymentId) {
      inFlight += 1;
      counting.maxInFlight = Math.max(counting.maxInFlight, inFlight);
      counting.reads.push(paymentId);
      try {
        return await inner.getPayment(shop, paymentId);
      } finally {
        inFlight -= 1;
      }
    },
    createPayment: (shop, input, key) => inner.createPayment(shop, input, key),
    createRefund: (shop, input, key) => inner.createRefund(shop, input, key),
    getRefund: (shop, refundId) => inner.getRefund(shop, refundId),
    listPayments: (shop, query) => inner.listPayments(shop, query),
    listRefunds: (shop, query) => inner.listRefunds(shop, query),
  };
  return counting;
}
