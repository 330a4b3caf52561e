import { randomUUID } from 'node:crypto';
import type { Client } from '@connectrpc/connect';
import { backendApi, connector, encodeTable, fb } from '@wordgame/contracts';
import { createLogger } from '@wordgame/logging';
import { startProviderEmulator, type ProviderEmulator } from '@wordgame/provider-emulator';
import { loadBackendConfig } from '../src/config/index.js';
import { auditLedger } from '../src/ledger/audit.js';
import { createOrder as createOrderDirect } from '../src/payments/orders/create.js';
import type { PaymentDeps } from '../src/payments/deps.js';
import { paymentDeps } from '../src/payments/module.js';
import { YooKassaProvider } from '../src/payments/card/provider/yookassa.js';
import { createReaper, type Reaper } from '../src/payments/reaper/reaper.js';
import { as, errorOf, failure, startHarness, type Harness } from './support/harness.js';
import { createProduct, newAccount } from './support/wallet.js';
import { TEST_RATE_LIMITS, TEST_SERVICE_TOKENS } from '@wordgame/testkit';
import {
  createOrder,
  eventually,
  intakeBody,
  listOrders,
  refund,
  SHOPS,
  SHOPS_ENV,
  startBotCommandServer,
  startWebhook,
  telegramAccount,
  type BotCommandServer,
  type Webhook,
} from './payments-support.js';

const logger = createLogger('payments-card-test', 'silent');
const confirmed = (n: string) => ({ address: `${n}@example.org`, confirmed: true });
/** PROVIDER_REREAD_WINDOW_MS here: notifications naming one payment or refund re-read it at most once per window. */
const REREAD_WINDOW_MS = 300;

describe('card rail over Connect on PostgreSQL with the provider emulator', () => {
  let emulator: ProviderEmulator;
  let bot: BotCommandServer;
  let h: Harness;
  let webhook: Webhook;
  let payments: Client<typeof backendApi.PaymentsService>;
  let notifications: Client<typeof backendApi.NotificationService>;
  let refunds: Client<typeof backendApi.RefundService>;
  let deps: PaymentDeps;
  let reaper: Reaper;
  let adapter: YooKassaProvider;
  let pack: bigint;
  let bundle: bigint;
  let env: Record<string, string>;

  beforeAll(async () => {
    emulator = await startProviderEmulator({ shops: [SHOPS.direct, SHOPS.vk] });
    bot = await startBotCommandServer();
    env = {
      BACKEND_YOOKASSA_API_URL: emulator.apiUrl,
      BACKEND_YOOKASSA_SHOPS: SHOPS_ENV,
      GATEWAY_INTERNAL_URL: bot.url,
      REAPER_INTERVAL_MS: '0',
      PROVIDER_TIMEOUT_MS: '2000',
      PROVIDER_REREAD_WINDOW_MS: String(REREAD_WINDOW_MS),
    };
    h = await startHarness(env);
    payments = h.client(backendApi.PaymentsService);
    notifications = h.client(backendApi.NotificationService);
    refunds = h.client(backendApi.RefundService);
    webhook = await startWebhook(notifications);
    const config = loadBackendConfig({
      ...TEST_SERVICE_TOKENS,
      ...TEST_RATE_LIMITS,
      ...env,
      DATABASE_URL: h.database.url,
      PUBLIC_BASE_URL: 'https://game.example',
    });
    deps = paymentDeps(config, h.database.db, logger);
    reaper = createReaper(deps, { intervalMs: 0, recheckBatch: 200, recheckConcurrency: 8 });
    adapter = new YooKassaProvider({ apiUrl: emulator.apiUrl });
    const admin = h.client(backendApi.CatalogAdminService);
    pack = await createProduct(admin, {
      title: '1000 chips',
      atoms: [['chips', 1000n]],
      prices: [
        ['provider', 29_900n, 'RUB'],
        ['xtr', 300n],
      ],
    });
    bundle = await createProduct(admin, {
      title: 'Bundle',
      atoms: [
        ['chips', 200n],
        ['hints', 5n],
        ['no_ads_days', 7n],
        ['no_ads_forever', 1n],
      ],
      prices: [['provider', 49_900n, 'RUB']],
    });
  });
  afterAll(async () => {
    await webhook.stop();
    await h.stop();
    await bot.stop();
    await emulator.stop();
  });
  beforeEach(() => {
    emulator.control.reset();
    emulator.control.setWebhookUrl(webhook.url);
    webhook.dispositions.length = 0;
  });

  const db = () => h.database.db;
  const balance = async (accountId: bigint, segment: 'direct' | 'vk' = 'direct') =>
    (
      await db()
        .selectFrom('wallet_segments')
        .select('balance')
        .where('account_id', '=', accountId)
        .where('segment', '=', segment)
        .executeTakeFirstOrThrow()
    ).balance;
  const orderRow = (id: string) => db().selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const paymentIdOf = async (orderId: string) => {
    const id = (await orderRow(orderId)).provider_payment_id;
    if (id === null) throw new Error('no provider payment id');
    return id;
  };
  const ledgerOf = (orderId: string) =>
    db().selectFrom('ledger_operations').selectAll().where('order_id', '=', orderId).orderBy('id').execute();
  const clean = async () => expect((await auditLedger(db())).problems).toEqual([]);
  const paidOrder = async (accountId: bigint, product = pack) => {
    const order = await createOrder(payments, accountId, 'direct;web', product, 'card');
    await emulator.control.succeedPayment(await paymentIdOf(order.orderId));
    expect((await orderRow(order.orderId)).state).toBe('paid');
    return order;
  };

  it('requires a confirmed e-mail for a card purchase', async () => {
    const none = await newAccount(db());
    const unconfirmed = await newAccount(db(), { address: 'u@example.org', confirmed: false });
    expect(await failure(createOrder(payments, none, 'direct;web', pack, 'card'))).toEqual({ code: 9, errorCode: 'email_required' });
    expect(await failure(createOrder(payments, unconfirmed, 'direct', pack, 'card'))).toEqual({ code: 9, errorCode: 'email_required' });
    expect(emulator.control.requests()).toEqual([]);
  });

  it('creates a single-stage redirect payment keyed by the order id, then credits once from the notification', async () => {
    const id = await newAccount(db(), confirmed('c1'));
    const order = await createOrder(payments, id, 'direct;web', pack, 'card');
    expect(order).toMatchObject({ state: 'pending', rail: 'card', provider: 'yookassa', amount: 29_900n, currency: 'RUB', chips: 1000n });
    expect(order.confirmationUrl).toMatch(/^http/);
    const paymentId = await paymentIdOf(order.orderId);
    const view = emulator.control.payment(paymentId);
    expect(view).toMatchObject({
      shopId: 'shop-direct',
      capture: true,
      payment: { metadata: { order_id: order.orderId }, confirmation: { type: 'redirect', return_url: 'https://game.example/wallet' } },
    });
    expect(view.receipt).toBeFalsy();
    expect(emulator.control.requests()[0]).toMatchObject({ method: 'POST', idempotenceKey: order.orderId });

    await emulator.control.succeedPayment(paymentId);
    expect(webhook.dispositions).toEqual([{ disposition: 'handled', detail: 'credited' }]);
    expect(await balance(id)).toBe(1000n);
    const [listed] = await listOrders(payments, id, 'direct;web');
    expect(listed).toMatchObject({ orderId: order.orderId, state: 'paid' });

    const [first] = emulator.control.notifications();
    if (!first) throw new Error('no notification');
    await emulator.control.redeliver(first.id);
    expect(webhook.dispositions.at(-1)).toEqual({ disposition: 'handled', detail: 'already_settled' });
    expect(await balance(id)).toBe(1000n);
    const ledger = await ledgerOf(order.orderId);
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({
      kind: 'purchase',
      segment: 'direct',
      rail: 'yookassa',
      provider: 'yookassa',
      chips_delta: 1000n,
      money_minor: 29_900n,
      currency: 'RUB',
    });
    await clean();
  });

  it('builds an itemised receipt only when a VAT code is configured', async () => {
    const id = await newAccount(db(), confirmed('vat'));
    const withVat: PaymentDeps = { ...deps, card: deps.card ? { ...deps.card, vatCode: 4 } : null };
    const order = await createOrderDirect(withVat, { accountId: id, platform: { kind: 'direct', subtype: 'web' } }, pack, 'card');
    if (order.provider_payment_id === null) throw new Error('no payment');
    expect(emulator.control.payment(order.provider_payment_id).receipt).toMatchObject({
      customer: { email: 'vat@example.org' },
      items: [{ vat_code: 4, amount: { value: '299.00', currency: 'RUB' } }],
    });
  });

  it('answers provider_unavailable and keeps the order pending without a payment id when the provider fails', async () => {
    const id = await newAccount(db(), confirmed('down'));
    emulator.control.addFault({ method: 'POST', pathPrefix: '/v3/payments', status: 500, times: 1 });
    expect(await failure(createOrder(payments, id, 'direct;web', pack, 'card'))).toEqual({ code: 14, errorCode: 'provider_unavailable' });
    const [order] = await listOrders(payments, id, 'direct;web');
    expect(order).toMatchObject({ state: 'pending', confirmationUrl: '' });
    expect((await orderRow(order?.orderId ?? '')).provider_payment_id).toBeNull();
  });

  describe('forged notifications credit nothing', () => {
    it('an unknown order makes no provider call at all', async () => {
      emulator.control.clearRequests();
      const forged = {
        type: 'notification',
        event: 'payment.succeeded',
        object: { id: 'forged-payment-1', status: 'succeeded', metadata: { order_id: randomUUID() } },
      };
      await emulator.control.notify({ rawBody: forged });
      await intakeBody(notifications, JSON.stringify({ ...forged, event: 'refund.succeeded', object: { id: 'r1', payment_id: 'nope' } }));
      expect(webhook.dispositions).toEqual([{ disposition: 'ignored', detail: 'unknown_order' }]);
      expect(await intakeBody(notifications, 'not json at all')).toEqual({ disposition: 'ignored', detail: 'malformed' });
      // A NUL in an id (found by the 10x REST fuzz: it made PostgreSQL fail and the intake answer 503 forever).
      const nul = { ...forged, object: { id: '\u0000', status: '', metadata: { order_id: randomUUID() } } };
      expect(await intakeBody(notifications, JSON.stringify(nul))).toEqual({ disposition: 'ignored', detail: 'malformed' });
      expect(emulator.control.requests()).toEqual([]);
    });

    it('a payment whose metadata names another order', async () => {
      const id = await newAccount(db(), confirmed('meta'));
      emulator.control.addFault({ method: 'POST', pathPrefix: '/v3/payments', status: 500, times: 1 });
      await failure(createOrder(payments, id, 'direct;web', pack, 'card'));
      const [victim] = await listOrders(payments, id, 'direct;web');
      const foreign = await adapter.createPayment(
        { id: SHOPS.direct.shopId, secretKey: SHOPS.direct.secretKey, test: true },
        { amountMinor: 29_900n, currency: 'RUB', description: 'x', returnUrl: 'https://x.example', metadata: { order_id: 'someone-else' } },
        'foreign-key',
      );
      emulator.control.setAutoNotify(false);
      await emulator.control.succeedPayment(foreign.id);
      const d = await intakeBody(
        notifications,
        JSON.stringify({
          type: 'notification',
          event: 'payment.succeeded',
          object: { id: foreign.id, metadata: { order_id: victim?.orderId } },
        }),
      );
      expect(d).toEqual({ disposition: 'ignored', detail: 'metadata_mismatch' });
      expect(await balance(id)).toBe(0n);
      expect((await orderRow(victim?.orderId ?? '')).state).toBe('pending');
    });

    it('a test-shop payment never credits a live shop order', async () => {
      const id = await newAccount(db(), confirmed('vkuser'));
      const order = await createOrder(payments, id, 'vk;android', pack, 'card');
      await emulator.control.succeedPayment(await paymentIdOf(order.orderId));
      expect(webhook.dispositions).toEqual([{ disposition: 'ignored', detail: 'test_flag_mismatch' }]);
      expect(await balance(id, 'vk')).toBe(0n);
      expect((await reaper.tick(new Date(Date.now() + 120_000))).credited).toBe(0);
      expect((await orderRow(order.orderId)).state).not.toBe('paid');
    });
  });

  it('a canceled payment fails the order, records a failed event, notifies the customer and shows in ListOrders', async () => {
    const id = await telegramAccount(db(), '90001', confirmed('cancel'));
    const order = await createOrder(payments, id, 'direct;web', pack, 'card');
    await emulator.control.cancelPayment(await paymentIdOf(order.orderId), { party: 'yoo_money', reason: 'expired_on_confirmation' });
    expect(webhook.dispositions).toEqual([{ disposition: 'handled', detail: 'failed' }]);
    const [listed] = await listOrders(payments, id, 'direct;web');
    expect(listed).toMatchObject({ state: 'failed', failureReason: 'expired_on_confirmation' });
    const events = await db().selectFrom('payment_events').select('kind').where('order_id', '=', order.orderId).orderBy('id').execute();
    expect(events.map((e) => e.kind)).toEqual(['created', 'failed']);
    await eventually(() => bot.commands.some((c) => c.payload.case === 'notify'));
    const notice = bot.commands.find((c) => c.payload.case === 'notify');
    if (notice?.payload.case !== 'notify') throw new Error('no notify');
    expect(notice.payload.value).toMatchObject({
      kind: connector.NotificationKind.PAYMENT_FAILED,
      recipient: { externalId: '90001' },
      params: { order_id: order.orderId },
    });
    expect(await balance(id)).toBe(0n);
  });

  it('the reaper covers a lost notification, only once the order is a minute old, and expires old pending orders', async () => {
    const id = await newAccount(db(), confirmed('lost'));
    const order = await createOrder(payments, id, 'direct;web', pack, 'card');
    emulator.control.setAutoNotify(false);
    await emulator.control.succeedPayment(await paymentIdOf(order.orderId));
    expect(webhook.dispositions).toEqual([]);
    expect((await reaper.tick(new Date(Date.now() + 10_000))).rechecked).toBe(0);
    expect(await balance(id)).toBe(0n);
    const report = await reaper.tick(new Date(Date.now() + 61_000));
    expect(report.credited).toBeGreaterThanOrEqual(1);
    expect(await balance(id)).toBe(1000n);
    expect((await reaper.tick(new Date(Date.now() + 200_000))).credited).toBe(0);
    expect(await balance(id)).toBe(1000n);

    const stale = await createOrder(payments, id, 'direct;web', pack, 'card');
    await reaper.tick(new Date(Date.now() + 31 * 60_000));
    expect((await orderRow(stale.orderId)).state).toBe('expired');
    await emulator.control.succeedPayment(await paymentIdOf(stale.orderId));
    await reaper.tick(new Date(Date.now() + 32 * 60_000));
    expect((await orderRow(stale.orderId)).state).toBe('paid');
    expect(await balance(id)).toBe(2000n);
    await clean();
  });

  describe('refunds', () => {
    const directShop = { id: SHOPS.direct.shopId, secretKey: SHOPS.direct.secretKey, test: true };

    it('a full refund from the provider side reverses exactly what the pack funded, once', async () => {
      const id = await newAccount(db(), confirmed('full'));
      const order = await paidOrder(id, bundle);
      const before = await db().selectFrom('benefits').selectAll().where('account_id', '=', id).executeTakeFirstOrThrow();
      expect(before).toMatchObject({ hints: 5n, no_ads_forever: true });
      const r = await adapter.createRefund(
        directShop,
        { paymentId: await paymentIdOf(order.orderId), amountMinor: 49_900n, currency: 'RUB' },
        'outside-1',
      );
      await emulator.control.flushNotifications();
      expect(webhook.dispositions.at(-1)).toEqual({ disposition: 'handled', detail: 'refund_recorded' });
      await emulator.control.notify({ event: 'refund.succeeded', objectId: r.id });
      expect(webhook.dispositions.at(-1)).toEqual({ disposition: 'handled', detail: 'already_refunded' });
      expect(await balance(id)).toBe(0n);
      const after = await db().selectFrom('benefits').selectAll().where('account_id', '=', id).executeTakeFirstOrThrow();
      expect(after.hints).toBe(0n);
      expect(after.no_ads_forever).toBe(false);
      expect(after.no_ads_until?.getTime()).toBe((before.no_ads_until?.getTime() ?? 0) - 7 * 86_400_000);
      const ledger = await ledgerOf(order.orderId);
      expect(ledger.map((l) => [l.kind, l.chips_delta, l.money_minor, l.refund_id])).toEqual([
        ['purchase', 200n, 49_900n, null],
        ['refund', -200n, -49_900n, r.id],
      ]);
      expect((await listOrders(payments, id, 'direct;web'))[0]).toMatchObject({ refunded: true });
      await clean();
    });

    it('a partial refund records nothing', async () => {
      const id = await newAccount(db(), confirmed('partial'));
      const order = await paidOrder(id);
      await adapter.createRefund(
        directShop,
        { paymentId: await paymentIdOf(order.orderId), amountMinor: 10_000n, currency: 'RUB' },
        'outside-2',
      );
      await emulator.control.flushNotifications();
      expect(webhook.dispositions.at(-1)).toEqual({ disposition: 'handled', detail: 'partial_refund' });
      expect(await balance(id)).toBe(1000n);
      expect(await ledgerOf(order.orderId)).toHaveLength(1);
    });

    it('a refund after the chips were spent reverses the pack in full and leaves the spent part as a debt', async () => {
      const id = await newAccount(db(), confirmed('spent'));
      const order = await paidOrder(id);
      const spend = await createProduct(h.client(backendApi.CatalogAdminService), {
        title: 'Spend 700',
        atoms: [['hints', 1n]],
        prices: [['chips', 700n]],
      });
      const wallet = h.client(backendApi.WalletService);
      await wallet.buy({ body: encodeTable((b) => fb.WalletBuy.createWalletBuy(b, spend, b.createString(''))) }, as(id, 'direct;web'));
      expect(await balance(id)).toBe(300n);
      expect(await refund(refunds, order.orderId)).toMatchObject({ status: 'succeeded' });
      expect(await balance(id)).toBe(-700n);
      const [, reversal] = await ledgerOf(order.orderId);
      expect(reversal).toMatchObject({ kind: 'refund', chips_delta: -1000n });
      expect(reversal?.note).toBe('refund left a debt: direct chips -700');
      await clean();
    });

    it('console: succeeded records once, and the late notification finds it recorded', async () => {
      const id = await newAccount(db(), confirmed('console1'));
      const order = await paidOrder(id);
      const r = await refund(refunds, order.orderId);
      expect(r).toMatchObject({ status: 'succeeded', amount: 29_900n });
      await emulator.control.flushNotifications();
      expect(
        emulator.control
          .requests()
          .filter((q) => q.method === 'POST' && q.path === '/v3/refunds')
          .map((q) => q.idempotenceKey),
      ).toEqual([`refund-${order.orderId}`]);
      expect(webhook.dispositions.at(-1)).toEqual({ disposition: 'handled', detail: 'already_refunded' });
      expect(await refund(refunds, order.orderId)).toEqual(r);
      expect((await ledgerOf(order.orderId)).filter((l) => l.kind === 'refund')).toHaveLength(1);
      expect(await balance(id)).toBe(0n);
    });

    it('console: pending records nothing; pressing again reuses the key and records the same refund once it succeeded', async () => {
      const id = await newAccount(db(), confirmed('console2'));
      const order = await paidOrder(id);
      emulator.control.setRefundOutcome('pending', { times: 1 });
      const first = await refund(refunds, order.orderId);
      expect(first.status).toBe('pending');
      expect(await ledgerOf(order.orderId)).toHaveLength(1);
      expect(await refund(refunds, order.orderId)).toEqual(first);
      emulator.control.setAutoNotify(false);
      await emulator.control.settleRefund(first.refundId ?? '', 'succeeded');
      expect(await refund(refunds, order.orderId)).toMatchObject({ status: 'succeeded', refundId: first.refundId });
      const posts = emulator.control.requests().filter((q) => q.method === 'POST' && q.path === '/v3/refunds');
      expect(new Set(posts.map((q) => q.idempotenceKey))).toEqual(new Set([`refund-${order.orderId}`]));
      expect(emulator.control.payment(await paymentIdOf(order.orderId)).refunds).toHaveLength(1);
      expect((await ledgerOf(order.orderId)).filter((l) => l.kind === 'refund')).toHaveLength(1);
      await clean();
    });

    const refundPosts = () => emulator.control.requests().filter((q) => q.method === 'POST' && q.path === '/v3/refunds' && !q.replayed);
    const refundKeys = () =>
      emulator.control
        .requests()
        .filter((q) => q.method === 'POST' && q.path === '/v3/refunds')
        .map((q) => q.idempotenceKey);

    it('console: after the provider cancels a refund, pressing again starts a new refund under a new key; one refund row', async () => {
      const id = await newAccount(db(), confirmed('console5'));
      const order = await paidOrder(id);
      emulator.control.setRefundOutcome('canceled', { times: 1 });
      const canceled = await refund(refunds, order.orderId);
      expect(canceled.status).toBe('canceled');
      expect(await ledgerOf(order.orderId)).toHaveLength(1);
      const again = await refund(refunds, order.orderId);
      expect(again).toMatchObject({ status: 'succeeded', amount: 29_900n });
      expect(again.refundId).not.toBe(canceled.refundId);
      expect(refundKeys()).toEqual([`refund-${order.orderId}`, `refund-${order.orderId}-1`]);
      expect(await refund(refunds, order.orderId)).toEqual(again);
      expect(refundKeys()).toHaveLength(2);
      expect(emulator.control.payment(await paymentIdOf(order.orderId)).refunds.map((r) => r.status)).toEqual(['canceled', 'succeeded']);
      expect((await ledgerOf(order.orderId)).filter((l) => l.kind === 'refund').map((l) => l.refund_id)).toEqual([again.refundId]);
      expect(await balance(id)).toBe(0n);
      await clean();
    });

    it('console: a pending refund keeps its key; once the provider cancels it, two presses at once start one new attempt', async () => {
      const id = await newAccount(db(), confirmed('console6'));
      const order = await paidOrder(id);
      emulator.control.setRefundOutcome('pending', { times: 1 });
      const pending = await refund(refunds, order.orderId);
      expect(pending.status).toBe('pending');
      expect(await refund(refunds, order.orderId)).toEqual(pending);
      expect(new Set(refundKeys())).toEqual(new Set([`refund-${order.orderId}`]));

      await emulator.control.settleRefund(pending.refundId ?? '', 'canceled');
      // Slow re-reads, so both presses have read the order before either sees the cancellation:
      // one press holds the order's refund claim and sees it canceled, the other makes no call.
      emulator.control.addFault({ method: 'GET', pathPrefix: '/v3/refunds', status: 'timeout', delayMs: 150 });
      const both = await Promise.all(
        [refund(refunds, order.orderId), refund(refunds, order.orderId)].map((press) =>
          press.then(
            (r) => r.status,
            (err: unknown) => errorOf(err).errorCode,
          ),
        ),
      );
      expect(both.sort()).toEqual(['canceled', 'refund_in_progress']);
      expect((await orderRow(order.orderId)).refund_attempt).toBe(1);
      emulator.control.clearFaults();

      const fresh = await refund(refunds, order.orderId);
      expect(fresh.status).toBe('succeeded');
      expect(refundPosts().map((q) => q.idempotenceKey)).toEqual([`refund-${order.orderId}`, `refund-${order.orderId}-1`]);
      expect((await ledgerOf(order.orderId)).filter((l) => l.kind === 'refund')).toHaveLength(1);
      await clean();
    });

    it('console: the notification arrives first, the console still reports success and one refund row exists', async () => {
      const id = await newAccount(db(), confirmed('console3'));
      const order = await paidOrder(id);
      emulator.control.setRefundOutcome('pending', { times: 1 });
      const first = await refund(refunds, order.orderId);
      await emulator.control.settleRefund(first.refundId ?? '', 'succeeded');
      expect(webhook.dispositions.at(-1)).toEqual({ disposition: 'handled', detail: 'refund_recorded' });
      expect(await refund(refunds, order.orderId)).toMatchObject({ status: 'succeeded', refundId: first.refundId });
      expect((await ledgerOf(order.orderId)).filter((l) => l.kind === 'refund')).toHaveLength(1);
    });

    it('console: a failed provider call records nothing', async () => {
      const id = await newAccount(db(), confirmed('console4'));
      const order = await paidOrder(id);
      emulator.control.setRefundOutcome('error500', { times: 1 });
      expect(await failure(refund(refunds, order.orderId))).toEqual({ code: 14, errorCode: 'provider_unavailable' });
      expect(await ledgerOf(order.orderId)).toHaveLength(1);
      expect(await balance(id)).toBe(1000n);
      expect(await failure(refund(refunds, randomUUID()))).toEqual({ code: 5, errorCode: 'unknown_order' });
      const unpaid = await createOrder(payments, id, 'direct;web', pack, 'card');
      expect(await failure(refund(refunds, unpaid.orderId))).toEqual({ code: 9, errorCode: 'order_not_paid' });
    });
  });

  it('answers Unavailable when the provider cannot be reached to re-read, so the provider redelivers', async () => {
    const id = await newAccount(db(), confirmed('redeliver'));
    const order = await createOrder(payments, id, 'direct;web', pack, 'card');
    emulator.control.addFault({ method: 'GET', pathPrefix: '/v3/payments', status: 500, times: 1 });
    await emulator.control.succeedPayment(await paymentIdOf(order.orderId));
    const [n] = emulator.control.notifications();
    expect(n?.attempts.at(-1)?.status).toBe(503);
    expect(await balance(id)).toBe(0n);
    // Within the window of the failed re-read a redelivery is refused too, without a provider call.
    const reads = () => emulator.control.requests().filter((r) => r.method === 'GET').length;
    const before = reads();
    await emulator.control.redeliver(n?.id ?? '');
    expect(n && emulator.control.notifications()[0]?.attempts.at(-1)?.status).toBe(503);
    expect(reads()).toBe(before);
    await new Promise((resolve) => setTimeout(resolve, REREAD_WINDOW_MS));
    await emulator.control.redeliver(n?.id ?? '');
    expect(await balance(id)).toBe(1000n);
    expect(await failure(intakeBody(notifications, '{}', 'paypal'))).toEqual({ code: 3, errorCode: 'unknown_provider' });
  });
});
