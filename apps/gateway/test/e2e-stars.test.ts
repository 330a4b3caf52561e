import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { PlatformEmulator, PreCheckoutView } from '@wordgame/platform-emulator';
import { eventually } from './support/botlink-gateway.js';
import { TELEGRAM_BOT_TOKEN } from './support/chain.js';
import { call } from './support/edge.js';
import {
  balance,
  bearer,
  createProduct,
  ledgerRows,
  startPaymentsStack,
  telegramCustomer,
  waitForBot,
  type Customer,
  type OrderBody,
  type PaymentsStack,
} from './support/payments-stack.js';

/** The bot's decline when the bot-link or the backend cannot answer (apps/bot payments/pre-checkout.ts). */
const UNAVAILABLE_REASON = 'Payments are temporarily unavailable. Please try again in a few minutes.';
const PAYER = 8001;

/**
 * Stars purchases across real processes: client -> gateway (buildGateway) -> backend process ->
 * create_invoice over the real bot-link (mutual TLS) -> the real bot process -> the platform
 * emulator mints the link; the test plays the payer through the emulator's control API.
 */
describe('e2e: stars purchase through gateway, backend, bot and the platform emulator', () => {
  let stack: PaymentsStack;
  let platform: PlatformEmulator;
  let payer: Customer;
  let pack: string;

  const orderUrl = (id: string) => `${stack.api}/user/wallet/orders/${id}`;
  const newOrder = async () => {
    const res = await call(`${stack.api}/user/wallet/orders`, {
      method: 'POST',
      headers: bearer(payer),
      json: { product_id: pack, rail: 'stars' },
    });
    expect(res.status).toBe(201);
    return res.body as OrderBody;
  };
  const order = async (id: string) => (await call(orderUrl(id), { headers: bearer(payer) })).body as OrderBody;
  /** The payer pays `link`; resolves with the pre-checkout once the bot answered it. */
  const pay = async (link: string, userId = PAYER): Promise<PreCheckoutView> => {
    const { preCheckoutQueryId } = platform.control.pay({ link, userId });
    let view: PreCheckoutView | undefined;
    await eventually(() => {
      view = platform.control.preCheckout(preCheckoutQueryId);
      return view !== undefined && view.status !== 'pending';
    }, 20_000);
    if (!view) throw new Error('no pre-checkout');
    return view;
  };
  /** An invoice link the bot never minted for an order: what a forger (or a stale client) could present. */
  const foreignInvoice = async (payload: string, amount: number): Promise<string> => {
    const res = await fetch(`${platform.apiRoot}/bot${TELEGRAM_BOT_TOKEN}/createInvoiceLink`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        title: 'Chips 100',
        description: '100 chips',
        payload,
        currency: 'XTR',
        prices: [{ label: 'Chips 100', amount }],
      }),
    });
    const body = (await res.json()) as { ok: boolean; result: string };
    if (!body.ok) throw new Error('createInvoiceLink failed');
    return body.result;
  };
  const forwarded = (platformChargeId: string) =>
    (stack.bot?.logs ?? []).filter((l) => l['msg'] === 'payment forwarded and credited' && l['platformChargeId'] === platformChargeId);
  const chargeOf = async (orderId: string) =>
    (await stack.db.query<{ platform_charge_id: string | null }>('select platform_charge_id from orders where id = $1', [orderId])).rows[0]
      ?.platform_charge_id;

  beforeAll(async () => {
    stack = await startPaymentsStack({ bot: true });
    if (!stack.platform) throw new Error('no platform emulator');
    platform = stack.platform;
    platform.control.createUser({ id: PAYER, firstName: 'Payer', started: true });
    pack = await createProduct(stack, 'Chips 100', 100n, { xtr: 50n });
    payer = await telegramCustomer(stack.api, PAYER);
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('a) the bot mints the link, the payer pays, the outbox forwards, the wallet shows the chips exactly once', async () => {
    const created = await newOrder();
    expect(created).toMatchObject({
      rail: 'stars',
      provider: 'telegram_stars',
      state: 'pending',
      amount: '50',
      currency: 'XTR',
      chips: '100',
    });
    expect(created.invoice_link).toMatch(/^https:\/\/t\.me\/\$[A-Za-z0-9_-]+$/);
    const invoice = platform.control.state().invoices.find((i) => i.link === created.invoice_link);
    expect(invoice).toMatchObject({ payload: created.order_id, currency: 'XTR', amount: 50 });

    const checkout = await pay(created.invoice_link ?? '');
    expect(checkout.status).toBe('approved');
    const platformChargeId = checkout.telegramPaymentChargeId ?? '';
    expect(platformChargeId).not.toBe('');
    await eventually(async () => (await order(created.order_id)).state === 'paid', 20_000);
    expect(await balance(stack.api, payer, 'telegram')).toBe('100');
    expect(await ledgerRows(stack.db, created.order_id, 'purchase')).toBe(1);
    expect(await chargeOf(created.order_id)).toBe(platformChargeId);
    await eventually(() => forwarded(platformChargeId).length > 0);
    expect(forwarded(platformChargeId)).toHaveLength(1);
    expect((await stack.db.query('select 1 from unmatched_payments')).rowCount).toBe(0);
  });

  describe('d) pre-checkout declines, each with a reason, and nothing moves', () => {
    it('an already paid order (the reusable link paid again)', async () => {
      const paid = (await call(`${stack.api}/user/wallet/orders?limit=1`, { headers: bearer(payer) })).body as { orders: OrderBody[] };
      const first = paid.orders[0];
      expect(first?.state).toBe('paid');
      const again = await pay(first?.invoice_link ?? '');
      expect(again).toMatchObject({ status: 'rejected', errorMessage: 'This order is already paid.' });
      expect(again.telegramPaymentChargeId).toBeUndefined();
      expect(await balance(stack.api, payer, 'telegram')).toBe('100');
    });

    it('a missing order', async () => {
      const declined = await pay(await foreignInvoice(randomUUID(), 50));
      expect(declined).toMatchObject({ status: 'rejected', errorMessage: 'This order does not exist.' });
    });

    it('an amount that differs from the order', async () => {
      const pending = await newOrder();
      const declined = await pay(await foreignInvoice(pending.order_id, 49));
      expect(declined.status).toBe('rejected');
      expect(declined.errorMessage).toMatch(/^The price does not match this order\./);
      expect((await order(pending.order_id)).state).toBe('pending');
    });

    it('a currency that differs from the order', async () => {
      const pending = await newOrder();
      const queryId = `q-${Date.now()}`;
      platform.control.injectUpdate({
        pre_checkout_query: {
          id: queryId,
          from: { id: PAYER, is_bot: false, first_name: 'Payer' },
          currency: 'USD',
          total_amount: 50,
          invoice_payload: pending.order_id,
        },
      });
      const answered = () =>
        platform.control.calls('answerPreCheckoutQuery').find((c) => String(c.params['pre_checkout_query_id']) === queryId);
      await eventually(() => answered() !== undefined, 20_000);
      const params = answered()?.params ?? {};
      expect(String(params['ok'])).toBe('false');
      expect(String(params['error_message'])).toMatch(/^The price does not match this order\./);
      expect((await order(pending.order_id)).state).toBe('pending');
    });

    it('the gateway down: the bot declines on the channel failure (fail-closed)', async () => {
      const pending = await newOrder();
      const link = stack.link;
      if (!link) throw new Error('no link relay');
      link.refuse();
      try {
        await eventually(() => stack.gateway.hub.connected === 0);
        const declined = await pay(pending.invoice_link ?? '');
        expect(declined).toMatchObject({ status: 'rejected', errorMessage: UNAVAILABLE_REASON });
      } finally {
        link.accept();
      }
      await waitForBot(stack.gateway);
      expect((await order(pending.order_id)).state).toBe('pending');
    });
  });

  it('c) the bot SIGKILLed while the paid charge sits in its outbox forwards it after restart: credited once', async () => {
    const bot = stack.bot;
    if (!bot) throw new Error('no bot');
    const before = BigInt(await balance(stack.api, payer, 'telegram'));
    const created = await newOrder();
    const database = new URL(stack.db.url).pathname.slice(1);
    const holder = new pg.Client({ connectionString: stack.db.url });
    await holder.connect();
    try {
      // Stall ForwardPayment before it touches the order (the credit statement writes the order's
      // payment event; pre-checkouts do not): it reaches the backend and waits there, so the
      // charge is in the bot's outbox (stored before forwarding) and not yet credited.
      await holder.query('begin');
      await holder.query('lock table payment_events in access exclusive mode');
      const checkout = await pay(created.invoice_link ?? '');
      expect(checkout.status).toBe('approved');
      const platformChargeId = checkout.telegramPaymentChargeId ?? '';
      const waiting = async () =>
        (
          await holder.query<{ pid: number }>(
            `select pid from pg_stat_activity where datname = $1 and wait_event_type = 'Lock' and pid <> pg_backend_pid()`,
            [database],
          )
        ).rows.map((r) => r.pid);
      await eventually(async () => (await waiting()).length > 0, 20_000);

      // Kill the bot, then end every forward attempt still waiting on the lock: none may credit.
      await bot.kill();
      for (const pid of await waiting()) await holder.query('select pg_cancel_backend($1)', [pid]);
      await holder.query('rollback');
      expect((await order(created.order_id)).state).toBe('pending');
      expect(await ledgerRows(stack.db, created.order_id, 'purchase')).toBe(0);
      expect(forwarded(platformChargeId)).toHaveLength(0);

      bot.start();
      await eventually(async () => (await order(created.order_id)).state === 'paid', 30_000);
      expect(await chargeOf(created.order_id)).toBe(platformChargeId);
      expect(await ledgerRows(stack.db, created.order_id, 'purchase')).toBe(1);
      expect(BigInt(await balance(stack.api, payer, 'telegram'))).toBe(before + 100n);
      await eventually(() => forwarded(platformChargeId).length > 0);
      expect(forwarded(platformChargeId)).toHaveLength(1);
    } finally {
      await holder.end();
    }
  });

  it('e) the platform refuses createInvoiceLink: 502 bot_delivery_failed with its own message, not bot_unavailable; no order is opened', async () => {
    const before = (await call(`${stack.api}/user/wallet/orders?limit=1`, { headers: bearer(payer) })).body as { orders: OrderBody[] };
    const fault = platform.control.addFault({ method: 'createInvoiceLink', status: 400, description: 'PAYLOAD_INVALID', times: 1 });
    const res = await call(`${stack.api}/user/wallet/orders`, {
      method: 'POST',
      headers: bearer(payer),
      json: { product_id: pack, rail: 'stars' },
    });
    expect(res).toMatchObject({
      status: 502,
      body: {
        error: {
          code: 'bot_delivery_failed',
          message: 'the payment bot could not create the invoice: an unexpected transport or render failure',
        },
      },
    });
    expect(platform.control.calls('createInvoiceLink').filter((c) => c.faultId === fault.id)).toHaveLength(1);
    const listed = (await call(`${stack.api}/user/wallet/orders?limit=1`, { headers: bearer(payer) })).body as { orders: OrderBody[] };
    expect(listed.orders).toEqual(before.orders);
    // The platform is fine again: the next order gets its link.
    expect((await newOrder()).invoice_link).toMatch(/^https:\/\/t\.me\//);
  });
});
