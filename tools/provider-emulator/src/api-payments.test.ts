import type { ProviderEmulator } from './index.js';
import { client, control, createPayment, nextKey, paymentBody, SHOP_A, SHOP_B, startEmulator } from './test-support.js';

let emulator: ProviderEmulator;

beforeAll(async () => {
  emulator = await startEmulator();
});
afterAll(() => emulator.stop());
beforeEach(() => emulator.control.reset());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function expectError(answer: { status: number; json: Record<string, unknown> }, status: number, code: string, parameter?: string) {
  expect(answer.status).toBe(status);
  expect(answer.json).toMatchObject({ type: 'error', code });
  expect(answer.json.id).toEqual(expect.stringMatching(UUID));
  expect(typeof answer.json.description).toBe('string');
  if (parameter !== undefined) expect(answer.json.parameter).toBe(parameter);
}

describe('authentication', () => {
  it('rejects a request without credentials', async () => {
    const response = await fetch(`${emulator.apiUrl}/payments/x`);
    const json = (await response.json()) as Record<string, unknown>;
    expectError({ status: response.status, json }, 401, 'invalid_credentials', 'Authorization');
  });

  it('rejects a wrong secret key and an unknown shop', async () => {
    expectError(await client(emulator, { shopId: 'shop-a', secretKey: 'nope' }).get('/payments/x'), 401, 'invalid_credentials');
    expectError(await client(emulator, { shopId: 'ghost', secretKey: 'secret-a' }).get('/payments/x'), 401, 'invalid_credentials');
    expectError(
      await client(emulator, { shopId: 'shop-a', secretKey: 'nope' }).post('/payments', paymentBody()),
      401,
      'invalid_credentials',
    );
  });
});

describe('idempotence', () => {
  it('requires Idempotence-Key on POST', async () => {
    expectError(await client(emulator).post('/payments', paymentBody(), null), 400, 'invalid_request', 'Idempotence-Key');
  });

  it('rejects a key longer than 64 characters and accepts 64', async () => {
    expectError(await client(emulator).post('/payments', paymentBody(), 'k'.repeat(65)), 400, 'invalid_request', 'Idempotence-Key');
    expect((await client(emulator).post('/payments', paymentBody(), 'k'.repeat(64))).status).toBe(200);
  });

  it('replays the stored response for the same key and body', async () => {
    const key = nextKey();
    const first = await client(emulator).post('/payments', paymentBody(), key);
    const reordered = JSON.stringify({ ...paymentBody(), amount: { currency: 'RUB', value: '100.00' } }, null, 2);
    const second = await client(emulator).post('/payments', reordered, key);
    expect(second).toEqual(first);
    expect(emulator.control.payments()).toHaveLength(1);
    expect(emulator.control.requests().map((r) => r.replayed)).toEqual([false, true]);
  });

  it('replays a stored 400 too', async () => {
    const key = nextKey();
    const body = paymentBody({ amount: { value: '1.005', currency: 'RUB' } });
    const first = await client(emulator).post('/payments', body, key);
    const second = await client(emulator).post('/payments', body, key);
    expect(second.status).toBe(400);
    expect(second.json).toEqual(first.json);
  });

  it('rejects the same key with another body', async () => {
    const key = nextKey();
    await client(emulator).post('/payments', paymentBody(), key);
    const other = await client(emulator).post('/payments', paymentBody({ description: 'Order 2' }), key);
    expectError(other, 400, 'invalid_request', 'Idempotence-Key');
    expect(emulator.control.payments()).toHaveLength(1);
  });

  it('scopes keys per shop', async () => {
    const key = nextKey();
    const a = await client(emulator, SHOP_A).post('/payments', paymentBody(), key);
    const b = await client(emulator, SHOP_B).post('/payments', paymentBody({ description: 'other' }), key);
    expect(b.status).toBe(200);
    expect(b.json.id).not.toBe(a.json.id);
  });
});

describe('POST /v3/payments validation', () => {
  it.each([
    [100, 'a JSON number (the reference types value as a string)'],
    ['100.000', 'three decimals'],
    ['100.001', 'a third decimal that is not zero'],
    ['0.00', 'zero'],
    ['0', 'zero without decimals'],
    ['-1.00', 'negative'],
    ['-1', 'negative whole units'],
    ['1e2', 'exponent'],
    ['1,00', 'a comma'],
    ['abc', 'not a number'],
    ['', 'empty'],
    [null, 'null'],
  ])('rejects amount.value %p (%s) with an invalid_request naming amount.value', async (value, _why) => {
    const answer = await client(emulator).post('/payments', paymentBody({ amount: { value, currency: 'RUB' } }));
    expectError(answer, 400, 'invalid_request', 'amount.value');
    expect(emulator.control.payments()).toHaveLength(0);
  });

  it.each([
    ['100', '100.00'],
    ['100.0', '100.00'],
    ['100.00', '100.00'],
    ['0.5', '0.50'],
    ['99.99', '99.99'],
  ])('accepts amount.value %p as YooKassa does and answers it as %p', async (value, answered) => {
    const answer = await client(emulator).post('/payments', paymentBody({ amount: { value, currency: 'RUB' } }));
    expect(answer.status).toBe(200);
    expect(answer.json.amount).toEqual({ value: answered, currency: 'RUB' });
  });

  it('rejects a missing amount, a bad currency and a missing return_url', async () => {
    const { amount: _a, ...noAmount } = paymentBody();
    expectError(await client(emulator).post('/payments', noAmount), 400, 'invalid_request', 'amount');
    expectError(
      await client(emulator).post('/payments', paymentBody({ amount: { value: '1.00', currency: 'rub' } })),
      400,
      'invalid_request',
      'amount.currency',
    );
    expectError(
      await client(emulator).post('/payments', paymentBody({ confirmation: { type: 'redirect' } })),
      400,
      'invalid_request',
      'confirmation.return_url',
    );
  });

  it('rejects a body that is not JSON, and a non-JSON content type with 415', async () => {
    expectError(await client(emulator).post('/payments', '{nope'), 400, 'invalid_request');
    const answer = await client(emulator).post('/payments', JSON.stringify(paymentBody()), nextKey(), { 'content-type': 'text/plain' });
    expect(answer.status).toBe(415);
  });

  it('validates metadata', async () => {
    expectError(await client(emulator).post('/payments', paymentBody({ metadata: { n: 1 } })), 400, 'invalid_request', 'metadata.n');
  });
});

describe('create and get payments', () => {
  it('creates a pending payment as YooKassa does', async () => {
    const answer = await client(emulator).post('/payments', paymentBody({ metadata: { orderId: '42' } }));
    expect(answer.status).toBe(200);
    const payment = answer.json;
    expect(payment).toMatchObject({
      status: 'pending',
      paid: false,
      amount: { value: '100.00', currency: 'RUB' },
      description: 'Order 1',
      recipient: { account_id: 'shop-a', gateway_id: expect.any(String) as unknown },
      confirmation: { type: 'redirect', return_url: 'https://example.test/return' },
      test: true,
      refundable: false,
      metadata: { orderId: '42' },
    });
    expect(payment.id).toEqual(expect.stringMatching(/^[0-9a-f]{8}-000f-5000-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/));
    expect(new Date(String(payment.created_at)).toISOString()).toBe(payment.created_at);
    const confirmation = payment.confirmation as { confirmation_url: string };
    expect(confirmation.confirmation_url).toBe(`${emulator.url}/checkout/payments/v2/contract?orderId=${String(payment.id)}`);
    expect(payment).not.toHaveProperty('income_amount');

    const read = await client(emulator).get(`/payments/${String(payment.id)}`);
    expect(read).toEqual({ status: 200, json: payment });
  });

  it('takes the test flag from the shop', async () => {
    const live = await client(emulator, SHOP_B).post('/payments', paymentBody());
    expect(live.json).toMatchObject({ test: false, recipient: { account_id: 'shop-b' } });
  });

  it("hides another shop's payment and unknown ids behind 404", async () => {
    const id = await createPayment(emulator);
    expectError(await client(emulator, SHOP_B).get(`/payments/${id}`), 404, 'not_found');
    expectError(await client(emulator).get('/payments/2c79d5a4-000f-5000-9000-1f2b3a4c5d6e'), 404, 'not_found');
    expectError(await client(emulator, SHOP_B).post(`/payments/${id}/cancel`, {}), 404, 'not_found');
  });

  it('answers unknown API paths with 404 and a wrong method with 405', async () => {
    expectError(await client(emulator).get('/nothing'), 404, 'not_found');
    expect((await client(emulator).get('/payments/x/capture')).status).toBe(405);
  });
});

describe('receipts', () => {
  const receipt = {
    customer: { email: 'buyer@example.test' },
    items: [
      { description: 'Hint pack', quantity: '2.00', amount: { value: '30.00', currency: 'RUB' }, vat_code: 1 },
      { description: 'Skin', quantity: 1, amount: { value: '40.00', currency: 'RUB' }, vat_code: 1 },
    ],
  };

  it('stores the receipt as sent for tests to read back', async () => {
    const id = await createPayment(emulator, { receipt });
    const payment = emulator.control.payment(id);
    expect(payment.receipt).toEqual(receipt);
    expect(payment.payment.receipt_registration).toBe('pending');
    const overHttp = await control(emulator, `/payments/${id}`, undefined, 'GET');
    expect(overHttp.json.receipt).toEqual(receipt);
  });

  it('rejects a receipt without email or phone, without items, or not adding up', async () => {
    const post = (r: unknown) => client(emulator).post('/payments', paymentBody({ receipt: r }));
    expectError(await post({ ...receipt, customer: {} }), 400, 'invalid_request', 'receipt.customer');
    expectError(await post({ ...receipt, items: [] }), 400, 'invalid_request', 'receipt.items');
    const [first] = receipt.items;
    expectError(
      await post({ ...receipt, items: [{ ...first, vat_code: undefined }] }),
      400,
      'invalid_request',
      'receipt.items[0].vat_code',
    );
    expectError(await post({ ...receipt, items: [first] }), 400, 'invalid_request', 'receipt.items');
    expect((await post({ customer: { phone: '79001234567' }, items: receipt.items })).status).toBe(200);
  });
});

describe('two-stage payments', () => {
  it('waits for capture, then captures part of the amount', async () => {
    const id = await createPayment(emulator, { capture: false });
    const { payment } = await emulator.control.succeedPayment(id);
    expect(payment).toMatchObject({ status: 'waiting_for_capture', paid: true });
    expect(payment.expires_at).toBeDefined();
    const captured = await client(emulator).post(`/payments/${id}/capture`, { amount: { value: '60.00', currency: 'RUB' } });
    expect(captured.json).toMatchObject({
      status: 'succeeded',
      paid: true,
      amount: { value: '60.00', currency: 'RUB' },
      income_amount: { value: '57.90', currency: 'RUB' },
      refundable: true,
    });
    expect(captured.json).not.toHaveProperty('expires_at');
  });

  it('cancels a payment waiting for capture as the merchant', async () => {
    const id = await createPayment(emulator, { capture: false });
    await emulator.control.succeedPayment(id);
    const canceled = await client(emulator).post(`/payments/${id}/cancel`, {});
    expect(canceled.json).toMatchObject({
      status: 'canceled',
      paid: false,
      cancellation_details: { party: 'merchant', reason: 'canceled_by_merchant' },
    });
  });

  it('refuses to capture or cancel a payment that is not waiting for capture', async () => {
    const id = await createPayment(emulator);
    expectError(await client(emulator).post(`/payments/${id}/cancel`, {}), 400, 'invalid_request');
    expectError(await client(emulator).post(`/payments/${id}/capture`, {}), 400, 'invalid_request');
  });

  it('refuses to capture more than authorised', async () => {
    const id = await createPayment(emulator, { capture: false });
    await emulator.control.succeedPayment(id);
    const answer = await client(emulator).post(`/payments/${id}/capture`, { amount: { value: '100.01', currency: 'RUB' } });
    expectError(answer, 400, 'invalid_request', 'amount.value');
  });
});
