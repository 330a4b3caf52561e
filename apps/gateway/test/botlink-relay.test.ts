import { readFileSync } from 'node:fs';
import { Code, ConnectError, createClient, type Client } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { botlink } from '@wordgame/contracts';
import { startTestGateway, type TestGateway } from './support/botlink-gateway.js';
import { startStatusBackend } from './support/fake-backend.js';
import { startIntakeBackend } from './support/intake-backend.js';

function botClient(gw: TestGateway): Client<typeof botlink.BotLink> {
  return createClient(
    botlink.BotLink,
    createGrpcTransport({
      baseUrl: gw.urls.botlinkUrl,
      nodeOptions: { ca: readFileSync(gw.certs.ca.cert), cert: readFileSync(gw.certs.bot.cert), key: readFileSync(gw.certs.bot.key) },
    }),
  );
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err: unknown) => ConnectError.from(err),
  );

describe('BotLink unary RPCs proxied to the backend intake', () => {
  let backend: Awaited<ReturnType<typeof startIntakeBackend>>;
  let gw: TestGateway;
  let client: Client<typeof botlink.BotLink>;

  beforeAll(async () => {
    backend = await startIntakeBackend();
    gw = await startTestGateway({ BACKEND_URL: backend.url });
    client = botClient(gw);
  });
  afterAll(async () => {
    await gw.stop();
    await backend.close();
  });

  it('ResolveChatEligibility asks for the Telegram identity and returns the backend verdict', async () => {
    expect(await client.resolveChatEligibility({ externalId: '12345' })).toMatchObject({ registered: true, eligible: true });
    expect(await client.resolveChatEligibility({ externalId: 'muted' })).toMatchObject({ registered: true, eligible: false });
    expect(await client.resolveChatEligibility({ externalId: '404' })).toMatchObject({ registered: false, eligible: false });
    expect(backend.seen.eligibility[0]).toEqual({ platform: 'telegram', externalId: '12345' });
  });

  it('ValidatePreCheckout passes order, amount and currency and returns ok or the reason', async () => {
    expect(await client.validatePreCheckout({ orderId: 'order-1', amount: 50n, currency: 'XTR' })).toMatchObject({ ok: true, reason: '' });
    expect(await client.validatePreCheckout({ orderId: 'order-1', amount: 49n, currency: 'XTR' })).toMatchObject({
      ok: false,
      reason: 'amount changed',
    });
    expect(backend.seen.preCheckout.at(-1)).toEqual({ orderId: 'order-1', amount: 49n, currency: 'XTR' });
  });

  it('ForwardPayment carries the charge id and payer and returns credited', async () => {
    const payment = { orderId: 'order-1', platformPaymentChargeId: 'charge-9', amount: 50n, platformUserId: 9_007_199_254_740_993n };
    expect(await client.forwardPayment(payment)).toMatchObject({ credited: true });
    expect(await client.forwardPayment({ ...payment, orderId: 'unknown' })).toMatchObject({ credited: false });
    expect(backend.seen.payments[0]).toEqual({
      orderId: 'order-1',
      platformChargeId: 'charge-9',
      amount: 50n,
      userId: 9_007_199_254_740_993n,
      platform: 'telegram',
    });
  });

  it('ForwardRefund carries the refunded charge, amount, currency and payer and returns recorded', async () => {
    const refund = {
      orderId: 'order-1',
      platformPaymentChargeId: 'charge-10',
      amount: 50n,
      platformUserId: 9_007_199_254_740_993n,
      currency: 'XTR',
    };
    expect(await client.forwardRefund(refund)).toMatchObject({ recorded: true });
    expect(await client.forwardRefund({ ...refund, orderId: 'unknown' })).toMatchObject({ recorded: false });
    expect(backend.seen.refunds[0]).toEqual({
      orderId: 'order-1',
      platformChargeId: 'charge-10',
      amount: 50n,
      userId: 9_007_199_254_740_993n,
      currency: 'XTR',
      platform: 'telegram',
    });
  });

  it('refuses a refund without a charge id, in another currency or without an amount, without asking the backend', async () => {
    const asked = backend.seen.refunds.length;
    const refund = { orderId: 'o', platformPaymentChargeId: 'c', amount: 5n, platformUserId: 1n, currency: 'XTR' };
    for (const bad of [{ platformPaymentChargeId: '' }, { currency: 'USD' }, { amount: 0n }]) {
      expect((await failure(client.forwardRefund({ ...refund, ...bad })))?.code).toBe(Code.InvalidArgument);
    }
    expect(backend.seen.refunds.length).toBe(asked);
  });

  it('refuses empty identifiers without asking the backend', async () => {
    const asked = backend.seen.eligibility.length + backend.seen.payments.length + backend.seen.preCheckout.length;
    expect((await failure(client.resolveChatEligibility({ externalId: '' })))?.code).toBe(Code.InvalidArgument);
    expect((await failure(client.validatePreCheckout({ orderId: '', amount: 1n, currency: 'XTR' })))?.code).toBe(Code.InvalidArgument);
    expect((await failure(client.forwardPayment({ orderId: 'o', platformPaymentChargeId: '' })))?.code).toBe(Code.InvalidArgument);
    expect(backend.seen.eligibility.length + backend.seen.payments.length + backend.seen.preCheckout.length).toBe(asked);
  });
});

describe('BotLink unary RPCs when the backend cannot answer', () => {
  it('answers Unimplemented, saying so, while the backend has no intake service', async () => {
    const backend = await startStatusBackend(() => 'ok');
    const gw = await startTestGateway({ BACKEND_URL: backend.url });
    try {
      const client = botClient(gw);
      const eligibility = await failure(client.resolveChatEligibility({ externalId: '1' }));
      expect(eligibility?.code).toBe(Code.Unimplemented);
      expect(eligibility?.rawMessage).toBe('ResolveChatEligibility is not available on the backend yet');
      const preCheckout = await failure(client.validatePreCheckout({ orderId: 'o', amount: 1n, currency: 'XTR' }));
      expect(preCheckout?.rawMessage).toBe('ValidatePreCheckout is not available on the backend yet');
      const payment = await failure(client.forwardPayment({ orderId: 'o', platformPaymentChargeId: 'c', amount: 1n }));
      expect(payment?.code).toBe(Code.Unimplemented);
      expect(payment?.rawMessage).toBe('ForwardPayment is not available on the backend yet');
    } finally {
      await gw.stop();
      await backend.close();
    }
  });

  it('answers Unavailable when the backend is unreachable', async () => {
    const gw = await startTestGateway({ BACKEND_URL: 'http://127.0.0.1:1' });
    try {
      const err = await failure(botClient(gw).forwardPayment({ orderId: 'o', platformPaymentChargeId: 'c', amount: 1n }));
      expect(err?.code).toBe(Code.Unavailable);
      expect(err?.rawMessage).toBe('the backend is unavailable');
    } finally {
      await gw.stop();
    }
  });

  it('answers Internal without detail for an unexpected backend failure, and passes InvalidArgument through', async () => {
    const broken = await startIntakeBackend({ failWith: new Error('database password=hunter2 exploded') });
    const picky = await startIntakeBackend({ failWith: new ConnectError('order_id is not a uuid', Code.InvalidArgument) });
    const gwBroken = await startTestGateway({ BACKEND_URL: broken.url });
    const gwPicky = await startTestGateway({ BACKEND_URL: picky.url });
    try {
      const internal = await failure(botClient(gwBroken).validatePreCheckout({ orderId: 'o', amount: 1n, currency: 'XTR' }));
      expect(internal?.code).toBe(Code.Internal);
      expect(internal?.rawMessage).toBe('internal error');
      const invalid = await failure(botClient(gwPicky).validatePreCheckout({ orderId: 'o', amount: 1n, currency: 'XTR' }));
      expect(invalid?.code).toBe(Code.InvalidArgument);
      expect(invalid?.rawMessage).toBe('order_id is not a uuid');
    } finally {
      await gwBroken.stop();
      await gwPicky.stop();
      await broken.close();
      await picky.close();
    }
  });
});
