import { randomUUID } from 'node:crypto';
import { untrustedSession, VK_APP_SECRET } from './support/chain.js';
import { call, startEdge } from './support/edge.js';
import {
  balance,
  bearer,
  createProduct,
  directCustomer,
  ledgerRows,
  startPaymentsStack,
  telegramCustomer,
  vkCustomer,
  linkEmail,
  type Customer,
  type OrderBody,
  type PaymentsStack,
} from './support/payments-stack.js';
import { nowSeconds, vkLaunchParams } from './support/launch-data.js';
import { freePort } from '@wordgame/testkit';

/** The backend's PROVIDER_REREAD_WINDOW_MS here. */
const REREAD_WINDOW_MS = 300;

describe('orders, notification intake and operator refunds through gateway -> backend -> PostgreSQL + provider emulator', () => {
  let stack: PaymentsStack;
  let api: string;
  let orders: string;
  let buyer: Customer;
  let unconfirmed: Customer;
  let stranger: Customer;
  let tg: Customer;
  const products: Record<'pack' | 'starsOnly' | 'cardOnly', string> = { pack: '', starsOnly: '', cardOnly: '' };

  const create = (who: Customer, json: unknown) => call(orders, { method: 'POST', headers: bearer(who), json });
  const orderCount = async () => (await stack.db.query<{ n: number }>('select count(*)::int as n from orders')).rows[0]?.n ?? 0;
  const refund = (orderId: string, headers: Record<string, string> = { authorization: `Bearer ${stack.operatorToken}` }) =>
    call(`${stack.urls.httpUrl}/_gm/api/orders/${orderId}/refund`, { method: 'POST', headers });
  const notify = (raw: string, contentType = 'application/json') =>
    call(`${api}/payments/notifications/yookassa`, { method: 'POST', headers: { 'content-type': contentType }, raw });
  const cardOrder = async (who: Customer = buyer) => {
    const res = await create(who, { product_id: products.pack, rail: 'card' });
    expect(res.status).toBe(201);
    return res.body as OrderBody;
  };
  const paymentOf = (order: OrderBody) => {
    const found = stack.provider.control.payments().find((p) => p.payment.metadata?.['order_id'] === order.order_id);
    if (!found) throw new Error(`no provider payment for order ${order.order_id}`);
    return found.payment;
  };

  beforeAll(async () => {
    stack = await startPaymentsStack({ backendEnv: { PROVIDER_REREAD_WINDOW_MS: String(REREAD_WINDOW_MS) } });
    api = stack.api;
    orders = `${api}/user/wallet/orders`;
    products.pack = await createProduct(stack, 'Chips 100', 100n, { xtr: 50n, rub: 9900n });
    products.starsOnly = await createProduct(stack, 'Chips 10 stars', 10n, { xtr: 5n });
    products.cardOnly = await createProduct(stack, 'Chips 20 card', 20n, { rub: 1500n });
    buyer = await directCustomer(stack, 'card-buyer@example.test', true);
    unconfirmed = await directCustomer(stack, 'no-email@example.test', false);
    stranger = await directCustomer(stack, 'stranger@example.test', true);
    tg = await telegramCustomer(api, 7001);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  describe('wallet.order_create', () => {
    it('opens a card order: a pending order with the provider confirmation URL, amounts as decimal strings', async () => {
      const order = await cardOrder();
      expect(order).toMatchObject({
        product_id: products.pack,
        title: 'Chips 100',
        rail: 'card',
        provider: 'yookassa',
        state: 'pending',
        amount: '9900',
        currency: 'RUB',
        chips: '100',
        paid_at: null,
        invoice_link: null,
        failure_reason: null,
        refunded: false,
      });
      expect(order.order_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(Date.parse(order.expires_at) - Date.parse(order.created_at)).toBe(30 * 60_000);
      const payment = paymentOf(order);
      expect(order.confirmation_url).toBe(payment.confirmation?.confirmation_url);
      expect(payment).toMatchObject({ status: 'pending', amount: { value: '99.00', currency: 'RUB' }, test: true });
      expect(
        stack.provider.control
          .requests()
          .find((r) => r.method === 'POST' && r.path === '/v3/payments' && r.idempotenceKey === order.order_id),
      ).toBeDefined();
    });

    it.each([
      ['no body', undefined, 400, 'invalid_product_id'],
      ['a numeric product_id', { product_id: 5, rail: 'card' }, 400, 'invalid_product_id'],
      ['a zero product_id', { product_id: '0', rail: 'card' }, 400, 'invalid_product_id'],
      ['a product_id beyond int64', { product_id: '99999999999999999999', rail: 'card' }, 400, 'invalid_product_id'],
      ['no rail', { product_id: '1' }, 400, 'invalid_rail'],
      ['an unknown rail', { product_id: '1', rail: 'paypal' }, 400, 'invalid_rail'],
      ['an extra field', { product_id: '1', rail: 'card', amount: '1' }, 400, 'invalid_request'],
    ])('refuses %s with 4xx and writes nothing', async (_name, json, status, code) => {
      const before = await orderCount();
      const res = await call(orders, { method: 'POST', headers: bearer(buyer), ...(json === undefined ? {} : { json }) });
      expect(res).toMatchObject({ status, body: { error: { code } } });
      expect(await orderCount()).toBe(before);
    });

    it('refuses malformed JSON, a non-JSON body and an oversized body with 4xx, writing nothing', async () => {
      const before = await orderCount();
      const headers = { ...bearer(buyer), 'content-type': 'application/json' };
      expect(await call(orders, { method: 'POST', headers, raw: '{"product_id":' })).toMatchObject({
        status: 400,
        body: { error: { code: 'malformed_json' } },
      });
      expect(
        await call(orders, { method: 'POST', headers: { ...bearer(buyer), 'content-type': 'text/plain' }, raw: 'card please' }),
      ).toMatchObject({
        status: 415,
        body: { error: { code: 'unsupported_media_type' } },
      });
      const huge = JSON.stringify({ product_id: products.pack, rail: 'card', pad: 'x'.repeat(70_000) });
      expect(await call(orders, { method: 'POST', headers, raw: huge })).toMatchObject({
        status: 413,
        body: { error: { code: 'body_too_large' } },
      });
      expect(await orderCount()).toBe(before);
    });

    it('maps the backend refusals, each with its code and status, and writes no order', async () => {
      const frozen = await call(`${api}/session/vk`, {
        method: 'POST',
        json: { launch_params: vkLaunchParams(VK_APP_SECRET, '9101', 'mobile_iphone', nowSeconds()) },
      });
      const ios = { token: (frozen.body as { token: string }).token, accountId: '' };
      const untrusted = { token: await untrustedSession(stack.db, buyer.accountId), accountId: buyer.accountId };
      const before = await orderCount();
      const cases: [Customer | null, unknown, number, string][] = [
        [null, { product_id: products.pack, rail: 'card' }, 401, 'unauthenticated'],
        [untrusted, { product_id: products.pack, rail: 'card' }, 403, 'untrusted_session'],
        [ios, { product_id: products.pack, rail: 'card' }, 403, 'purchase_forbidden'],
        [buyer, { product_id: '987654321', rail: 'card' }, 404, 'unknown_product'],
        [buyer, { product_id: products.pack, rail: 'stars' }, 409, 'rail_not_offered'],
        [tg, { product_id: products.pack, rail: 'card' }, 409, 'rail_not_offered'],
        [unconfirmed, { product_id: products.pack, rail: 'card' }, 409, 'email_required'],
        [buyer, { product_id: products.starsOnly, rail: 'card' }, 409, 'not_sold_on_rail'],
        [tg, { product_id: products.cardOnly, rail: 'stars' }, 409, 'not_sold_on_rail'],
      ];
      for (const [who, json, status, code] of cases) {
        const res = await call(orders, { method: 'POST', headers: who ? bearer(who) : {}, json });
        expect({ code, res: res.status, body: res.body }).toMatchObject({ code, res: status, body: { error: { code } } });
      }
      expect(await orderCount()).toBe(before);
    });

    it('a price in a currency its rail cannot settle (written straight to the database): 409 currency_not_settled, no order, nothing at the provider', async () => {
      const gbp = await createProduct(stack, 'Chips 30 pounds', 30n, { rub: 500n });
      const usd = await createProduct(stack, 'Chips 40 dollars', 40n, { rub: 700n });
      const starsInUsd = await createProduct(stack, 'Chips 50 stars', 50n, { xtr: 25n });
      await stack.db.query(`update catalog_prices set currency = 'GBP' where product_id = $1 and method = 'provider'`, [gbp]);
      await stack.db.query(`update catalog_prices set currency = 'USD' where product_id = $1 and method = 'provider'`, [usd]);
      await stack.db.query(`update catalog_prices set currency = 'USD' where product_id = $1 and method = 'xtr'`, [starsInUsd]);
      const payments = () => stack.provider.control.requests().filter((r) => r.method === 'POST' && r.path === '/v3/payments').length;
      const before = { orders: await orderCount(), payments: payments() };
      const cases: [Customer, string, string, string][] = [
        [buyer, gbp, 'card', 'GBP'],
        [buyer, usd, 'card', 'USD'],
        [tg, starsInUsd, 'stars', 'USD'],
      ];
      for (const [who, productId, rail, currency] of cases) {
        const res = await create(who, { product_id: productId, rail });
        expect({ productId, status: res.status, body: res.body }).toMatchObject({
          productId,
          status: 409,
          body: {
            error: {
              code: 'currency_not_settled',
              message: `this product is priced in ${currency}, which ${rail} payments here cannot settle`,
            },
          },
        });
      }
      expect(await orderCount()).toBe(before.orders);
      const left = await stack.db.query(`select 1 from orders where product_id in ($1, $2, $3)`, [gbp, usd, starsInUsd]);
      expect(left.rowCount).toBe(0);
      expect(payments()).toBe(before.payments);
      await stack.db.query(`update catalog_prices set currency = 'RUB' where product_id = $1 and method = 'provider'`, [gbp]);
      expect(await create(buyer, { product_id: gbp, rail: 'card' })).toMatchObject({
        status: 201,
        body: { state: 'pending', currency: 'RUB' },
      });
    });

    it('stars with no bot linked: 503 bot_unavailable, and no order is opened (the link comes first, the order with it)', async () => {
      const before = ((await call(orders, { headers: bearer(tg) })).body as { orders: OrderBody[] }).orders;
      const res = await create(tg, { product_id: products.pack, rail: 'stars' });
      expect(res).toMatchObject({ status: 503, body: { error: { code: 'bot_unavailable' } } });
      const list = (await call(orders, { headers: bearer(tg) })).body as { orders: OrderBody[] };
      expect(list.orders).toEqual(before);
    });

    it('provider unreachable: 503 provider_unavailable; provider refusal: 409 payment_rejected and the order failed', async () => {
      stack.provider.control.addFault({ method: 'POST', pathPrefix: '/v3/payments', status: 500, times: 1 });
      expect(await create(buyer, { product_id: products.cardOnly, rail: 'card' })).toMatchObject({
        status: 503,
        body: { error: { code: 'provider_unavailable' } },
      });
      stack.provider.control.addFault({ method: 'POST', pathPrefix: '/v3/payments', status: 403, times: 1 });
      expect(await create(buyer, { product_id: products.cardOnly, rail: 'card' })).toMatchObject({
        status: 409,
        body: { error: { code: 'payment_rejected' } },
      });
      const list = (await call(orders, { headers: bearer(buyer) })).body as { orders: OrderBody[] };
      expect(list.orders[0]).toMatchObject({ product_id: products.cardOnly, state: 'failed', failure_reason: 'rejected by the provider' });
    });
  });

  describe('wallet.order_get and wallet.orders', () => {
    it('reads the caller own order; bad ids are 400; missing and foreign orders are 404 alike', async () => {
      const order = await cardOrder();
      expect(await call(`${orders}/${order.order_id}`, { headers: bearer(buyer) })).toEqual(
        expect.objectContaining({ status: 200, body: order }),
      );
      expect(await call(`${orders}/${order.order_id.toUpperCase()}`, { headers: bearer(buyer) })).toMatchObject({
        status: 200,
        body: { order_id: order.order_id },
      });
      expect(await call(`${orders}/not-a-uuid`, { headers: bearer(buyer) })).toMatchObject({
        status: 400,
        body: { error: { code: 'invalid_order_id' } },
      });
      expect(await call(`${orders}/${randomUUID()}`, { headers: bearer(buyer) })).toMatchObject({
        status: 404,
        body: { error: { code: 'unknown_order' } },
      });
      expect(await call(`${orders}/${order.order_id}`, { headers: bearer(stranger) })).toMatchObject({
        status: 404,
        body: { error: { code: 'unknown_order' } },
      });
      expect(await call(`${orders}/${order.order_id}`)).toMatchObject({ status: 401 });
    });

    it('lists newest first with a bounded limit; a stranger sees none of it', async () => {
      const all = (await call(orders, { headers: bearer(buyer) })).body as { orders: OrderBody[] };
      expect(all.orders.length).toBeGreaterThanOrEqual(3);
      const created = all.orders.map((o) => Date.parse(o.created_at));
      expect([...created].sort((a, b) => b - a)).toEqual(created);
      const one = (await call(`${orders}?limit=1`, { headers: bearer(buyer) })).body as { orders: OrderBody[] };
      expect(one.orders).toEqual([all.orders[0]]);
      for (const bad of ['0', '101', 'ten', '-1']) {
        expect(await call(`${orders}?limit=${bad}`, { headers: bearer(buyer) })).toMatchObject({
          status: 400,
          body: { error: { code: 'invalid_request' } },
        });
      }
      expect(await call(orders, { headers: bearer(stranger) })).toMatchObject({ status: 200, body: { orders: [] } });
    });
  });

  describe('provider notification intake route', () => {
    it('a genuine payment.succeeded notification credits the order once; a duplicate changes nothing', async () => {
      const order = await cardOrder();
      const { notification } = await stack.provider.control.succeedPayment(paymentOf(order).id);
      expect(notification.attempts.map((a) => a.status)).toEqual([200]);
      const paid = (await call(`${orders}/${order.order_id}`, { headers: bearer(buyer) })).body as OrderBody;
      expect(paid).toMatchObject({ state: 'paid' });
      expect(paid.paid_at).not.toBeNull();
      expect(await balance(api, buyer, 'direct')).toBe('100');
      const again = await stack.provider.control.redeliver(notification.id);
      expect(again.attempts.map((a) => a.status)).toEqual([200, 200]);
      expect(await balance(api, buyer, 'direct')).toBe('100');
      expect(await ledgerRows(stack.db, order.order_id, 'purchase')).toBe(1);
    });

    it.each([
      ['not JSON', 'event=payment.succeeded', 'application/x-www-form-urlencoded'],
      ['an empty body', '', 'application/json'],
      ['a JSON array', '[{"event":"payment.succeeded"}]', 'application/json'],
      ['a JSON string', '"payment.succeeded"', 'application/json'],
    ])('answers %s with 400 malformed_notification and makes no provider call', async (_name, raw, type) => {
      const before = stack.provider.control.requests().length;
      expect(await notify(raw, type)).toMatchObject({ status: 400, body: { error: { code: 'malformed_notification' } } });
      expect(stack.provider.control.requests()).toHaveLength(before);
    });

    it('answers a body over 64 KiB with 413', async () => {
      const big = JSON.stringify({ type: 'notification', event: 'payment.succeeded', object: { id: 'x', pad: 'y'.repeat(66 * 1024) } });
      expect(await notify(big)).toMatchObject({ status: 413, body: { error: { code: 'body_too_large' } } });
    });

    it('takes any content type and needs no credentials; a notification naming no known order is 200 with no provider call', async () => {
      const before = stack.provider.control.requests().length;
      const unknown = JSON.stringify({
        type: 'notification',
        event: 'payment.succeeded',
        object: { id: 'pay-unknown', status: 'succeeded', metadata: { order_id: randomUUID() } },
      });
      const res = await notify(unknown, 'text/plain');
      expect(res).toEqual(expect.objectContaining({ status: 200, body: undefined }));
      expect(stack.provider.control.requests()).toHaveLength(before);
    });

    it('503 intake_unavailable when the provider cannot be reached for the re-read (also for a redelivery within PROVIDER_REREAD_WINDOW_MS); a later redelivery credits', async () => {
      stack.provider.control.setAutoNotify(false);
      try {
        const order = await cardOrder();
        const payment = paymentOf(order);
        await stack.provider.control.succeedPayment(payment.id);
        stack.provider.control.addFault({ method: 'GET', pathPrefix: '/v3/payments', status: 500, times: 1 });
        const first = await stack.provider.control.notify({ event: 'payment.succeeded', objectId: payment.id });
        expect(first.attempts.map((a) => a.status)).toEqual([503]);
        expect(((await call(`${orders}/${order.order_id}`, { headers: bearer(buyer) })).body as OrderBody).state).toBe('pending');
        // Within the failed re-read's window a redelivery is refused again, with no provider call.
        const reads = stack.provider.control.requests().length;
        const second = await stack.provider.control.redeliver(first.id);
        expect(second.attempts.map((a) => a.status)).toEqual([503, 503]);
        expect(stack.provider.control.requests().length).toBe(reads);
        await new Promise((resolve) => setTimeout(resolve, REREAD_WINDOW_MS));
        const third = await stack.provider.control.redeliver(first.id);
        expect(third.attempts.map((a) => a.status)).toEqual([503, 503, 200]);
        expect(((await call(`${orders}/${order.order_id}`, { headers: bearer(buyer) })).body as OrderBody).state).toBe('paid');
        expect(await ledgerRows(stack.db, order.order_id, 'purchase')).toBe(1);
      } finally {
        stack.provider.control.setAutoNotify(true);
      }
    });

    it('503 backend_unavailable when the backend is down, so the provider redelivers', async () => {
      const edge = await startEdge(`http://127.0.0.1:${await freePort()}`);
      try {
        const res = await call(`${edge.url}/api/v1/payments/notifications/yookassa`, {
          method: 'POST',
          json: { type: 'notification', event: 'payment.succeeded', object: { id: 'p1' } },
        });
        expect(res).toMatchObject({ status: 503, body: { error: { code: 'backend_unavailable' } } });
      } finally {
        await edge.close();
      }
    });
  });

  describe('operator refund API', () => {
    let paid: OrderBody;
    beforeAll(async () => {
      paid = await cardOrder(stranger);
      await stack.provider.control.succeedPayment(paymentOf(paid).id);
      expect(await balance(api, stranger, 'direct')).toBe('100');
    });

    it('needs an operator session: none is 401 at the edge, a customer token is refused by the backend', async () => {
      expect(await refund(paid.order_id, {})).toMatchObject({ status: 401, body: { error: { code: 'operator_unauthenticated' } } });
      expect(await refund(paid.order_id, bearer(stranger))).toMatchObject({
        status: 401,
        body: { error: { code: 'operator_session_invalid' } },
      });
      expect(await ledgerRows(stack.db, paid.order_id, 'refund')).toBe(0);
    });

    it('refuses bad, unknown and unpaid (card or stars) orders with their codes', async () => {
      const unpaid = await cardOrder(stranger);
      // A pending stars order (no bot is linked in this suite, so none can be opened through the API).
      const starsId = randomUUID();
      await stack.db.query(
        `insert into orders (id, account_id, product_id, title, rail, provider, segment, amount, currency, chips, created_at, expires_at, invoice_link)
         select $2, account_id, product_id, title, 'stars', 'telegram_stars', 'telegram', 50, 'XTR', chips, now(), now() + interval '30 minutes', 'https://t.me/$x'
           from orders where id = $1`,
        [unpaid.order_id, starsId],
      );
      const stars = (await call(`${orders}/${starsId}`, { headers: bearer(stranger) })).body as OrderBody;
      expect(await refund('12345')).toMatchObject({ status: 400, body: { error: { code: 'invalid_order_id' } } });
      expect(await refund(randomUUID())).toMatchObject({ status: 404, body: { error: { code: 'unknown_order' } } });
      expect(await refund(unpaid.order_id)).toMatchObject({ status: 409, body: { error: { code: 'order_not_paid' } } });
      expect(stars?.state).toBe('pending');
      expect(await refund(stars?.order_id ?? '')).toMatchObject({ status: 409, body: { error: { code: 'order_not_paid' } } });
    });

    it('provider down: 503 provider_unavailable and nothing recorded', async () => {
      stack.provider.control.addFault({ method: 'POST', pathPrefix: '/v3/refunds', status: 500, times: 1 });
      expect(await refund(paid.order_id)).toMatchObject({ status: 503, body: { error: { code: 'provider_unavailable' } } });
      expect(await ledgerRows(stack.db, paid.order_id, 'refund')).toBe(0);
    });

    it('pending: nothing recorded, press again; once settled the same refund is reported succeeded, recorded once', async () => {
      stack.provider.control.setRefundOutcome('pending', { times: 1 });
      const first = await refund(paid.order_id);
      expect(first).toMatchObject({ status: 200, body: { order_id: paid.order_id, status: 'pending', amount: '9900', currency: 'RUB' } });
      const refundId = (first.body as { refund_id: string }).refund_id;
      expect(refundId).toBeTruthy();
      expect(await ledgerRows(stack.db, paid.order_id, 'refund')).toBe(0);
      expect(await refund(paid.order_id)).toMatchObject({ status: 200, body: { status: 'pending', refund_id: refundId } });
      await stack.provider.control.settleRefund(refundId, 'succeeded');
      expect(await refund(paid.order_id)).toMatchObject({
        status: 200,
        body: { status: 'succeeded', refund_id: refundId, amount: '9900' },
      });
      expect(await ledgerRows(stack.db, paid.order_id, 'refund')).toBe(1);
      expect(await balance(api, stranger, 'direct')).toBe('0');
      expect(await call(`${orders}/${paid.order_id}`, { headers: bearer(stranger) })).toMatchObject({
        body: { state: 'paid', refunded: true },
      });
      expect(stack.provider.control.payment(paymentOf(paid).id).refunds).toHaveLength(1);
    });

    it('canceled by the provider: 200 canceled and nothing recorded', async () => {
      const order = await cardOrder(buyer);
      await stack.provider.control.succeedPayment(paymentOf(order).id);
      stack.provider.control.setRefundOutcome('canceled', { times: 1 });
      expect(await refund(order.order_id)).toMatchObject({ status: 200, body: { status: 'canceled' } });
      expect(await ledgerRows(stack.db, order.order_id, 'refund')).toBe(0);
    });
  });

  it('vk android with a confirmed e-mail buys by card through the vk shop', async () => {
    const vk = await vkCustomer(api, '9202');
    expect(await create(vk, { product_id: products.pack, rail: 'card' })).toMatchObject({
      status: 409,
      body: { error: { code: 'email_required' } },
    });
    await linkEmail(stack, vk, 'vk-payer@example.test');
    const res = await create(vk, { product_id: products.pack, rail: 'card' });
    expect(res).toMatchObject({ status: 201, body: { rail: 'card', state: 'pending' } });
    expect(stack.provider.control.payment(paymentOf(res.body as OrderBody).id).shopId).toBe('vk-shop');
  });
});
