import type { ProviderEmulator } from './index.js';
import { client, control, createPayment, SHOP_A, SHOP_B, startEmulator, startReceiver } from './test-support.js';

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
  receiver.answerWith(200);
});

describe('notifications', () => {
  it('delivers payment.succeeded with the full settled payment', async () => {
    const id = await createPayment(emulator, { metadata: { orderId: '7' } });
    const { payment, notification } = await emulator.control.succeedPayment(id, { card: { last4: '1111' } });

    expect(payment).toMatchObject({
      status: 'succeeded',
      paid: true,
      refundable: true,
      income_amount: { value: '96.50', currency: 'RUB' },
      payment_method: { type: 'bank_card', card: { first6: '555555', last4: '1111' } },
    });
    expect(payment.captured_at).toBeDefined();
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]?.json).toEqual({ type: 'notification', event: 'payment.succeeded', object: payment });
    expect(notification).toMatchObject({ event: 'payment.succeeded', objectId: id, shopId: 'shop-a', url: receiver.url });
    expect(notification.attempts).toEqual([{ at: expect.any(String) as unknown, status: 200 }]);
    expect((await client(emulator).get(`/payments/${id}`)).json).toEqual(payment);
  });

  it('delivers payment.canceled with cancellation_details', async () => {
    const id = await createPayment(emulator);
    const { payment } = await emulator.control.cancelPayment(id, { party: 'payment_network', reason: 'insufficient_funds' });
    expect(payment).toMatchObject({
      status: 'canceled',
      paid: false,
      cancellation_details: { party: 'payment_network', reason: 'insufficient_funds' },
    });
    expect(receiver.received.map((r) => r.json?.event)).toEqual(['payment.canceled']);
    expect(receiver.received[0]?.json?.object).toEqual(payment);
  });

  it('cancels over the control API with validated details', async () => {
    const id = await createPayment(emulator);
    const bad = await control(emulator, `/payments/${id}/cancel`, { party: 'yoo_money', reason: 'bored' });
    expect(bad.status).toBe(400);
    const answer = await control(emulator, `/payments/${id}/cancel`, { party: 'yoo_money', reason: 'expired_on_confirmation' });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      payment: { status: 'canceled', cancellation_details: { party: 'yoo_money', reason: 'expired_on_confirmation' } },
      notification: { event: 'payment.canceled', attempts: [{ status: 200 }] },
    });
    expect((await control(emulator, `/payments/${id}/succeed`, {})).status).toBe(409);
  });

  it('records the status a failing receiver answered and redelivers on demand', async () => {
    receiver.answerWith(500);
    const id = await createPayment(emulator);
    const { notification } = await emulator.control.succeedPayment(id);
    expect(notification.attempts.map((a) => a.status)).toEqual([500]);

    receiver.answerWith(200);
    const again = await emulator.control.redeliver(notification.id);
    expect(again.attempts.map((a) => a.status)).toEqual([500, 200]);
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]?.body).toBe(receiver.received[0]?.body);
    await expect(emulator.control.redeliver('n999')).rejects.toThrow('no notification');
  });

  it('records an unreachable receiver as an attempt without a status', async () => {
    emulator.control.setWebhookUrl('http://127.0.0.1:1/webhook');
    const id = await createPayment(emulator);
    const { notification } = await emulator.control.succeedPayment(id);
    expect(notification.attempts).toHaveLength(1);
    expect(notification.attempts[0]?.status).toBeNull();
    expect(notification.attempts[0]?.error).toEqual(expect.any(String));
  });

  it('"loses" notifications while automatic sending is off, and sends them on demand', async () => {
    const auto = await control(emulator, '/notifications/auto', { enabled: false });
    expect(auto.status).toBe(200);
    const id = await createPayment(emulator);
    const { notification } = await emulator.control.succeedPayment(id);
    expect(notification).toMatchObject({ suppressed: true, attempts: [] });
    expect(receiver.received).toHaveLength(0);

    const sent = await control(emulator, '/notify', { event: 'payment.succeeded', objectId: id });
    expect(sent.status).toBe(200);
    expect(sent.json).toMatchObject({ event: 'payment.succeeded', forged: false, attempts: [{ status: 200 }] });
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]?.json).toMatchObject({ event: 'payment.succeeded', object: { id, status: 'succeeded' } });

    await emulator.control.redeliver(notification.id);
    expect(receiver.received).toHaveLength(2);
    expect((await control(emulator, '/notifications', undefined, 'GET')).json).toHaveLength(2);
  });

  it('sends a forged notification with an arbitrary body', async () => {
    const forged = '{"type":"notification","event":"payment.succeeded","object":{"id":"forged","status":"succeeded"}}';
    const answer = await control(emulator, '/notify', { rawBody: forged });
    expect(answer.json).toMatchObject({ forged: true, event: 'payment.succeeded', attempts: [{ status: 200 }] });
    expect(receiver.received[0]?.body).toBe(forged);

    await emulator.control.notify({ rawBody: 'not json at all' });
    expect(receiver.received[1]?.body).toBe('not json at all');
    await emulator.control.notify({ rawBody: { hello: 'world' } });
    expect(receiver.received[2]?.json).toEqual({ hello: 'world' });
  });

  it('rejects notify for unknown objects and events', async () => {
    expect((await control(emulator, '/notify', { event: 'payment.succeeded', objectId: 'nope' })).status).toBe(404);
    expect((await control(emulator, '/notify', { event: 'payment.exploded', objectId: 'x' })).status).toBe(400);
  });

  it('sends to a shop-specific webhook URL when one is set', async () => {
    const other = await startReceiver();
    try {
      await control(emulator, '/webhook', { url: other.url, shopId: SHOP_B.shopId });
      const answer = await client(emulator, SHOP_B).post('/payments', {
        amount: { value: '5.00', currency: 'RUB' },
        capture: true,
        confirmation: { type: 'redirect', return_url: 'https://example.test/r' },
      });
      await emulator.control.succeedPayment(String(answer.json.id));
      expect(other.received.map((r) => r.json?.event)).toEqual(['payment.succeeded']);
      expect(receiver.received).toHaveLength(0);
      await emulator.control.succeedPayment(await createPayment(emulator));
      expect(receiver.received.map((r) => r.json?.object?.recipient)).toEqual([
        { account_id: SHOP_A.shopId, gateway_id: expect.any(String) as unknown },
      ]);
    } finally {
      await other.close();
    }
  });

  it('records a notification without a URL when no webhook is configured', async () => {
    emulator.control.setWebhookUrl(null);
    const { notification } = await emulator.control.succeedPayment(await createPayment(emulator));
    expect(notification).toMatchObject({ url: null, attempts: [] });
  });

  it('notifies a capture done through the API once it is answered', async () => {
    const id = await createPayment(emulator, { capture: false });
    await emulator.control.succeedPayment(id);
    await client(emulator).post(`/payments/${id}/capture`, {});
    await emulator.control.flushNotifications();
    expect(receiver.received.map((r) => r.json?.event)).toEqual(['payment.waiting_for_capture', 'payment.succeeded']);
  });
});
