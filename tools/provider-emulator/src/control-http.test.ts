import type { ProviderEmulator } from './index.js';
import { client, control, createPayment, nextKey, paymentBody, startEmulator } from './test-support.js';

let emulator: ProviderEmulator;

beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.stop());
beforeEach(() => emulator.control.reset());

describe('control API over HTTP', () => {
  it('answers health', async () => {
    expect(await control(emulator, '/health', undefined, 'GET')).toEqual({ status: 200, json: { ok: true } });
  });

  it('settles a payment with a chosen card and shows it with its refunds', async () => {
    const id = await createPayment(emulator);
    const settled = await control(emulator, `/payments/${id}/succeed`, { card: { first6: '411111', last4: '1111', card_type: 'Visa' } });
    expect(settled.status).toBe(200);
    expect(settled.json).toMatchObject({
      payment: { status: 'succeeded', payment_method: { card: { first6: '411111', last4: '1111', card_type: 'Visa' } } },
    });
    await client(emulator).post('/refunds', { payment_id: id, amount: { value: '1.00', currency: 'RUB' } });
    const view = await control(emulator, `/payments/${id}`, undefined, 'GET');
    expect(view.json).toMatchObject({
      shopId: 'shop-a',
      capture: true,
      receipt: null,
      payment: { id },
      refunds: [{ status: 'succeeded' }],
    });
    const refundId = String((view.json.refunds as Array<{ id: string }>)[0]?.id);
    expect((await control(emulator, `/refunds/${refundId}`, undefined, 'GET')).json).toMatchObject({ refund: { id: refundId } });
    expect(((await control(emulator, '/payments', undefined, 'GET')).json as unknown as unknown[]).length).toBe(1);
  });

  it('reports unknown objects, wrong states, bad bodies and unknown routes', async () => {
    expect(await control(emulator, '/payments/nope', undefined, 'GET')).toMatchObject({
      status: 404,
      json: { error: expect.any(String) as unknown },
    });
    expect((await control(emulator, '/payments/nope/succeed', {})).status).toBe(404);
    const id = await createPayment(emulator);
    expect((await control(emulator, `/payments/${id}/succeed`, { card: { last4: 'abcd' } })).status).toBe(400);
    await control(emulator, `/payments/${id}/succeed`, {});
    expect((await control(emulator, `/payments/${id}/succeed`, {})).status).toBe(409);
    expect((await control(emulator, `/payments/${id}/cancel`, { party: 'merchant', reason: 'canceled_by_merchant' })).status).toBe(409);
    expect((await control(emulator, '/nothing')).status).toBe(404);
    const badJson = await fetch(`${emulator.url}/_control/faults`, { method: 'POST', body: '{' });
    expect(badJson.status).toBe(400);
  });

  it('reset forgets payments, keys, faults, log and notifications', async () => {
    const key = nextKey();
    const first = await client(emulator).post('/payments', paymentBody(), key);
    emulator.control.addFault({ method: 'DELETE', status: 500 });
    emulator.control.setRefundOutcome('error500');
    emulator.control.setAutoNotify(false);
    await emulator.control.succeedPayment(String(first.json.id));
    expect((await control(emulator, '/reset')).status).toBe(200);
    expect(emulator.control.payments()).toEqual([]);
    expect(emulator.control.faults()).toEqual([]);
    expect(emulator.control.requests()).toEqual([]);
    expect(emulator.control.notifications()).toEqual([]);
    const again = await client(emulator).post('/payments', paymentBody(), key);
    expect(again.json.id).not.toBe(first.json.id);
    const id = String(again.json.id);
    await emulator.control.succeedPayment(id);
    const refund = await client(emulator).post('/refunds', { payment_id: id, amount: { value: '1.00', currency: 'RUB' } });
    expect(refund.json).toMatchObject({ status: 'succeeded' });
    expect(emulator.control.notifications()[0]?.suppressed).toBe(false);
  });
});

describe('checkout page', () => {
  it('shows the payment and pays it, redirecting to return_url', async () => {
    const created = await client(emulator).post('/payments', paymentBody({ description: '<b>Hints</b>' }));
    const confirmationUrl = (created.json.confirmation as { confirmation_url: string }).confirmation_url;
    const page = await fetch(confirmationUrl);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain('100.00 RUB');
    expect(html).toContain('&#60;b&#62;Hints');
    expect(html).not.toContain('<b>Hints');

    const id = String(created.json.id);
    const paid = await fetch(confirmationUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ orderId: id, action: 'pay' }).toString(),
      redirect: 'manual',
    });
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe('https://example.test/return');
    expect(emulator.control.payment(id).payment.status).toBe('succeeded');
  });

  it('declines a payment as insufficient funds', async () => {
    const created = await client(emulator).post('/payments', paymentBody());
    const id = String(created.json.id);
    const declined = await fetch(`${emulator.url}/checkout/payments/v2/contract?orderId=${id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `orderId=${id}&action=decline`,
      redirect: 'manual',
    });
    expect(declined.status).toBe(303);
    expect(emulator.control.payment(id).payment.cancellation_details).toEqual({ party: 'payment_network', reason: 'insufficient_funds' });
    expect((await fetch(`${emulator.url}/checkout/payments/v2/contract?orderId=nope`)).status).toBe(404);
  });
});
