import type { ProviderEmulator } from './index.js';
import { client, control, createPayment, nextKey, SHOP_B, startEmulator, startReceiver } from './test-support.js';

let emulator: ProviderEmulator;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  receiver = await startReceiver();
  emulator = await startEmulator({ webhookUrl: receiver.url });
});
afterAll(async () => {
  await emulator.stop();
  await receiver.close();
});
beforeEach(() => {
  emulator.control.reset();
  receiver.received.length = 0;
});

async function paidPayment(): Promise<string> {
  const id = await createPayment(emulator);
  await emulator.control.succeedPayment(id);
  receiver.received.length = 0;
  return id;
}

function refund(paymentId: string, value: string, key = nextKey()) {
  return client(emulator).post('/refunds', { payment_id: paymentId, amount: { value, currency: 'RUB' }, description: 'sorry' }, key);
}

describe('refunds', () => {
  it('succeeds by default, grows refunded_amount and notifies refund.succeeded', async () => {
    const paymentId = await paidPayment();
    const answer = await refund(paymentId, '30.00');
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      payment_id: paymentId,
      status: 'succeeded',
      amount: { value: '30.00', currency: 'RUB' },
      description: 'sorry',
    });
    expect(answer.json.id).toEqual(expect.stringMatching(/^[0-9a-f]{8}-0015-5000-/));
    expect((await client(emulator).get(`/refunds/${String(answer.json.id)}`)).json).toEqual(answer.json);

    const payment = (await client(emulator).get(`/payments/${paymentId}`)).json;
    expect(payment).toMatchObject({ refunded_amount: { value: '30.00', currency: 'RUB' }, refundable: true });

    await emulator.control.flushNotifications();
    expect(receiver.received.map((r) => r.json)).toEqual([{ type: 'notification', event: 'refund.succeeded', object: answer.json }]);
  });

  it('makes the payment non-refundable once fully refunded and rejects any more', async () => {
    const paymentId = await paidPayment();
    await refund(paymentId, '40.00');
    await refund(paymentId, '60.00');
    const payment = (await client(emulator).get(`/payments/${paymentId}`)).json;
    expect(payment).toMatchObject({ refunded_amount: { value: '100.00', currency: 'RUB' }, refundable: false });
    const more = await refund(paymentId, '0.01');
    expect(more.status).toBe(400);
    expect(more.json).toMatchObject({ code: 'invalid_request', parameter: 'amount.value' });
  });

  it('takes the refund amount in every form YooKassa accepts and refuses the rest, in minor units', async () => {
    const paymentId = await paidPayment();
    for (const [value, answered] of [
      ['10', '10.00'],
      ['10.5', '10.50'],
      ['10.05', '10.05'],
    ] as const) {
      const answer = await refund(paymentId, value);
      expect(answer.status).toBe(200);
      expect(answer.json.amount).toEqual({ value: answered, currency: 'RUB' });
    }
    expect((await client(emulator).get(`/payments/${paymentId}`)).json).toMatchObject({ refunded_amount: { value: '30.55' } });
    for (const value of ['-1', '1.005', '1e1', 'ten']) {
      const answer = await refund(paymentId, value);
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ type: 'error', code: 'invalid_request', parameter: 'amount.value' });
    }
    expect(emulator.control.payment(paymentId).refunds).toHaveLength(3);
  });

  it('rejects an over-refund', async () => {
    const paymentId = await paidPayment();
    const answer = await refund(paymentId, '100.01');
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ type: 'error', code: 'invalid_request', parameter: 'amount.value' });
  });

  it('rejects refunding a payment that has not succeeded', async () => {
    const pending = await createPayment(emulator);
    expect((await refund(pending, '1.00')).json).toMatchObject({ code: 'invalid_request', parameter: 'payment_id' });
    const canceled = await createPayment(emulator);
    await emulator.control.cancelPayment(canceled, { party: 'yoo_money', reason: 'expired_on_confirmation' });
    expect((await refund(canceled, '1.00')).status).toBe(400);
  });

  it("rejects another shop's payment and hides its refunds", async () => {
    const paymentId = await paidPayment();
    const foreign = await client(emulator, SHOP_B).post('/refunds', { payment_id: paymentId, amount: { value: '1.00', currency: 'RUB' } });
    expect(foreign.json).toMatchObject({ code: 'invalid_request', parameter: 'payment_id' });
    const own = await refund(paymentId, '1.00');
    expect((await client(emulator, SHOP_B).get(`/refunds/${String(own.json.id)}`)).status).toBe(404);
  });

  it('requires an idempotence key and replays a refund', async () => {
    const paymentId = await paidPayment();
    const missing = await client(emulator).post('/refunds', { payment_id: paymentId, amount: { value: '1.00', currency: 'RUB' } }, null);
    expect(missing.json).toMatchObject({ code: 'invalid_request', parameter: 'Idempotence-Key' });
    const key = nextKey();
    const first = await refund(paymentId, '10.00', key);
    const second = await refund(paymentId, '10.00', key);
    expect(second).toEqual(first);
    expect(emulator.control.payment(paymentId).refunds).toHaveLength(1);
    expect(emulator.control.payment(paymentId).payment.refunded_amount?.value).toBe('10.00');
  });

  it('stays pending until the control API settles it as succeeded', async () => {
    const paymentId = await paidPayment();
    expect((await control(emulator, '/refund-outcome', { outcome: 'pending', times: 1 })).status).toBe(200);
    const answer = await refund(paymentId, '25.00');
    expect(answer.json).toMatchObject({ status: 'pending' });
    expect((await client(emulator).get(`/payments/${paymentId}`)).json).not.toHaveProperty('refunded_amount');
    expect((await refund(paymentId, '75.01')).status).toBe(400); // the pending refund reserves its amount
    await emulator.control.flushNotifications();
    expect(receiver.received).toHaveLength(0);

    const settled = await control(emulator, `/refunds/${String(answer.json.id)}/settle`, { status: 'succeeded' });
    expect(settled.json).toMatchObject({ refund: { status: 'succeeded' }, notification: { event: 'refund.succeeded' } });
    expect(receiver.received.map((r) => r.json?.object?.status)).toEqual(['succeeded']);
    expect((await client(emulator).get(`/payments/${paymentId}`)).json).toMatchObject({ refunded_amount: { value: '25.00' } });
    expect((await control(emulator, `/refunds/${String(answer.json.id)}/settle`, { status: 'canceled' })).status).toBe(409);
  });

  it('settles a pending refund as canceled without a notification', async () => {
    const paymentId = await paidPayment();
    emulator.control.setRefundOutcome('pending');
    const answer = await refund(paymentId, '25.00');
    const { refund: settled, notification } = await emulator.control.settleRefund(String(answer.json.id), 'canceled', {
      party: 'refund_network',
      reason: 'rejected_by_payee',
    });
    expect(settled).toMatchObject({ status: 'canceled', cancellation_details: { party: 'refund_network', reason: 'rejected_by_payee' } });
    expect(notification).toBeNull();
    expect(emulator.control.payment(paymentId).payment).not.toHaveProperty('refunded_amount');
    expect((await refund(paymentId, '100.00')).json).toMatchObject({ status: 'pending' }); // outcome stays without `times`
  });

  it('cancels refunds when told to', async () => {
    const paymentId = await paidPayment();
    emulator.control.setRefundOutcome('canceled', { times: 1 });
    const canceled = await refund(paymentId, '10.00');
    expect(canceled.json).toMatchObject({ status: 'canceled', cancellation_details: { party: 'yoo_money', reason: 'general_decline' } });
    expect((await refund(paymentId, '10.00')).json).toMatchObject({ status: 'succeeded' });
  });

  it('fails the create call with 500 when told to, storing nothing for the key', async () => {
    const paymentId = await paidPayment();
    await control(emulator, '/refund-outcome', { outcome: 'error500', times: 1 });
    const key = nextKey();
    const failed = await refund(paymentId, '10.00', key);
    expect(failed.status).toBe(500);
    expect(failed.json).toMatchObject({ type: 'error', code: 'internal_server_error' });
    expect(emulator.control.payment(paymentId).refunds).toHaveLength(0);
    const retried = await refund(paymentId, '10.00', key);
    expect(retried.json).toMatchObject({ status: 'succeeded' });
  });

  it('validates refund receipts against the refund amount', async () => {
    const paymentId = await paidPayment();
    const receipt = {
      customer: { email: 'buyer@example.test' },
      items: [{ description: 'Hint pack', quantity: '1', amount: { value: '10.00', currency: 'RUB' }, vat_code: 1 }],
    };
    const post = (value: string) =>
      client(emulator).post('/refunds', { payment_id: paymentId, amount: { value, currency: 'RUB' }, receipt });
    expect((await post('11.00')).json).toMatchObject({ parameter: 'receipt.items' });
    const ok = await post('10.00');
    expect(ok.json).toMatchObject({ status: 'succeeded', receipt_registration: 'succeeded' });
    expect(emulator.control.refund(String(ok.json.id)).receipt).toEqual(receipt);
  });

  it('validates the refund outcome and settle bodies', async () => {
    expect((await control(emulator, '/refund-outcome', { outcome: 'maybe' })).status).toBe(400);
    expect((await control(emulator, '/refund-outcome', { outcome: 'pending', times: 0 })).status).toBe(400);
    expect((await control(emulator, '/refunds/nope/settle', { status: 'succeeded' })).status).toBe(404);
  });
});
