import { randomUUID } from 'node:crypto';
import { eventually, sample } from './support/botlink-gateway.js';
import { call } from './support/edge.js';
import {
  balance,
  bearer,
  createProduct,
  directCustomer,
  ledgerRows,
  startPaymentsStack,
  type Customer,
  type OrderBody,
  type PaymentsStack,
} from './support/payments-stack.js';

/** PROVIDER_REREAD_WINDOW_MS of both backend replicas. */
const WINDOW_MS = 1_000;
const REPLICAS = 2;

/**
 * Forged provider notifications against two backend replicas on one PostgreSQL database, through
 * the gateway's public intake route (the gateway spreads its backend calls over both), with the
 * provider emulator counting the re-reads (GET /v3/payments/<id>). The reaper is off, so every
 * credit here comes from a notification's re-read.
 */
describe('e2e: forged card notifications cost at most one provider re-read per window, across backend replicas', () => {
  let stack: PaymentsStack;
  let buyer: Customer;
  let pack: string;

  const newOrder = async (): Promise<OrderBody> => {
    const res = await call(`${stack.api}/user/wallet/orders`, {
      method: 'POST',
      headers: bearer(buyer),
      json: { product_id: pack, rail: 'card' },
    });
    expect(res.status).toBe(201);
    return res.body as OrderBody;
  };
  const orderState = async (id: string) =>
    ((await call(`${stack.api}/user/wallet/orders/${id}`, { headers: bearer(buyer) })).body as OrderBody).state;
  const paymentIdOf = (order: OrderBody) => new URL(order.confirmation_url ?? 'http://x/').searchParams.get('orderId') ?? '';
  const rereads = (paymentId: string) =>
    stack.provider.control.requests().filter((r) => r.method === 'GET' && r.path === `/v3/payments/${paymentId}`).length;
  const forged = (paymentId: string, orderId: string) => ({
    type: 'notification',
    event: 'payment.succeeded',
    object: {
      id: paymentId,
      status: 'succeeded',
      paid: true,
      amount: { value: '199.00', currency: 'RUB' },
      metadata: { order_id: orderId },
    },
  });
  /** POSTs `body` to the gateway's intake route as a forger would; answers the HTTP status. */
  const post = async (body: unknown): Promise<number> => {
    const res = await fetch(`${stack.api}/payments/notifications/yookassa`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    await res.arrayBuffer();
    return res.status;
  };
  /** Sends `bodies` ten at a time; answers every status and how long the burst took (ms). */
  const burst = async (bodies: unknown[]): Promise<{ statuses: number[]; elapsedMs: number }> => {
    const statuses: number[] = [];
    const started = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < bodies.length) statuses.push(await post(bodies[next++]));
    };
    await Promise.all(Array.from({ length: 10 }, worker));
    return { statuses, elapsedMs: performance.now() - started };
  };
  const dispositions = (objectId: string) =>
    stack.gatewayLogs
      .filter((l) => l['msg'] === 'provider notification' && l['objectId'] === objectId)
      .map((l) => `${String(l['disposition'])}:${String(l['detail'])}`);
  const coalesced = async (metricsUrl: string) => {
    const text = await (await fetch(metricsUrl)).text();
    return ['in_flight', 'window'].reduce(
      (n, reason) => n + (sample(text, `backend_notification_rereads_coalesced_total{kind="payment",reason="${reason}"}`) ?? 0),
      0,
    );
  };

  beforeAll(async () => {
    stack = await startPaymentsStack({ backends: REPLICAS, backendEnv: { PROVIDER_REREAD_WINDOW_MS: String(WINDOW_MS) } });
    pack = await createProduct(stack, 'Chips 100', 100n, { rub: 19900n });
    buyer = await directCustomer(stack, 'e2e-rereads@example.test', true);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it("300 forged payment.succeeded for the sender's own pending order: all 200, both replicas share one window, and the real payment afterwards is credited once", async () => {
    const order = await newOrder();
    const paymentId = paymentIdOf(order);
    const before = await Promise.all(stack.backends.map((b) => coalesced(b.metricsUrl)));

    const { statuses, elapsedMs } = await burst(Array.from({ length: 300 }, () => forged(paymentId, order.order_id)));
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    // The trailing re-reads (one per replica that coalesced) run within two windows of the last notification.
    await new Promise((resolve) => setTimeout(resolve, 2 * WINDOW_MS + 500));
    const reads = rereads(paymentId);
    expect(reads).toBeGreaterThanOrEqual(1);
    expect(reads).toBeLessThanOrEqual(1 + Math.ceil(elapsedMs / WINDOW_MS) + REPLICAS);
    // Each replica answered part of the burst without a provider call: the window is shared through PostgreSQL.
    const after = await Promise.all(stack.backends.map((b) => coalesced(b.metricsUrl)));
    const perReplica = after.map((n, i) => n - (before[i] ?? 0));
    for (const n of perReplica) expect(n).toBeGreaterThan(0);
    expect(perReplica.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(300 - reads);
    expect(await orderState(order.order_id)).toBe('pending');
    expect(await balance(stack.api, buyer, 'direct')).toBe('0');

    // The customer really pays: the provider's own notification credits the order, once.
    const { notification } = await stack.provider.control.succeedPayment(paymentId);
    expect(notification.attempts.map((a) => a.status)).toEqual([200]);
    await eventually(async () => (await orderState(order.order_id)) === 'paid', 3 * WINDOW_MS + 5_000);
    expect(await balance(stack.api, buyer, 'direct')).toBe('100');
    expect(await ledgerRows(stack.db, order.order_id, 'purchase')).toBe(1);
  }, 60_000);

  it('notifications one after another land on both replicas (fewest in flight, taking turns) and still make one re-read per window', async () => {
    const order = await newOrder();
    const paymentId = paymentIdOf(order);
    const before = await Promise.all(stack.backends.map((b) => coalesced(b.metricsUrl)));
    const started = performance.now();
    for (let i = 0; i < 6; i += 1) expect(await post(forged(paymentId, order.order_id))).toBe(200);
    // One re-read per window the six spanned: one on a quiet machine, a few if load stretched them.
    const windows = Math.floor((performance.now() - started) / WINDOW_MS) + 1;
    expect(rereads(paymentId)).toBeGreaterThanOrEqual(1);
    expect(rereads(paymentId)).toBeLessThanOrEqual(Math.min(windows, 5));
    const after = await Promise.all(stack.backends.map((b) => coalesced(b.metricsUrl)));
    for (const [i, n] of after.entries()) expect(n - (before[i] ?? 0)).toBeGreaterThan(0);
  }, 30_000);

  it('a genuine notification inside the window of a forged one is answered without a re-read and still credited by the trailing re-read', async () => {
    const start = await balance(stack.api, buyer, 'direct');
    const order = await newOrder();
    const paymentId = paymentIdOf(order);
    expect(await post(forged(paymentId, order.order_id))).toBe(200);
    expect(dispositions(paymentId)).toEqual(['handled:not_settled']);
    expect(rereads(paymentId)).toBe(1);

    const { notification } = await stack.provider.control.succeedPayment(paymentId);
    expect(notification.attempts.map((a) => a.status)).toEqual([200]);
    expect(dispositions(paymentId)).toEqual(['handled:not_settled', 'handled:reread_coalesced']);
    expect(rereads(paymentId)).toBe(1);
    await eventually(async () => (await orderState(order.order_id)) === 'paid', 3 * WINDOW_MS + 5_000);
    expect(rereads(paymentId)).toBe(2);
    expect(BigInt(await balance(stack.api, buyer, 'direct'))).toBe(BigInt(start) + 100n);
    expect(await ledgerRows(stack.db, order.order_id, 'purchase')).toBe(1);
  }, 30_000);

  it("forged notifications naming made-up payment ids with the sender's order in metadata, or naming a paid order's payment, make no provider call", async () => {
    const order = await newOrder();
    const requests = stack.provider.control.requests().length;
    const ids = Array.from({ length: 50 }, () => randomUUID());
    const { statuses } = await burst(ids.map((id) => forged(id, order.order_id)));
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    for (const id of ids) expect(dispositions(id)).toEqual(['ignored:payment_mismatch']);
    expect(stack.provider.control.requests().length).toBe(requests);

    const paymentId = paymentIdOf(order);
    await stack.provider.control.succeedPayment(paymentId);
    await eventually(async () => (await orderState(order.order_id)) === 'paid', 3 * WINDOW_MS + 5_000);
    const reads = rereads(paymentId);
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS + 200));
    const late = await burst(Array.from({ length: 20 }, () => forged(paymentId, order.order_id)));
    expect(late.statuses.filter((s) => s !== 200)).toEqual([]);
    expect(rereads(paymentId)).toBe(reads);
  }, 30_000);
});
