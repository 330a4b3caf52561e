import { paymentIdOf, resetCardFixture, startCardFixture, type CardFixture } from './card-support.js';
import { createOrder, intakeBody } from './payments-support.js';
import { failure } from './support/harness.js';
import { newAccount } from './support/wallet.js';

/**
 * The money guards on a re-read payment or refund, each driven into its odd state through the
 * provider emulator (payments and refunds made behind the backend's back, lost notifications,
 * forged ones): nothing is credited or recorded.
 */
describe('money guards on re-read payments and refunds', () => {
  let f: CardFixture;

  beforeAll(async () => {
    f = await startCardFixture();
  });
  afterAll(() => f.stop());
  beforeEach(async () => {
    await resetCardFixture(f);
    f.emulator.control.setAutoNotify(false);
  });

  const account = (name: string) => newAccount(f.db(), { address: `${name}@example.org`, confirmed: true });
  const balance = async (accountId: bigint) =>
    (
      await f
        .db()
        .selectFrom('wallet_segments')
        .select('balance')
        .where('account_id', '=', accountId)
        .where('segment', '=', 'direct')
        .executeTakeFirstOrThrow()
    ).balance;
  const orderRow = (id: string) => f.db().selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const ledgerKinds = async (orderId: string) =>
    (await f.db().selectFrom('ledger_operations').select('kind').where('order_id', '=', orderId).execute()).map((r) => r.kind);
  const hint = (event: string, object: Record<string, unknown>) =>
    intakeBody(f.notifications, JSON.stringify({ type: 'notification', event, object }));
  /** A payment made with the shop's credentials but not by the backend. */
  const outsidePayment = async (key: string, amountMinor: bigint, currency: string, orderId: string) => {
    const p = await f.adapter.createPayment(
      f.directShop,
      { amountMinor, currency, description: 'outside', returnUrl: 'https://x.example', metadata: { order_id: orderId } },
      key,
    );
    await f.emulator.control.succeedPayment(p.id);
    return p.id;
  };

  it('payment_mismatch: a second payment naming the order is not the one recorded on it', async () => {
    const id = await account('g-mismatch');
    const order = await createOrder(f.payments, id, 'direct;web', f.pack, 'card');
    const recorded = await paymentIdOf(f.db(), order.orderId);
    const second = await outsidePayment(`second-${order.orderId}`, 29_900n, 'RUB', order.orderId);
    expect(second).not.toBe(recorded);
    expect(await hint('payment.succeeded', { id: second, metadata: { order_id: order.orderId } })).toEqual({
      disposition: 'ignored',
      detail: 'payment_mismatch',
    });
    expect(await balance(id)).toBe(0n);
    expect(await orderRow(order.orderId)).toMatchObject({ state: 'pending', provider_payment_id: recorded });
  });

  it('amount_mismatch: a payment for the order in another amount or currency credits nothing', async () => {
    const id = await account('g-amount');
    // The provider failed at creation, so the order has no payment recorded; a payment naming it arrives later.
    f.emulator.control.addFault({ method: 'POST', pathPrefix: '/v3/payments', status: 500, times: 1 });
    await failure(createOrder(f.payments, id, 'direct;web', f.pack, 'card'));
    const order = await f.db().selectFrom('orders').selectAll().where('account_id', '=', id).executeTakeFirstOrThrow();
    expect(order.provider_payment_id).toBeNull();
    const cheaper = await outsidePayment(`cheap-${order.id}`, 100n, 'RUB', order.id);
    expect(await hint('payment.succeeded', { id: cheaper, metadata: { order_id: order.id } })).toEqual({
      disposition: 'ignored',
      detail: 'amount_mismatch',
    });
    const dollars = await outsidePayment(`usd-${order.id}`, 29_900n, 'USD', order.id);
    expect(await hint('payment.succeeded', { id: dollars, metadata: { order_id: order.id } })).toEqual({
      disposition: 'ignored',
      detail: 'amount_mismatch',
    });
    expect(await balance(id)).toBe(0n);
    expect((await orderRow(order.id)).state).toBe('pending');
    expect(await ledgerKinds(order.id)).toEqual([]);
  });

  it('refunded_before_credit: a payment refunded before its notification arrived is not credited', async () => {
    const id = await account('g-refunded');
    const order = await createOrder(f.payments, id, 'direct;web', f.pack, 'card');
    const paymentId = await paymentIdOf(f.db(), order.orderId);
    await f.emulator.control.succeedPayment(paymentId);
    await f.adapter.createRefund(f.directShop, { paymentId, amountMinor: 29_900n, currency: 'RUB' }, `early-${order.orderId}`);
    expect(await hint('payment.succeeded', { id: paymentId })).toEqual({ disposition: 'ignored', detail: 'refunded_before_credit' });
    expect(await balance(id)).toBe(0n);
    expect((await orderRow(order.orderId)).state).toBe('pending');
    expect(await ledgerKinds(order.orderId)).toEqual([]);
  });

  it("refund_mismatch: a refund of another payment, named with this order's payment, reverses nothing", async () => {
    const id = await account('g-refund');
    const order = await createOrder(f.payments, id, 'direct;web', f.pack, 'card');
    const paymentId = await paymentIdOf(f.db(), order.orderId);
    await f.emulator.control.succeedPayment(paymentId);
    expect(await hint('payment.succeeded', { id: paymentId })).toEqual({ disposition: 'handled', detail: 'credited' });
    const other = await outsidePayment(`other-${order.orderId}`, 29_900n, 'RUB', 'another-order');
    const otherRefund = await f.adapter.createRefund(
      f.directShop,
      { paymentId: other, amountMinor: 29_900n, currency: 'RUB' },
      `other-refund-${order.orderId}`,
    );
    expect(otherRefund.status).toBe('succeeded');
    expect(await hint('refund.succeeded', { id: otherRefund.id, payment_id: paymentId })).toEqual({
      disposition: 'ignored',
      detail: 'refund_mismatch',
    });
    expect(await balance(id)).toBe(1000n);
    expect(await orderRow(order.orderId)).toMatchObject({ state: 'paid', refund_id: null });
    expect(await ledgerKinds(order.orderId)).toEqual(['purchase']);
  });
});
