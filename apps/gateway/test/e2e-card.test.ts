import { randomUUID } from 'node:crypto';
import { eventually } from './support/botlink-gateway.js';
import { call } from './support/edge.js';
import {
  balance,
  bearer,
  createProduct,
  DIRECT_SHOP,
  directCustomer,
  ledgerRows,
  linkEmail,
  startPaymentsStack,
  vkCustomer,
  type Customer,
  type OrderBody,
  type PaymentsStack,
} from './support/payments-stack.js';

const REAPER_INTERVAL_MS = 200;

/**
 * Card purchases across real processes: client -> gateway (buildGateway) -> backend process ->
 * provider emulator (create payment) ; customer pays on the emulator's checkout page -> the
 * emulator posts the notification to the gateway's intake route -> backend re-reads the payment
 * from the emulator -> credit. The backend's reaper runs every 200 ms.
 */
describe('e2e: card purchase through gateway, backend and the provider emulator', () => {
  let stack: PaymentsStack;
  let buyer: Customer;
  let pack: string;

  const orderOf = async (who: Customer, id: string) =>
    (await call(`${stack.api}/user/wallet/orders/${id}`, { headers: bearer(who) })).body as OrderBody;
  const newOrder = async (who: Customer = buyer) => {
    const res = await call(`${stack.api}/user/wallet/orders`, {
      method: 'POST',
      headers: bearer(who),
      json: { product_id: pack, rail: 'card' },
    });
    expect(res.status).toBe(201);
    return res.body as OrderBody;
  };
  const paymentIdOf = (order: OrderBody) => new URL(order.confirmation_url ?? 'http://x/').searchParams.get('orderId') ?? '';
  const providerCalls = (paymentId: string) => stack.provider.control.requests().filter((r) => r.path === `/v3/payments/${paymentId}`);
  const providerRequests = () => stack.provider.control.requests().length;
  /** What the backend decided about the notifications of one object, as the gateway's intake route logged it. */
  const dispositions = (objectId: string) =>
    stack.gatewayLogs
      .filter(
        (l) => l['msg'] === 'provider notification' && l['operation'] === 'payments.notification.yookassa' && l['objectId'] === objectId,
      )
      .map((l) => `${String(l['disposition'])}:${String(l['detail'])}`);

  beforeAll(async () => {
    stack = await startPaymentsStack({ reaperIntervalMs: REAPER_INTERVAL_MS });
    pack = await createProduct(stack, 'Chips 250', 250n, { rub: 19900n });
    buyer = await directCustomer(stack, 'e2e-card@example.test', true);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('b) the customer pays on the checkout page; the notification reaches the gateway; the backend re-reads and credits once', async () => {
    const order = await newOrder();
    expect(order).toMatchObject({ state: 'pending', amount: '19900', currency: 'RUB', chips: '250' });
    const paymentId = paymentIdOf(order);
    expect(stack.provider.control.payment(paymentId).payment.metadata).toEqual({ order_id: order.order_id });

    const checkout = await fetch(order.confirmation_url ?? '', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ orderId: paymentId, action: 'pay' }).toString(),
      redirect: 'manual',
    });
    expect(checkout.status).toBeGreaterThanOrEqual(300);
    expect(checkout.status).toBeLessThan(400);

    const delivery = stack.provider.control.notifications().find((n) => n.objectId === paymentId && n.event === 'payment.succeeded');
    expect(delivery?.url).toBe(`${stack.urls.httpUrl}/api/v1/payments/notifications/yookassa`);
    expect(delivery?.attempts.map((a) => a.status)).toEqual([200]);
    expect(dispositions(paymentId)).toEqual(['handled:credited']);
    expect(providerCalls(paymentId).filter((r) => r.method === 'GET').length).toBeGreaterThanOrEqual(1);
    const paid = await orderOf(buyer, order.order_id);
    expect(paid.state).toBe('paid');
    expect(await balance(stack.api, buyer, 'direct')).toBe('250');
    expect(await ledgerRows(stack.db, order.order_id, 'purchase')).toBe(1);
  });

  it('b) a lost notification is covered by the reaper once the order is a minute old; younger orders are left alone', async () => {
    stack.provider.control.setAutoNotify(false);
    try {
      const before = BigInt(await balance(stack.api, buyer, 'direct'));
      const order = await newOrder();
      const paymentId = paymentIdOf(order);
      const { notification } = await stack.provider.control.succeedPayment(paymentId);
      expect(notification).toMatchObject({ suppressed: true, attempts: [] });

      // Several reaper ticks pass over the young order without a re-read.
      await new Promise((resolve) => setTimeout(resolve, REAPER_INTERVAL_MS * 5));
      expect(providerCalls(paymentId).filter((r) => r.method === 'GET')).toEqual([]);
      expect((await orderOf(buyer, order.order_id)).state).toBe('pending');

      // The backend runs on the wall clock: age the order past the one-minute re-check age.
      await stack.db.query(`update orders set created_at = created_at - interval '2 minutes' where id = $1`, [order.order_id]);
      await eventually(async () => (await orderOf(buyer, order.order_id)).state === 'paid', 20_000);
      expect(providerCalls(paymentId).filter((r) => r.method === 'GET').length).toBeGreaterThanOrEqual(1);
      expect(BigInt(await balance(stack.api, buyer, 'direct'))).toBe(before + 250n);
      expect(await ledgerRows(stack.db, order.order_id, 'purchase')).toBe(1);
      expect(dispositions(paymentId)).toEqual([]);

      // The late notification (redelivered now) finds the order credited: nothing changes.
      const late = await stack.provider.control.notify({ event: 'payment.succeeded', objectId: paymentId });
      expect(late.attempts.map((a) => a.status)).toEqual([200]);
      expect(dispositions(paymentId)).toEqual(['handled:already_settled']);
      expect(await ledgerRows(stack.db, order.order_id, 'purchase')).toBe(1);
      expect(BigInt(await balance(stack.api, buyer, 'direct'))).toBe(before + 250n);
    } finally {
      stack.provider.control.setAutoNotify(true);
    }
  });

  it('a declined payment fails the order with the reason, visible in the orders list; nothing is credited', async () => {
    const before = await balance(stack.api, buyer, 'direct');
    const order = await newOrder();
    const { notification } = await stack.provider.control.cancelPayment(paymentIdOf(order), {
      party: 'payment_network',
      reason: 'insufficient_funds',
    });
    expect(notification.attempts.map((a) => a.status)).toEqual([200]);
    expect(dispositions(paymentIdOf(order))).toEqual(['handled:failed']);
    const list = (await call(`${stack.api}/user/wallet/orders`, { headers: bearer(buyer) })).body as { orders: OrderBody[] };
    expect(list.orders.find((o) => o.order_id === order.order_id)).toMatchObject({
      state: 'failed',
      failure_reason: 'insufficient_funds',
      paid_at: null,
    });
    expect(await balance(stack.api, buyer, 'direct')).toBe(before);
  });

  describe('e) forged notifications through the gateway route credit nothing', () => {
    it('an unknown order: 200 and no provider call at all', async () => {
      const before = providerRequests();
      const forgedId = `forged-${randomUUID()}`;
      const forged = await stack.provider.control.notify({
        rawBody: {
          type: 'notification',
          event: 'payment.succeeded',
          object: { id: forgedId, status: 'succeeded', paid: true, metadata: { order_id: randomUUID() } },
        },
      });
      expect(forged.attempts.map((a) => a.status)).toEqual([200]);
      expect(dispositions(forgedId)).toEqual(['ignored:unknown_order']);
      expect(providerRequests()).toBe(before);
    });

    it('another payment: a real payment of the shop named with an order that has its own payment recorded is not re-read and credits nothing', async () => {
      const before = await balance(stack.api, buyer, 'direct');
      const victim = await newOrder();
      const res = await fetch(`${stack.provider.apiUrl}/payments`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${DIRECT_SHOP.shopId}:${DIRECT_SHOP.secretKey}`).toString('base64')}`,
          'idempotence-key': randomUUID(),
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          amount: { value: '199.00', currency: 'RUB' },
          capture: true,
          confirmation: { type: 'redirect', return_url: 'https://elsewhere.example/' },
          metadata: { order_id: randomUUID() },
        }),
      });
      const other = (await res.json()) as { id: string };
      await stack.provider.control.succeedPayment(other.id);
      expect(dispositions(other.id)).toEqual(['ignored:unknown_order']);
      const forged = await stack.provider.control.notify({
        rawBody: {
          type: 'notification',
          event: 'payment.succeeded',
          object: { id: other.id, status: 'succeeded', paid: true, metadata: { order_id: victim.order_id } },
        },
      });
      expect(forged.attempts.map((a) => a.status)).toEqual([200]);
      // The victim has its own payment recorded: no other payment can settle it, so none is re-read.
      expect(dispositions(other.id)).toEqual(['ignored:unknown_order', 'ignored:payment_mismatch']);
      expect(providerCalls(other.id).filter((r) => r.method === 'GET')).toEqual([]);
      expect((await orderOf(buyer, victim.order_id)).state).toBe('pending');
      expect(await ledgerRows(stack.db, victim.order_id, 'purchase')).toBe(0);
      expect(await balance(stack.api, buyer, 'direct')).toBe(before);
    });

    it('test-flag mismatch: a test payment never credits an order of a live shop', async () => {
      const vk = await vkCustomer(stack.api, '7301');
      await linkEmail(stack, vk, 'vk-e2e@example.test');
      const order = await newOrder(vk);
      const paymentId = paymentIdOf(order);
      expect(stack.provider.control.payment(paymentId)).toMatchObject({ shopId: 'vk-shop', payment: { test: true } });
      const { notification } = await stack.provider.control.succeedPayment(paymentId);
      expect(notification.attempts.map((a) => a.status)).toEqual([200]);
      expect(dispositions(paymentId)).toEqual(['ignored:test_flag_mismatch']);
      expect(providerCalls(paymentId).filter((r) => r.method === 'GET').length).toBeGreaterThanOrEqual(1);
      expect((await orderOf(vk, order.order_id)).state).toBe('pending');
      expect(await ledgerRows(stack.db, order.order_id, 'purchase')).toBe(0);
      expect(await balance(stack.api, vk, 'vk')).toBe('0');
    });
  });
});
