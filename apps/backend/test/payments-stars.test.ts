import type { Client } from '@connectrpc/connect';
import { backendApi, encodeTable, fb, gatewayApi } from '@wordgame/contracts';
import { auditLedger } from '../src/ledger/audit.js';
import { DECLINE } from '../src/payments/stars/intake.js';
import { as, failure, startHarness, type Harness } from './support/harness.js';
import { createProduct, newAccount } from './support/wallet.js';
import {
  createOrder,
  deliverInvoices,
  forward,
  listOrders,
  preCheckout,
  startBotCommandServer,
  telegramAccount,
  type BotCommandServer,
} from './payments-support.js';

describe('stars rail over Connect on PostgreSQL', () => {
  let bot: BotCommandServer;
  let h: Harness;
  let payments: Client<typeof backendApi.PaymentsService>;
  let intake: Client<typeof backendApi.BotIntakeService>;
  let pack: bigint;
  let cardOnly: bigint;

  beforeAll(async () => {
    bot = await startBotCommandServer();
    h = await startHarness({ GATEWAY_INTERNAL_URL: bot.url, REAPER_INTERVAL_MS: '0' });
    payments = h.client(backendApi.PaymentsService);
    intake = h.client(backendApi.BotIntakeService);
    const admin = h.client(backendApi.CatalogAdminService);
    pack = await createProduct(admin, {
      title: '500 chips',
      atoms: [
        ['chips', 500n],
        ['hints', 2n],
      ],
      prices: [
        ['xtr', 250n],
        ['provider', 19_900n, 'RUB'],
      ],
    });
    cardOnly = await createProduct(admin, { title: 'Card pack', atoms: [['chips', 10n]], prices: [['provider', 990n, 'RUB']] });
  });
  afterAll(async () => {
    await h.stop();
    await bot.stop();
  });
  beforeEach(() => {
    bot.respond = deliverInvoices;
  });

  const ordersOf = async (accountId: bigint) =>
    (
      await h.database.db
        .selectFrom('orders')
        .select((eb) => [
          'orders.id',
          'orders.invoice_link',
          eb
            .selectFrom('payment_events')
            .select(eb.fn.countAll<string>().as('n'))
            .whereRef('payment_events.order_id', '=', 'orders.id')
            .as('n'),
        ])
        .where('account_id', '=', accountId)
        .execute()
    ).map((o) => ({ id: o.id, invoice_link: o.invoice_link, events: Number(o.n) }));
  const balance = async (accountId: bigint) =>
    (
      await h.database.db
        .selectFrom('wallet_segments')
        .select('balance')
        .where('account_id', '=', accountId)
        .where('segment', '=', 'telegram')
        .executeTakeFirstOrThrow()
    ).balance;

  it('creates a stars order through create_invoice and returns the link the bot minted', async () => {
    const id = await telegramAccount(h.database.db, '1001');
    const order = await createOrder(payments, id, 'telegram', pack, 'stars');
    expect(order).toMatchObject({
      state: 'pending',
      rail: 'stars',
      provider: 'telegram_stars',
      amount: 250n,
      currency: 'XTR',
      chips: 500n,
    });
    expect(order.invoiceLink).toBe(`https://t.me/$invoice-${order.orderId}`);
    const sent = bot.commands.at(-1);
    expect(sent?.payload.case).toBe('createInvoice');
    if (sent?.payload.case !== 'createInvoice') throw new Error('unreachable');
    expect(sent.payload.value).toMatchObject({ title: '500 chips', payload: order.orderId, amount: 250n });
    expect(sent.payload.value.description).toContain('500 chips');
  });

  it.each([
    ['no bot connected', gatewayApi.Outcome.NO_BOT],
    ['a timeout', gatewayApi.Outcome.TIMEOUT],
    ['an error outcome (link lost, queue full, or an older gateway sending an Ack error)', gatewayApi.Outcome.ERROR],
    ['a clean not-delivered', gatewayApi.Outcome.NOT_DELIVERED],
  ])('answers bot_unavailable on %s and opens no order (the link comes first, the order with it)', async (_name, outcome) => {
    const id = await telegramAccount(h.database.db, `20${outcome}`);
    bot.respond = () => ({ outcome, error: outcome === gatewayApi.Outcome.ERROR ? 'render failed' : '' });
    expect(await failure(createOrder(payments, id, 'telegram', pack, 'stars'))).toEqual({ code: 14, errorCode: 'bot_unavailable' });
    expect(await listOrders(payments, id, 'telegram')).toEqual([]);
    expect(await ordersOf(id)).toEqual([]);
  });

  it('answers bot_delivery_failed (502) when the bot was reached and its Ack carried an error; no order is opened', async () => {
    const id = await telegramAccount(h.database.db, '2099');
    bot.respond = () => ({ outcome: gatewayApi.Outcome.FAILED, error: 'platform 400: Bad Request: PAYLOAD_INVALID' });
    expect(await failure(createOrder(payments, id, 'telegram', pack, 'stars'))).toEqual({ code: 14, errorCode: 'bot_delivery_failed' });
    expect(await ordersOf(id)).toEqual([]);
  });

  it.each([
    ['a script URL', 'javascript:alert(1)'],
    ['another host', 'https://t.me.evil.example/$abc'],
    ['plain http', 'http://t.me/$abc'],
    ['credentials in the URL', 'https://user@t.me/$abc'],
    ['not a URL', 'not a link'],
    ['an oversized link', `https://t.me/$${'a'.repeat(3000)}`],
  ])('refuses %s as a minted link (502 bot_delivery_failed) and opens no order', async (_name, link) => {
    const id = await telegramAccount(h.database.db, `2096${link.length}`);
    bot.respond = (c) =>
      c.payload.case === 'createInvoice' ? { outcome: gatewayApi.Outcome.DELIVERED, result: link } : { outcome: gatewayApi.Outcome.NO_BOT };
    expect(await failure(createOrder(payments, id, 'telegram', pack, 'stars'))).toEqual({ code: 14, errorCode: 'bot_delivery_failed' });
    expect(await ordersOf(id)).toEqual([]);
  });

  it('inserts the order with the link minted for its id, and refuses a blocked account after minting: its link has no order, no event', async () => {
    const id = await telegramAccount(h.database.db, '2098');
    const minted: string[] = [];
    bot.respond = (c) => {
      if (c.payload.case !== 'createInvoice') return { outcome: gatewayApi.Outcome.NO_BOT };
      minted.push(c.payload.value.payload);
      return { outcome: gatewayApi.Outcome.DELIVERED, result: `https://t.me/$inv-${minted.length}` };
    };
    const order = await createOrder(payments, id, 'telegram', pack, 'stars');
    expect(order).toMatchObject({ orderId: minted[0], state: 'pending', invoiceLink: 'https://t.me/$inv-1' });
    expect(await ordersOf(id)).toEqual([{ id: minted[0], invoice_link: 'https://t.me/$inv-1', events: 1 }]);

    const blocked = await telegramAccount(h.database.db, '2097');
    bot.respond = (c) => {
      if (c.payload.case !== 'createInvoice') return { outcome: gatewayApi.Outcome.NO_BOT };
      minted.push(c.payload.value.payload);
      return { outcome: gatewayApi.Outcome.DELIVERED, result: 'https://t.me/$inv-late' };
    };
    await h.database.db.updateTable('accounts').set({ status: 'suspended', suspended_until: null }).where('id', '=', blocked).execute();
    expect(await failure(createOrder(payments, blocked, 'telegram', pack, 'stars'))).toEqual({ code: 7, errorCode: 'account_suspended' });
    expect(minted).toHaveLength(2);
    expect(await ordersOf(blocked)).toEqual([]);
    expect(
      await h.database.db
        .selectFrom('payment_events')
        .select('id')
        .where('order_id', '=', minted[1] ?? '')
        .execute(),
    ).toEqual([]);
  });

  it('answers bot_unavailable when the gateway is not reachable at all', async () => {
    const down = await startHarness({ GATEWAY_INTERNAL_URL: 'http://127.0.0.1:9', REAPER_INTERVAL_MS: '0' });
    try {
      const admin = down.client(backendApi.CatalogAdminService);
      const p = await createProduct(admin, { title: 'Pack', atoms: [['chips', 5n]], prices: [['xtr', 5n]] });
      const id = await telegramAccount(down.database.db, '3001');
      expect(await failure(createOrder(down.client(backendApi.PaymentsService), id, 'telegram', p, 'stars'))).toEqual({
        code: 14,
        errorCode: 'bot_unavailable',
      });
    } finally {
      await down.stop();
    }
  });

  it('offers stars only in a telegram context with an xtr price', async () => {
    const id = await telegramAccount(h.database.db, '4001', { address: 'd4001@example.org', confirmed: true });
    expect(await failure(createOrder(payments, id, 'direct;web', pack, 'stars'))).toEqual({ code: 9, errorCode: 'rail_not_offered' });
    expect(await failure(createOrder(payments, id, 'telegram', pack, 'card'))).toEqual({ code: 9, errorCode: 'rail_not_offered' });
    expect(await failure(createOrder(payments, id, 'telegram', cardOnly, 'stars'))).toEqual({ code: 9, errorCode: 'not_sold_on_rail' });
    expect(await failure(createOrder(payments, id, 'none', pack, 'stars'))).toEqual({ code: 7, errorCode: 'purchase_forbidden' });
    expect(await failure(createOrder(payments, id, 'vk;ios', pack, 'card'))).toEqual({ code: 7, errorCode: 'purchase_forbidden' });
    expect(await failure(createOrder(payments, id, 'telegram', pack, 'cash'))).toEqual({ code: 3, errorCode: 'invalid_rail' });
    expect(await failure(createOrder(payments, id, 'telegram', 999_999n, 'stars'))).toEqual({ code: 5, errorCode: 'unknown_product' });
    expect(await failure(createOrder(payments, id, 'telegram', 0n, 'stars'))).toEqual({ code: 3, errorCode: 'invalid_product_id' });
  });

  describe('ValidatePreCheckout', () => {
    let id: bigint;
    let orderId: string;
    beforeAll(async () => {
      id = await telegramAccount(h.database.db, '5001');
      orderId = (await createOrder(payments, id, 'telegram', pack, 'stars')).orderId;
    });

    it('approves a pending order with equal amount and currency', async () => {
      expect(await preCheckout(intake, orderId, 250n, 'XTR')).toEqual({ ok: true, reason: '' });
    });

    it('declines a missing order, an amount mismatch and a currency mismatch, each with a reason', async () => {
      expect(await preCheckout(intake, '00000000-0000-4000-8000-000000000000', 250n, 'XTR')).toEqual({
        ok: false,
        reason: DECLINE.missing,
      });
      expect(await preCheckout(intake, 'not-a-uuid', 250n, 'XTR')).toEqual({ ok: false, reason: DECLINE.missing });
      expect(await preCheckout(intake, orderId, 249n, 'XTR')).toEqual({ ok: false, reason: DECLINE.mismatch });
      expect(await preCheckout(intake, orderId, 250n, 'USD')).toEqual({ ok: false, reason: DECLINE.mismatch });
    });

    it('approves an honoured-expired order and declines a failed one', async () => {
      // The approval above holds the order; let that hold lapse.
      await h.database.db.updateTable('orders').set({ state: 'expired', checkout_hold_until: null }).where('id', '=', orderId).execute();
      expect(await preCheckout(intake, orderId, 250n, 'XTR')).toEqual({ ok: true, reason: '' });
      const other = (await createOrder(payments, id, 'telegram', pack, 'stars')).orderId;
      await h.database.db.updateTable('orders').set({ state: 'failed' }).where('id', '=', other).execute();
      expect(await preCheckout(intake, other, 250n, 'XTR')).toEqual({ ok: false, reason: DECLINE.failed });
    });

    it('declines an already paid order', async () => {
      expect(await forward(intake, orderId, 'charge-5001', 250n)).toBe(true);
      expect(await preCheckout(intake, orderId, 250n, 'XTR')).toEqual({ ok: false, reason: DECLINE.paid });
    });
  });

  describe('ForwardPayment', () => {
    it('credits once, idempotent on the charge id, also when the same charge races itself', async () => {
      const id = await telegramAccount(h.database.db, '6001');
      const order = await createOrder(payments, id, 'telegram', pack, 'stars');
      const answers = await Promise.all(Array.from({ length: 12 }, () => forward(intake, order.orderId, 'charge-6001', 250n)));
      expect(answers.every(Boolean)).toBe(true);
      expect(await forward(intake, order.orderId, 'charge-6001', 250n)).toBe(true);
      expect(await balance(id)).toBe(500n);
      const [listed] = await listOrders(payments, id, 'telegram');
      expect(listed).toMatchObject({ state: 'paid' });
      const ledger = await h.database.db.selectFrom('ledger_operations').selectAll().where('order_id', '=', order.orderId).execute();
      expect(ledger).toHaveLength(1);
      expect(ledger[0]).toMatchObject({
        kind: 'purchase',
        segment: 'telegram',
        rail: 'telegram_stars',
        provider: 'telegram_stars',
        chips_delta: 500n,
        money_minor: 250n,
        currency: 'XTR',
        hints_delta: 2n,
        benefit_origin: 'telegram',
      });
      expect((await auditLedger(h.database.db)).problems).toEqual([]);
    });

    it('credits an honoured-expired order', async () => {
      const id = await telegramAccount(h.database.db, '6101');
      const order = await createOrder(payments, id, 'telegram', pack, 'stars');
      await h.database.db.updateTable('orders').set({ state: 'expired' }).where('id', '=', order.orderId).execute();
      expect(await forward(intake, order.orderId, 'charge-6101', 250n)).toBe(true);
      expect(await balance(id)).toBe(500n);
    });

    it('records unmatched payments (unknown order, amount mismatch, second charge of a paid order) once and answers false', async () => {
      const id = await telegramAccount(h.database.db, '6201');
      const order = await createOrder(payments, id, 'telegram', pack, 'stars');
      expect(await forward(intake, '00000000-0000-4000-8000-000000000001', 'charge-u1', 250n)).toBe(false);
      expect(await forward(intake, 'garbage', 'charge-u2', 250n)).toBe(false);
      expect(await forward(intake, order.orderId, 'charge-u3', 1n)).toBe(false);
      expect(await forward(intake, order.orderId, 'charge-6201', 250n)).toBe(true);
      expect(await forward(intake, order.orderId, 'charge-u4', 250n)).toBe(false);
      expect(await forward(intake, order.orderId, 'charge-u4', 250n)).toBe(false);
      const rows = await h.database.db
        .selectFrom('unmatched_payments')
        .select(['platform_charge_id', 'reason'])
        .where('platform_charge_id', 'like', 'charge-u%')
        .orderBy('platform_charge_id')
        .execute();
      expect(rows).toEqual([
        { platform_charge_id: 'charge-u1', reason: 'unknown_order' },
        { platform_charge_id: 'charge-u2', reason: 'unknown_order' },
        { platform_charge_id: 'charge-u3', reason: 'amount_mismatch' },
        { platform_charge_id: 'charge-u4', reason: 'order_paid' },
      ]);
      expect(await balance(id)).toBe(500n);
    });

    it('never credits a card order through the stars intake', async () => {
      const id = await newAccount(h.database.db);
      const row = await h.database.db
        .insertInto('orders')
        .values({
          id: '11111111-1111-4111-8111-111111111111',
          account_id: id,
          product_id: cardOnly,
          title: 'Card pack',
          rail: 'card',
          provider: 'yookassa',
          shop: 's',
          segment: 'direct',
          amount: 990n,
          currency: 'RUB',
          chips: 10n,
          created_at: new Date(),
          expires_at: new Date(Date.now() + 60_000),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      expect(await forward(intake, row.id, 'charge-card', 990n)).toBe(false);
      expect(await preCheckout(intake, row.id, 990n, 'RUB')).toEqual({ ok: false, reason: DECLINE.missing });
    });
  });

  it("GetOrder shows only the caller's own orders", async () => {
    const id = await telegramAccount(h.database.db, '7001');
    const other = await telegramAccount(h.database.db, '7002');
    const order = await createOrder(payments, id, 'telegram', pack, 'stars');
    const body = encodeTable((b) => fb.OrderQuery.createOrderQuery(b, b.createString(order.orderId)));
    await expect(payments.getOrder({ body }, as(id, 'telegram'))).resolves.toBeDefined();
    expect(await failure(payments.getOrder({ body }, as(other, 'telegram')))).toEqual({ code: 5, errorCode: 'unknown_order' });
    expect(await failure(payments.getOrder({ body }, { headers: {} }))).toEqual({ code: 16, errorCode: 'caller_required' });
  });
});
