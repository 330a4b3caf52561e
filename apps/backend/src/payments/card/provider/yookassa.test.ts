import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { startProviderEmulator, type ProviderEmulator } from '@wordgame/provider-emulator';
import { formatAmount, parseAmount } from './money.js';
import { ProviderError, type Shop } from './types.js';
import { YooKassaProvider } from './yookassa.js';

const testShop: Shop = { id: 'shop-test', secretKey: 'key-test', test: true };
const liveShop: Shop = { id: 'shop-live', secretKey: 'key-live', test: false };

describe('amounts in minor units', () => {
  it('formats and parses two-decimal strings without floats, round-tripping any amount', () => {
    expect(formatAmount(0n, 'RUB')).toBe('0.00');
    expect(formatAmount(5n, 'RUB')).toBe('0.05');
    expect(formatAmount(12345n, 'RUB')).toBe('123.45');
    expect(parseAmount('100', 'RUB')).toBe(10000n);
    expect(parseAmount('100.0', 'RUB')).toBe(10000n);
    expect(parseAmount('100.00', 'RUB')).toBe(10000n);
    expect(parseAmount('100.5', 'RUB')).toBe(10050n);
    expect(parseAmount('0.5', 'RUB')).toBe(50n);
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), (units) =>
        ['', '.0', '.00'].every((tail) => parseAmount(`${units.toString()}${tail}`, 'RUB') === units * 100n),
      ),
    );
    fc.assert(fc.property(fc.bigInt({ min: 0n, max: 10n ** 17n }), (minor) => parseAmount(formatAmount(minor, 'RUB'), 'RUB') === minor));
  });

  it('refuses malformed values, extra decimals, negatives and unknown currencies', () => {
    for (const bad of ['', '1.005', '1.000', '-1.00', '+1.00', '1e3', '1,00', ' 1.00', '1.', '.5', 'NaN', 'Infinity'])
      expect(() => parseAmount(bad, 'RUB')).toThrow(RangeError);
    expect(() => formatAmount(-1n, 'RUB')).toThrow(RangeError);
    expect(() => formatAmount(1n, 'XTR')).toThrow(/unsupported currency/);
  });
});

describe('YooKassaProvider against the provider emulator', () => {
  let emulator: ProviderEmulator;
  let provider: YooKassaProvider;

  beforeAll(async () => {
    emulator = await startProviderEmulator({
      shops: [
        { shopId: testShop.id, secretKey: testShop.secretKey, test: true },
        { shopId: liveShop.id, secretKey: liveShop.secretKey, test: false },
      ],
    });
    provider = new YooKassaProvider({ apiUrl: emulator.apiUrl, timeoutMs: 2_000 });
  });
  afterAll(() => emulator.stop());
  beforeEach(() => emulator.control.reset());

  const input = (orderId: string) => ({
    amountMinor: 19900n,
    currency: 'RUB',
    description: 'Chips 500',
    returnUrl: 'http://127.0.0.1/return',
    metadata: { order_id: orderId },
  });

  it('creates a single-stage redirect payment keyed by the order id, and re-reads it', async () => {
    const created = await provider.createPayment(testShop, input('order-1'), 'order-1');
    expect(created).toMatchObject({
      status: 'pending',
      amountMinor: 19900n,
      currency: 'RUB',
      test: true,
      metadata: { order_id: 'order-1' },
    });
    expect(created.confirmationUrl).toMatch(/^http/);
    expect(emulator.control.payment(created.id).capture).toBe(true);

    const again = await provider.createPayment(testShop, input('order-1'), 'order-1');
    expect(again.id).toBe(created.id);
    expect(emulator.control.payments()).toHaveLength(1);

    await emulator.control.succeedPayment(created.id);
    expect(await provider.getPayment(testShop, created.id)).toMatchObject({ status: 'succeeded', paid: true, amountMinor: 19900n });
  });

  it("reports each shop's test flag and keeps shops apart", async () => {
    const live = await provider.createPayment(liveShop, input('order-2'), 'order-2');
    expect(live.test).toBe(false);
    await expect(provider.getPayment(testShop, live.id)).rejects.toMatchObject({ failure: 'not_found' });
  });

  it('sends an itemised receipt only when asked', async () => {
    const plain = await provider.createPayment(testShop, input('order-3'), 'order-3');
    expect(emulator.control.payment(plain.id).receipt).toBeFalsy();
    const receipt = { email: 'a@example.org', vatCode: 1, items: [{ description: 'Chips 500', amountMinor: 19900n, currency: 'RUB' }] };
    const withReceipt = await provider.createPayment(testShop, { ...input('order-4'), receipt }, 'order-4');
    expect(emulator.control.payment(withReceipt.id).receipt).toMatchObject({
      customer: { email: 'a@example.org' },
      items: [{ vat_code: 1, amount: { value: '199.00' } }],
    });
  });

  it('reads cancellation details of a canceled payment', async () => {
    const p = await provider.createPayment(testShop, input('order-5'), 'order-5');
    await emulator.control.cancelPayment(p.id, { party: 'payment_network', reason: 'insufficient_funds' });
    expect(await provider.getPayment(testShop, p.id)).toMatchObject({
      status: 'canceled',
      cancellation: { party: 'payment_network', reason: 'insufficient_funds' },
    });
  });

  it('creates refunds idempotently and reads their outcome', async () => {
    const p = await provider.createPayment(testShop, input('order-6'), 'order-6');
    await emulator.control.succeedPayment(p.id);
    emulator.control.setRefundOutcome('pending', { times: 1 });
    const refund = await provider.createRefund(testShop, { paymentId: p.id, amountMinor: 19900n, currency: 'RUB' }, 'refund-order-6');
    expect(refund).toMatchObject({ paymentId: p.id, status: 'pending', amountMinor: 19900n });
    const same = await provider.createRefund(testShop, { paymentId: p.id, amountMinor: 19900n, currency: 'RUB' }, 'refund-order-6');
    expect(same.id).toBe(refund.id);
    await emulator.control.settleRefund(refund.id, 'succeeded');
    expect(await provider.getRefund(testShop, refund.id)).toMatchObject({ status: 'succeeded' });
    expect((await provider.getPayment(testShop, p.id)).refundedMinor).toBe(19900n);
  });

  it('classifies failures: 500 and timeouts are unavailable, 4xx rejected, wrong credentials rejected', async () => {
    emulator.control.addFault({ method: 'POST', pathPrefix: '/v3/refunds', status: 500, times: 1 });
    await expect(provider.createRefund(testShop, { paymentId: 'x', amountMinor: 1n, currency: 'RUB' }, 'k1')).rejects.toMatchObject({
      failure: 'unavailable',
      status: 500,
    });
    emulator.control.addFault({ pathPrefix: '/v3/payments', status: 'timeout', delayMs: 5_000, times: 1 });
    await expect(provider.getPayment(testShop, 'anything')).rejects.toMatchObject({ failure: 'unavailable' });
    await expect(provider.createPayment(testShop, { ...input('o'), amountMinor: 0n }, 'k2')).rejects.toMatchObject({
      failure: 'rejected',
      status: 400,
    });
    const err = await provider.getPayment({ ...testShop, secretKey: 'wrong' }, 'x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ failure: 'rejected', status: 401 });
    expect(String((err as Error).message)).not.toContain('wrong');
  });
});

describe('YooKassaProvider reading amounts as YooKassa spells them', () => {
  let server: Server;
  let answer: Record<string, unknown>;
  let provider: YooKassaProvider;

  beforeAll(async () => {
    server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    provider = new YooKassaProvider({ apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v3`, timeoutMs: 2_000 });
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const payment = (value: string, refunded?: string) => ({
    id: 'p-1',
    status: 'succeeded',
    paid: true,
    amount: { value, currency: 'RUB' },
    ...(refunded === undefined ? {} : { refunded_amount: { value: refunded, currency: 'RUB' } }),
    test: true,
    metadata: {},
  });

  it.each([
    ['199', 19900n],
    ['199.0', 19900n],
    ['199.00', 19900n],
    ['199.5', 19950n],
  ])('reads a payment amount of %p exactly', async (value, minor) => {
    answer = payment(value, value);
    expect(await provider.getPayment(testShop, 'p-1')).toMatchObject({ amountMinor: minor, refundedMinor: minor });
  });

  it('reads a refund amount in any of those spellings', async () => {
    answer = { id: 'r-1', payment_id: 'p-1', status: 'succeeded', amount: { value: '10.5', currency: 'RUB' } };
    expect(await provider.getRefund(testShop, 'r-1')).toMatchObject({ amountMinor: 1050n });
  });

  it.each(['1.005', '-1.00', '1e3', 'ten'])('treats an answer with amount %p as unusable (unavailable), not a crash', async (value) => {
    answer = payment(value);
    const err = await provider.getPayment(testShop, 'p-1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ failure: 'unavailable', operation: 'read payment' });
    answer = { id: 'r-1', payment_id: 'p-1', status: 'succeeded', amount: { value, currency: 'RUB' } };
    await expect(provider.getRefund(testShop, 'r-1')).rejects.toMatchObject({ failure: 'unavailable', operation: 'read refund' });
  });
});
