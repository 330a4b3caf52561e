import type { ProviderEmulator } from './index.js';
import { client, control, createPayment, SHOP_B, startEmulator, startReceiver } from './test-support.js';

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

type Listed = {
  type: string;
  items: Array<{ id: string; status: string; created_at: string; amount: { value: string; currency: string } }>;
  next_cursor?: string;
};

async function list(path: string, shop = client(emulator)): Promise<Listed> {
  const answer = await shop.get(path);
  expect(answer.status).toBe(200);
  return answer.json as unknown as Listed;
}

describe('GET /v3/payments and /v3/refunds', () => {
  it('pages the shop’s own payments newest first with next_cursor until the last page', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push(await createPayment(emulator));
    await createPayment(emulator, {}).then(() => undefined);
    await client(emulator, SHOP_B).post('/payments', {
      amount: { value: '1.00', currency: 'RUB' },
      capture: true,
      confirmation: { type: 'redirect', return_url: 'https://x.test/' },
    });
    const seen: string[] = [];
    let page = await list('/payments?limit=2');
    expect(page.type).toBe('list');
    seen.push(...page.items.map((p) => p.id));
    while (page.next_cursor) {
      page = await list(`/payments?limit=2&cursor=${encodeURIComponent(page.next_cursor)}`);
      seen.push(...page.items.map((p) => p.id));
    }
    expect(seen).toHaveLength(6);
    expect(new Set(seen).size).toBe(6);
    for (const id of ids) expect(seen).toContain(id);
    const created = seen.map((id) => emulator.control.payment(id).payment.created_at);
    expect([...created].sort().reverse()).toEqual(created);
  });

  it('filters by created_at bounds and status', async () => {
    const early = await createPayment(emulator);
    await new Promise((r) => setTimeout(r, 20));
    const from = new Date().toISOString();
    const late = await createPayment(emulator);
    await emulator.control.succeedPayment(late);
    expect((await list(`/payments?created_at.gte=${from}`)).items.map((p) => p.id)).toEqual([late]);
    expect((await list(`/payments?created_at.lt=${from}`)).items.map((p) => p.id)).toEqual([early]);
    expect((await list('/payments?status=succeeded')).items.map((p) => p.id)).toEqual([late]);
    expect((await list('/payments?status=pending')).items.map((p) => p.id)).toEqual([early]);
  });

  it('filters by captured_at bounds and payment_method, as the reference lists them', async () => {
    const pending = await createPayment(emulator);
    const first = await createPayment(emulator);
    await emulator.control.succeedPayment(first);
    await new Promise((r) => setTimeout(r, 20));
    const from = new Date().toISOString();
    const second = await createPayment(emulator);
    await emulator.control.succeedPayment(second);
    expect((await list(`/payments?captured_at.gte=${from}`)).items.map((p) => p.id)).toEqual([second]);
    expect((await list(`/payments?captured_at.lt=${from}`)).items.map((p) => p.id)).toEqual([first]);
    expect((await list('/payments?captured_at.gt=2000-01-01T00:00:00.000Z')).items.map((p) => p.id).sort()).toEqual([first, second].sort());
    expect((await list('/payments?payment_method=bank_card')).items.map((p) => p.id).sort()).toEqual([first, second].sort());
    expect((await list('/payments?payment_method=sbp')).items).toEqual([]);
    expect((await list('/payments')).items.map((p) => p.id)).toContain(pending);
  });

  it('rejects a bad limit, date, status or unknown parameter naming it', async () => {
    for (const [query, parameter] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['created_at.gte=yesterday', 'created_at.gte'],
      ['captured_at.lt=2024-13-01', 'captured_at.lt'],
      ['payment_method=Bank%20Card', 'payment_method'],
      ['status=paid', 'status'],
      ['cursor=%%%', 'cursor'],
      ['colour=red', 'colour'],
    ] as const) {
      const answer = await client(emulator).get(`/payments?${query}`);
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({ type: 'error', code: 'invalid_request', parameter });
    }
  });

  it('lists refunds with payment_id and status filters', async () => {
    const a = await createPayment(emulator);
    const b = await createPayment(emulator);
    await emulator.control.succeedPayment(a);
    await emulator.control.succeedPayment(b);
    const ra = emulator.control.createProviderRefund(a, '10.00');
    const rb = emulator.control.createProviderRefund(b);
    expect((await list('/refunds')).items.map((r) => r.id).sort()).toEqual([ra.id, rb.id].sort());
    expect((await list(`/refunds?payment_id=${a}`)).items.map((r) => r.id)).toEqual([ra.id]);
    expect((await list('/refunds?status=canceled')).items).toEqual([]);
    expect((await list('/refunds', client(emulator, SHOP_B))).items).toEqual([]);
  });
});

describe('discrepancy control', () => {
  it('creates an unknown succeeded payment, alters, refunds and removes without notifying', async () => {
    const unknown = await control(emulator, '/discrepancies/unknown-payment', {
      shopId: 'shop-a',
      amount: { value: '5.00', currency: 'RUB' },
    });
    expect(unknown.status).toBe(200);
    expect(unknown.json).toMatchObject({ status: 'succeeded', paid: true, amount: { value: '5.00', currency: 'RUB' } });
    const id = String(unknown.json['id']);
    expect((await control(emulator, `/payments/${id}/alter`, { value: '7.00', currency: 'USD' })).json).toMatchObject({
      amount: { value: '7.00', currency: 'USD' },
    });
    const refund = await control(emulator, `/payments/${id}/provider-refund`, { value: '2.00' });
    expect(refund.json).toMatchObject({ status: 'succeeded', payment_id: id, amount: { value: '2.00', currency: 'USD' } });
    expect(emulator.control.payment(id).payment.refunded_amount).toEqual({ value: '2.00', currency: 'USD' });
    expect((await control(emulator, `/refunds/${String(refund.json['id'])}`, undefined, 'DELETE')).status).toBe(200);
    expect(emulator.control.payment(id).payment.refunded_amount).toBeUndefined();
    expect((await control(emulator, `/payments/${id}`, undefined, 'DELETE')).status).toBe(200);
    expect((await client(emulator).get(`/payments/${id}`)).status).toBe(404);

    const pending = await createPayment(emulator);
    expect((await control(emulator, `/payments/${pending}/pay-quietly`)).json).toMatchObject({ payment: { status: 'succeeded' } });
    await emulator.control.flushNotifications();
    expect(receiver.received).toEqual([]);
    expect(
      (await control(emulator, '/discrepancies/unknown-payment', { shopId: 'nope', amount: { value: '5.00', currency: 'RUB' } })).status,
    ).toBe(404);
  });
});
