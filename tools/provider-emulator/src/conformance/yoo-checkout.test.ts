/**
 * Conformance of the provider emulator with a YooKassa client written by others:
 * `@a2seven/yoo-checkout` 1.1.4, unmodified, creates, reads, captures, cancels, refunds and lists
 * against the emulator (started on port 0). Every answer, error and notification is validated
 * against JSON schemas generated from the SDK's own .d.ts (published-types.ts says where the API
 * reference had to complete them) and against what the published API reference states and the
 * types cannot: amounts as two-decimal strings, `confirmation.confirmation_url`, `test`,
 * `cancellation_details`, error bodies, 401 without credentials, Idempotence-Key replay and
 * conflict. The SDK cannot be pointed at another base URL (its API root is a constant); it reaches
 * the emulator through the `https_proxy` its HTTP client honours (api-route.ts).
 */
import { randomUUID } from 'node:crypto';
import { YooCheckout, type ICreatePayment, type Payment } from '@a2seven/yoo-checkout';
import type { ProviderEmulator } from '../index.js';
import { SHOP_A, SHOP_B, startEmulator, startReceiver } from '../test-support.js';
import { startApiRoute, type ApiRoute } from './api-route.js';
import { amountProblems, loadPublishedSchemas, type AnswerType, type PublishedSchemas } from './published-schemas.js';

const PROXY_VARIABLES = ['https_proxy', 'HTTPS_PROXY', 'no_proxy', 'NO_PROXY'] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The parties the reference names in a payment's or refund's cancellation_details. */
const PAYMENT_PARTIES = ['yoo_money', 'payment_network', 'merchant'];
const REFUND_PARTIES = ['yoo_money', 'refund_network', 'merchant'];

let emulator: ProviderEmulator;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let route: ApiRoute;
let schemas: PublishedSchemas;
let shopA: YooCheckout;
let shopB: YooCheckout;
const savedEnvironment = new Map<string, string | undefined>();

beforeAll(async () => {
  schemas = loadPublishedSchemas();
  receiver = await startReceiver();
  emulator = await startEmulator({ port: 0, webhookUrl: receiver.url });
  route = await startApiRoute(emulator.url);
  for (const name of PROXY_VARIABLES) {
    savedEnvironment.set(name, process.env[name]);
    delete process.env[name];
  }
  process.env.https_proxy = route.proxyUrl;
  shopA = readable(new YooCheckout({ shopId: SHOP_A.shopId, secretKey: SHOP_A.secretKey }));
  shopB = readable(new YooCheckout({ shopId: SHOP_B.shopId, secretKey: SHOP_B.secretKey }));
});
afterAll(async () => {
  for (const [name, value] of savedEnvironment) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await route.close();
  await emulator.stop();
  await receiver.close();
});
beforeEach(() => {
  emulator.control.reset();
  receiver.received.length = 0;
});
afterEach(() => {
  // Everything the SDK sent was addressed to the YooKassa API root (and so reached the emulator).
  expect(route.refused).toEqual([]);
});

/** Asserts that `value` is a `type` of the published API: the generated schema and the amount rules. */
function expectPublished(type: AnswerType, value: unknown): void {
  expect({ type, problems: [...schemas.problems(type, value), ...amountProblems(value)] }).toEqual({ type, problems: [] });
}

/** An SDK call the API answered with an error: its HTTP status and body, readable in a test failure. */
class SdkFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(`the API answered HTTP ${status} ${JSON.stringify(body)}`);
  }
}

/**
 * The SDK with its failures made readable: it rethrows its HTTP client's error object (config,
 * request, response), which a test report prints without the answer; this turns an HTTP answer
 * into an SdkFailure carrying status and body, and leaves every other error as it is.
 */
function readable(sdk: YooCheckout): YooCheckout {
  return new Proxy(sdk, {
    get(target, property, receiver) {
      const member: unknown = Reflect.get(target, property, receiver);
      if (typeof member !== 'function') return member;
      return async (...args: unknown[]): Promise<unknown> => {
        try {
          return await (member as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } catch (error: unknown) {
          const response = (error as { response?: { status?: number; data?: unknown } }).response;
          if (response?.status === undefined) throw error;
          throw new SdkFailure(response.status, response.data as Record<string, unknown>);
        }
      };
    },
  });
}

/** What an SDK call that failed got: the HTTP status and the body. */
async function failure(call: Promise<unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  const error = await call.then(
    () => new Error('the call succeeded'),
    (e: unknown) => e,
  );
  if (!(error instanceof SdkFailure)) throw error;
  return { status: error.status, body: error.body };
}

/** Asserts a published error body with this status, code and (when given) parameter. */
function expectError(answer: { status: number; body: Record<string, unknown> }, status: number, code: string, parameter?: string): void {
  expect(answer.status).toBe(status);
  expectPublished('ErrorAnswer', answer.body);
  expect(answer.body).toMatchObject({ type: 'error', code, ...(parameter === undefined ? {} : { parameter }) });
  expect(answer.body.id).toEqual(expect.stringMatching(UUID));
  expect(String(answer.body.description)).not.toBe('');
}

function order(value = '100.00', capture = true): ICreatePayment {
  return {
    amount: { value, currency: 'RUB' },
    capture,
    confirmation: { type: 'redirect', return_url: 'https://shop.example/return' },
    description: 'Chips 500',
    metadata: { order_id: randomUUID() },
  };
}

/** A payment the customer has paid: succeeded (capture) or waiting_for_capture (two-stage). */
async function paid(capture = true, value = '100.00'): Promise<Payment> {
  const created = await shopA.createPayment(order(value, capture));
  await emulator.control.succeedPayment(created.id);
  return shopA.getPayment(created.id);
}

describe('payments through @a2seven/yoo-checkout', () => {
  it.each(['100', '100.0', '100.00'])('creates a payment for amount.value %p and answers the published payment', async (value) => {
    const body = order(value);
    const payment = await shopA.createPayment(body);
    expectPublished('PaymentAnswer', payment);
    expect(payment).toMatchObject({
      status: 'pending',
      paid: false,
      amount: { value: '100.00', currency: 'RUB' },
      test: true,
      refundable: false,
      metadata: body.metadata as Record<string, string>,
      recipient: { account_id: SHOP_A.shopId },
      confirmation: { type: 'redirect' },
    });
    const url = payment.confirmation.confirmation_url ?? '';
    expect(new URL(url).protocol).toMatch(/^https?:$/);
    expect(emulator.control.requests().map((r) => [r.method, r.path, r.shopId, r.status])).toEqual([
      ['POST', '/v3/payments', SHOP_A.shopId, 200],
    ]);
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(payment.id);
  });

  it("echoes each shop's test flag and keeps another shop's payment from it", async () => {
    const live = await shopB.createPayment(order());
    expectPublished('PaymentAnswer', live);
    expect(live.test).toBe(false);
    expectError(await failure(shopA.getPayment(live.id)), 404, 'not_found');
  });

  it('reads a payment back exactly as it was created, and as it settled', async () => {
    const created = await shopA.createPayment(order());
    expect(await shopA.getPayment(created.id)).toEqual(created);
    await emulator.control.succeedPayment(created.id);
    const settled = await shopA.getPayment(created.id);
    expectPublished('PaymentAnswer', settled);
    expect(settled).toMatchObject({
      status: 'succeeded',
      paid: true,
      refundable: true,
      payment_method: { type: 'bank_card', saved: false },
    });
    expect(settled.captured_at).toEqual(expect.any(String));
    expect(settled.income_amount.currency).toBe('RUB');
  });

  it('captures a two-stage payment in part, with the amount spelled as YooKassa accepts it', async () => {
    const waiting = await paid(false);
    expectPublished('PaymentAnswer', waiting);
    expect(waiting).toMatchObject({ status: 'waiting_for_capture', paid: true });
    expect(waiting.expires_at).toEqual(expect.any(String));
    const captured = await shopA.capturePayment(waiting.id, { amount: { value: '60.5', currency: 'RUB' } });
    expectPublished('PaymentAnswer', captured);
    expect(captured).toMatchObject({ status: 'succeeded', paid: true, refundable: true, amount: { value: '60.50', currency: 'RUB' } });
    expect(captured).not.toHaveProperty('expires_at');
  });

  it('cancels a payment waiting for capture, reporting cancellation_details (party, reason)', async () => {
    const waiting = await paid(false);
    const canceled = await shopA.cancelPayment(waiting.id);
    expectPublished('PaymentAnswer', canceled);
    expect(canceled).toMatchObject({
      status: 'canceled',
      refundable: false,
      cancellation_details: { party: 'merchant', reason: 'canceled_by_merchant' },
    });

    const declined = await shopA.createPayment(order());
    await emulator.control.cancelPayment(declined.id, { party: 'payment_network', reason: 'insufficient_funds' });
    const read = await shopA.getPayment(declined.id);
    expectPublished('PaymentAnswer', read);
    expect(read.cancellation_details).toEqual({ party: 'payment_network', reason: 'insufficient_funds' });
    expect(PAYMENT_PARTIES).toContain(read.cancellation_details.party);

    const pending = await shopA.createPayment(order());
    expectError(await failure(shopA.cancelPayment(pending.id)), 400, 'invalid_request');
    expectError(await failure(shopA.capturePayment(pending.id, {})), 400, 'invalid_request');
  });
});

describe('refunds through @a2seven/yoo-checkout', () => {
  it('refunds in parts, amounts spelled "10" and "5.5", and reads refunds and refunded_amount back', async () => {
    const payment = await paid();
    const first = await shopA.createRefund({ payment_id: payment.id, amount: { value: '10', currency: 'RUB' }, description: 'sorry' });
    expectPublished('RefundAnswer', first);
    expect(first).toMatchObject({ payment_id: payment.id, status: 'succeeded', amount: { value: '10.00', currency: 'RUB' } });
    const second = await shopA.createRefund({ payment_id: payment.id, amount: { value: '5.5', currency: 'RUB' } });
    expect(second.amount).toEqual({ value: '5.50', currency: 'RUB' });
    expect(await shopA.getRefund(first.id)).toEqual(first);
    const after = await shopA.getPayment(payment.id);
    expectPublished('PaymentAnswer', after);
    expect(after).toMatchObject({ refunded_amount: { value: '15.50', currency: 'RUB' }, refundable: true });
  });

  it('reports a refund YooKassa declined with cancellation_details (party, reason)', async () => {
    const payment = await paid();
    emulator.control.setRefundOutcome('pending', { times: 1 });
    const pending = await shopA.createRefund({ payment_id: payment.id, amount: { value: '100.00', currency: 'RUB' } });
    expectPublished('RefundAnswer', pending);
    expect(pending.status).toBe('pending');
    await emulator.control.settleRefund(pending.id, 'canceled', { party: 'refund_network', reason: 'rejected_by_payee' });
    const canceled = await shopA.getRefund(pending.id);
    expectPublished('RefundAnswer', canceled);
    const details = (canceled as unknown as { cancellation_details: { party: string; reason: string } }).cancellation_details;
    expect(details).toEqual({ party: 'refund_network', reason: 'rejected_by_payee' });
    expect(REFUND_PARTIES).toContain(details.party);
  });

  it('refuses an over-refund and a refund of an unpaid payment with published error bodies', async () => {
    const payment = await paid();
    const over = await failure(shopA.createRefund({ payment_id: payment.id, amount: { value: '100.01', currency: 'RUB' } }));
    expectError(over, 400, 'invalid_request', 'amount.value');
    const unpaid = await shopA.createPayment(order());
    expectError(
      await failure(shopA.createRefund({ payment_id: unpaid.id, amount: { value: '1.00', currency: 'RUB' } })),
      400,
      'invalid_request',
      'payment_id',
    );
  });
});

describe('lists through @a2seven/yoo-checkout', () => {
  it('pages payments newest first with next_cursor, and filters by created_at, captured_at, status and payment_method', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await shopA.createPayment(order())).id);
    const seen: { id: string; created_at: string }[] = [];
    let page = await shopA.getPaymentList({ limit: 2 });
    for (;;) {
      expectPublished('PaymentListAnswer', page);
      seen.push(...page.items.map((p) => ({ id: p.id, created_at: p.created_at })));
      if (!page.next_cursor) break;
      page = await shopA.getPaymentList({ limit: 2, cursor: page.next_cursor });
    }
    // Every payment once, newest first; payments created in the same millisecond come by id,
    // descending (the emulator's stable cursor order), so creation order holds only across instants.
    expect(seen.map((p) => p.id).sort()).toEqual([...ids].sort());
    const newestFirst = [...seen].sort((a, b) =>
      a.created_at !== b.created_at ? (a.created_at > b.created_at ? -1 : 1) : a.id > b.id ? -1 : a.id < b.id ? 1 : 0,
    );
    expect(seen).toEqual(newestFirst);
    const created = new Map(seen.map((p) => [p.id, p.created_at]));
    for (let i = 1; i < ids.length; i += 1) expect(created.get(ids[i]!)! >= created.get(ids[i - 1]!)!).toBe(true);

    await new Promise((resolve) => setTimeout(resolve, 20));
    const from = new Date().toISOString();
    const later = await paid();
    const byCreated = await shopA.getPaymentList({ created_at: { value: from, mode: 'gte' } });
    expect(byCreated.items.map((p) => p.id)).toEqual([later.id]);
    const byCaptured = await shopA.getPaymentList({ captured_at: { value: from, mode: 'gte' }, payment_method: 'bank_card' });
    expectPublished('PaymentListAnswer', byCaptured);
    expect(byCaptured.items.map((p) => p.id)).toEqual([later.id]);
    expect((await shopA.getPaymentList({ status: 'pending', limit: 100 })).items.map((p) => p.id).sort()).toEqual([...ids].sort());
    expect((await shopB.getPaymentList()).items).toEqual([]);
  });

  it('lists refunds with payment_id and status filters', async () => {
    const a = await paid();
    const b = await paid();
    const ra = await shopA.createRefund({ payment_id: a.id, amount: { value: '1.00', currency: 'RUB' } });
    const rb = await shopA.createRefund({ payment_id: b.id, amount: { value: '2.00', currency: 'RUB' } });
    const all = await shopA.getRefundList();
    expectPublished('RefundListAnswer', all);
    expect(all.items.map((r) => r.id)).toEqual([rb.id, ra.id]);
    expect((await shopA.getRefundList({ payment_id: a.id })).items.map((r) => r.id)).toEqual([ra.id]);
    expect((await shopA.getRefundList({ status: 'canceled' })).items).toEqual([]);
  });
});

describe('errors, credentials and idempotence through @a2seven/yoo-checkout', () => {
  it('answers 401 invalid_credentials without credentials and with a wrong key', async () => {
    const anonymous = readable(new YooCheckout({ shopId: '', secretKey: '' }));
    expectError(await failure(anonymous.getPayment('any')), 401, 'invalid_credentials');
    expectError(await failure(anonymous.createPayment(order())), 401, 'invalid_credentials');
    const wrong = readable(new YooCheckout({ shopId: SHOP_A.shopId, secretKey: 'not-the-key' }));
    expectError(await failure(wrong.getPaymentList()), 401, 'invalid_credentials');
    // The SDK always sends a Basic header (empty above); no header at all is answered the same way.
    const bare = await fetch(`${emulator.apiUrl}/payments`);
    expectError({ status: bare.status, body: (await bare.json()) as Record<string, unknown> }, 401, 'invalid_credentials');
    expect(emulator.control.payments()).toEqual([]);
  });

  it.each([
    ['1.005', 'a third decimal'],
    ['-1.00', 'a sign'],
    ['1e2', 'an exponent'],
    ['0.00', 'zero'],
    ['1,00', 'a comma'],
  ])('refuses amount.value %p (%s) with invalid_request naming amount.value', async (value) => {
    expectError(await failure(shopA.createPayment(order(value))), 400, 'invalid_request', 'amount.value');
    expect(emulator.control.payments()).toEqual([]);
  });

  it('answers 404 not_found for unknown payments and refunds', async () => {
    expectError(await failure(shopA.getPayment('2c79d5a4-000f-5000-9000-1f2b3a4c5d6e')), 404, 'not_found');
    expectError(await failure(shopA.getRefund('2c79d5a4-0015-5000-9000-1f2b3a4c5d6e')), 404, 'not_found');
  });

  it('replays the same answer for the same Idempotence-Key and body: payment, capture and refund', async () => {
    const key = randomUUID();
    const body = order();
    const first = await shopA.createPayment(body, key);
    const again = await shopA.createPayment(body, key);
    expect(again).toEqual(first);
    expect(emulator.control.payments()).toHaveLength(1);

    const waiting = await paid(false);
    const captureKey = randomUUID();
    const captured = await shopA.capturePayment(waiting.id, { amount: { value: '50.00', currency: 'RUB' } }, captureKey);
    expect(await shopA.capturePayment(waiting.id, { amount: { value: '50.00', currency: 'RUB' } }, captureKey)).toEqual(captured);

    const refundKey = randomUUID();
    const refund = await shopA.createRefund({ payment_id: waiting.id, amount: { value: '5.00', currency: 'RUB' } }, refundKey);
    expect(await shopA.createRefund({ payment_id: waiting.id, amount: { value: '5.00', currency: 'RUB' } }, refundKey)).toEqual(refund);
    expect(emulator.control.payment(waiting.id).refunds).toHaveLength(1);
  });

  it('refuses the same Idempotence-Key with another body, and the SDK gives each call a fresh key by default', async () => {
    const key = randomUUID();
    await shopA.createPayment(order('100.00'), key);
    expectError(await failure(shopA.createPayment(order('200.00'), key)), 400, 'invalid_request', 'Idempotence-Key');
    expect(emulator.control.payments()).toHaveLength(1);
    await shopA.createPayment(order());
    await shopA.createPayment(order());
    expect(emulator.control.payments()).toHaveLength(3);
  });
});

describe('notifications', () => {
  it('carry the published payment and refund objects', async () => {
    const payment = await paid();
    await shopA.createRefund({ payment_id: payment.id, amount: { value: '1.00', currency: 'RUB' } });
    const waiting = await paid(false);
    await shopA.cancelPayment(waiting.id);
    await emulator.control.flushNotifications();
    const bodies = receiver.received.map((r) => r.json);
    expect(bodies.map((b) => b?.event)).toEqual([
      'payment.succeeded',
      'refund.succeeded',
      'payment.waiting_for_capture',
      'payment.canceled',
    ]);
    for (const body of bodies) {
      expect(body?.type).toBe('notification');
      expectPublished(body?.event?.startsWith('refund.') ? 'RefundAnswer' : 'PaymentAnswer', body?.object);
    }
  });
});
