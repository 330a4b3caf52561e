import { startProviderEmulator, type FaultSpec, type ProviderEmulator } from '@wordgame/provider-emulator';
import {
  balance,
  call,
  createOrder,
  createProduct,
  directCustomer,
  getOrder,
  operator,
  type Customer,
  type Order,
} from '../src/harness/api.js';
import { runLedgerAudit } from '../src/harness/audit.js';
import { creditFacts } from '../src/harness/ledger.js';
import { freshDatabase, type FreshDatabase } from '../src/harness/postgres.js';
import { report, scaled } from '../src/harness/scale.js';
import { CARD_SHOP, NOTIFICATION_PATH, startStack, type Stack } from '../src/harness/stack.js';
import { waitFor } from '../src/harness/wait.js';

const SUITE = 'provider faults';
const ORDERS_PER_FAULT = scaled(5, 50);
const CHIPS = 250n;
const PRICE = 19_900n;
const REAPER_MS = 200;
const PROVIDER_TIMEOUT_MS = 1_000;

/** The two ways the provider fails: an error answer, or no answer at all (held until the backend's deadline). */
const FAULTS: { name: string; spec: (f: Pick<FaultSpec, 'method' | 'pathPrefix'>) => FaultSpec }[] = [
  { name: '500', spec: (f) => ({ ...f, status: 500 }) },
  { name: 'timeout', spec: (f) => ({ ...f, status: 'timeout' }) },
];

/**
 * Suite 4 of issue #8: the provider emulator answering 500 or timing out (its fault control).
 * Card orders the customer paid while the provider fails stay pending (the notification cannot be
 * verified, the intake answers 503 so the provider redelivers; the reaper's re-checks fail and are
 * retried); once the provider recovers the reaper settles each exactly once. A console refund
 * attempted while the provider fails records nothing and the operator gets a clear error; after
 * recovery the refund succeeds once, with the refund the provider already holds for that key.
 */
describe('faults: the card provider answering 500 or timing out', () => {
  let provider: ProviderEmulator;
  let db: FreshDatabase;
  let stack: Stack;
  let buyer: Customer;
  let product: string;

  const paymentIdOf = (order: Order) => new URL(order.confirmation_url ?? 'http://x/').searchParams.get('orderId') ?? '';
  const rows = async (orderId: string, kind: string) =>
    (await db.query<{ n: number }>('select count(*)::int as n from ledger_operations where order_id = $1 and kind = $2', [orderId, kind]))
      .rows[0]?.n ?? 0;
  const faultHits = (paymentId: string) =>
    provider.control.requests().filter((r) => r.path === `/v3/payments/${paymentId}` && r.fault !== null).length;

  beforeAll(async () => {
    provider = await startProviderEmulator({ shops: [CARD_SHOP] });
    db = await freshDatabase();
    stack = await startStack({
      databaseUrl: db.url,
      providerApiUrl: provider.apiUrl,
      backendEnv: { REAPER_INTERVAL_MS: String(REAPER_MS), PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS) },
    });
    provider.control.setWebhookUrl(`${stack.urls.gateway}${NOTIFICATION_PATH}`);
    product = await createProduct(
      stack.urls.gateway,
      { title: 'Chips 250', atoms: [{ kind: 'chips', quantity: CHIPS }], prices: [{ method: 'provider', amount: PRICE, currency: 'RUB' }] },
      stack.operatorToken,
    );
    buyer = await directCustomer(stack.urls.api, 'faults-card@example.test', stack.mailDir);
  }, 120_000);

  afterEach(() => {
    provider.control.clearFaults();
    provider.control.releaseHeld();
    provider.control.setAutoNotify(true);
  });

  afterAll(async () => {
    provider?.control.releaseHeld();
    await stack?.stop();
    await provider?.stop();
    await db?.drop();
  });

  it.each(FAULTS)(
    'provider $name: paid card orders stay pending while it fails; the reaper credits each once after it recovers',
    async ({ name, spec }) => {
      const before = await balance(stack.urls.api, buyer, 'direct');
      const orders: Order[] = [];
      for (let i = 0; i < ORDERS_PER_FAULT; i += 1) {
        const res = await createOrder(stack.urls.api, buyer, product, 'card');
        expect(res.status).toBe(201);
        orders.push(res.body as Order);
      }
      const ids = orders.map((o) => o.order_id);

      // Reading payments fails from now on; the customers pay, the notifications arrive and cannot be verified.
      provider.control.addFault(spec({ method: 'GET', pathPrefix: '/v3/payments/' }));
      for (const order of orders) {
        const { notification } = await provider.control.succeedPayment(paymentIdOf(order));
        expect(notification.attempts.map((a) => a.status)).toEqual([503]);
      }
      // Old enough for the reaper (the backend runs on the wall clock: the rows are aged, not the clock).
      await db.query(`update orders set created_at = created_at - interval '2 minutes' where id = any($1::uuid[])`, [ids]);
      // One tick re-checks the orders one after the other, each failing only at the backend's deadline on a timeout.
      await waitFor(
        'the reaper re-checked every order against the failing provider',
        () => orders.every((o) => faultHits(paymentIdOf(o)) >= 2),
        30_000 + ids.length * (PROVIDER_TIMEOUT_MS + 500),
      );
      for (const order of orders) expect((await getOrder(stack.urls.api, buyer, order.order_id)).state).toBe('pending');
      expect((await creditFacts(db, ids)).purchaseRows).toBe(0);
      expect(await balance(stack.urls.api, buyer, 'direct')).toBe(before);
      const failedRechecks = orders.reduce((n, o) => n + faultHits(paymentIdOf(o)), 0) - orders.length;

      // Recovery. A failed re-check leases the order for a minute; the rows are aged past the lease
      // as well, as if that minute had passed.
      provider.control.clearFaults();
      provider.control.releaseHeld();
      const recovered = performance.now();
      await db.query(
        `update orders set created_at = created_at - interval '61 seconds', recheck_after = recheck_after - interval '61 seconds' where id = any($1::uuid[])`,
        [ids],
      );
      await waitFor(
        'the reaper credited every order',
        async () => (await creditFacts(db, ids)).paid === ids.length,
        30_000 + ids.length * 200,
        100,
      );
      const settleMs = performance.now() - recovered;
      const facts = await creditFacts(db, ids);
      expect(facts).toMatchObject({ paid: ids.length, purchaseRows: ids.length, doubleCredited: [], inconsistent: [] });
      expect(await balance(stack.urls.api, buyer, 'direct')).toBe(before + CHIPS * BigInt(ids.length));

      // The provider redelivers its notifications now: each finds the order settled, nothing changes.
      for (const order of orders) {
        const late = await provider.control.notify({ event: 'payment.succeeded', objectId: paymentIdOf(order) });
        expect(late.attempts.map((a) => a.status)).toEqual([200]);
      }
      expect(await creditFacts(db, ids)).toEqual(facts);
      expect(await balance(stack.urls.api, buyer, 'direct')).toBe(before + CHIPS * BigInt(ids.length));
      report(
        SUITE,
        `provider ${name}: ${ids.length} paid orders stayed pending through ${ids.length} notifications answered 503 and ${failedRechecks} failed reaper re-checks; settled ${settleMs.toFixed(0)} ms after recovery, ${facts.purchaseRows} purchase rows, 0 double credits`,
      );
    },
    scaled(90_000, 900_000),
  );

  it('a console refund while the provider fails records nothing and says so; after recovery it succeeds once', async () => {
    // A customer of its own with one order paid while the provider is healthy.
    const customer = await directCustomer(stack.urls.api, 'faults-refund@example.test', stack.mailDir);
    const created = await createOrder(stack.urls.api, customer, product, 'card');
    expect(created.status).toBe(201);
    const order = created.body as Order;
    const paymentId = paymentIdOf(order);
    const { notification } = await provider.control.succeedPayment(paymentId);
    expect(notification.attempts.map((a) => a.status)).toEqual([200]);
    expect(await getOrder(stack.urls.api, customer, order.order_id)).toMatchObject({ state: 'paid', refunded: false });
    const refundUrl = `${stack.urls.gateway}/_gm/api/orders/${order.order_id}/refund`;
    const before = await balance(stack.urls.api, customer, 'direct');
    expect(before).toBe(CHIPS);
    const nothingRecorded = async () => {
      expect(await rows(order.order_id, 'refund')).toBe(0);
      expect(await getOrder(stack.urls.api, customer, order.order_id)).toMatchObject({ state: 'paid', refunded: false });
      expect(await balance(stack.urls.api, customer, 'direct')).toBe(before);
    };
    const attempts: string[] = [];
    const press = async (fault: FaultSpec) => {
      provider.control.addFault(fault);
      const res = await call(refundUrl, { method: 'POST', headers: operator(stack.operatorToken) });
      provider.control.clearFaults();
      provider.control.releaseHeld();
      const error = (res.body as { error?: { code?: string; message?: string } }).error;
      attempts.push(`${fault.status}${fault.applied ? ' (applied)' : ''} -> ${res.status} ${error?.code ?? ''}`);
      expect(res.status).toBe(503);
      expect(error?.code).toBe('provider_unavailable');
      expect(error?.message).toMatch(/nothing was recorded/);
      await nothingRecorded();
    };

    await press({ method: 'POST', pathPrefix: '/v3/refunds', status: 500 });
    await press({ method: 'POST', pathPrefix: '/v3/refunds', status: 'timeout' });
    expect(provider.control.payment(paymentId).refunds).toEqual([]);

    // The provider makes the refund but its answer never arrives (and its notification is lost):
    // still nothing recorded; the provider holds one refund under the console's key.
    provider.control.setAutoNotify(false);
    try {
      await press({ method: 'POST', pathPrefix: '/v3/refunds', status: 'timeout', applied: true });
      const held = provider.control.payment(paymentId).refunds;
      expect(held).toHaveLength(1);

      // Recovered: pressing again reuses the key and records that one refund, once.
      const again = await call(refundUrl, { method: 'POST', headers: operator(stack.operatorToken) });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ status: 'succeeded', refund_id: held[0]?.id });
      const third = await call(refundUrl, { method: 'POST', headers: operator(stack.operatorToken) });
      expect(third.body).toMatchObject({ status: 'succeeded', refund_id: held[0]?.id });
    } finally {
      provider.control.setAutoNotify(true);
    }
    // The lost notification arrives late: still one refund.
    const refundId = provider.control.payment(paymentId).refunds[0]?.id ?? '';
    const late = await provider.control.notify({ event: 'refund.succeeded', objectId: refundId });
    expect(late.attempts.map((a) => a.status)).toEqual([200]);
    expect(provider.control.payment(paymentId).refunds).toHaveLength(1);
    expect(await rows(order.order_id, 'refund')).toBe(1);
    expect(await getOrder(stack.urls.api, customer, order.order_id)).toMatchObject({ state: 'paid', refunded: true });
    expect(await balance(stack.urls.api, customer, 'direct')).toBe(before - CHIPS);
    report(SUITE, `console refund: ${attempts.join('; ')}; after recovery 200 succeeded with the provider's one refund, 1 refund row`);
  });

  it('the ledger audit is clean after all of it', () => {
    const audit = runLedgerAudit(db.url);
    report(SUITE, `ledger audit: ${audit.clean ? 'clean' : 'PROBLEMS'} over ${audit.operations} operations`);
    expect(audit.output).toContain('"clean": true');
    expect(audit.clean).toBe(true);
  });
});
