import type { Client } from '@connectrpc/connect';
import { backendApi, encodeTable, fb, gatewayApi } from '@wordgame/contracts';
import { upsertProduct } from '../src/catalog/index.js';
import { auditLedger } from '../src/ledger/audit.js';
import { as, failure, startHarness, type Harness } from './support/harness.js';
import { readWallet } from './support/wallet.js';
import { decodeTable } from '@wordgame/contracts';
import {
  createOrder,
  deliverInvoices,
  forward,
  forwardRefund,
  refund,
  startBotCommandServer,
  telegramAccount,
  type BotCommandServer,
} from './payments-support.js';
import { editSubscription, listSubscriptions, passProduct, PERIOD_S, subscriptionFigures, unixIn } from './subscriptions-support.js';

describe('stars subscriptions (the monthly pass) on PostgreSQL', () => {
  let bot: BotCommandServer;
  let h: Harness;
  let payments: Client<typeof backendApi.PaymentsService>;
  let intake: Client<typeof backendApi.BotIntakeService>;
  let subs: Client<typeof backendApi.SubscriptionService>;
  let wallet: Client<typeof backendApi.WalletService>;
  let pass: bigint;
  let user = 5000;

  beforeAll(async () => {
    bot = await startBotCommandServer();
    h = await startHarness({ GATEWAY_INTERNAL_URL: bot.url, REAPER_INTERVAL_MS: '0' });
    payments = h.client(backendApi.PaymentsService);
    intake = h.client(backendApi.BotIntakeService);
    subs = h.client(backendApi.SubscriptionService);
    wallet = h.client(backendApi.WalletService);
    pass = await passProduct(h.database.db, 100n, 5n);
  });
  afterAll(async () => {
    await h.stop();
    await bot.stop();
  });
  beforeEach(() => {
    bot.respond = deliverInvoices;
  });
  afterEach(async () => {
    expect((await auditLedger(h.database.db)).problems).toEqual([]);
  });

  /** A telegram account with a pass order; answers the account, its platform user id and the first order. */
  async function subscriber() {
    user += 1;
    const accountId = await telegramAccount(h.database.db, String(user));
    const order = await createOrder(payments, accountId, 'telegram', pass, 'stars');
    return { accountId, payer: BigInt(user), orderId: order.orderId };
  }

  const noAdsUntil = async (accountId: bigint) => {
    const res = await wallet.getWallet({ body: encodeTable((b) => fb.WalletQuery.createWalletQuery(b)) }, as(accountId, 'telegram'));
    const view = decodeTable(res.body, (bb) => fb.WalletView.getRootAsWalletView(bb), readWallet);
    return view.benefits.find((x) => x.origin === 'telegram');
  };

  it('sends the subscription period with the invoice and refuses a card or chips purchase of a pass', async () => {
    const { accountId, orderId } = await subscriber();
    const sent = bot.commands.at(-1);
    if (sent?.payload.case !== 'createInvoice') throw new Error('expected create_invoice');
    expect(sent.payload.value).toMatchObject({ payload: orderId, amount: 100n, subscriptionPeriod: BigInt(PERIOD_S) });
    const direct = await telegramAccount(h.database.db, 'direct-1', { address: 'pass@example.com', confirmed: true });
    expect(await failure(createOrder(payments, direct, 'direct;web', pass, 'card'))).toEqual({
      code: 9,
      errorCode: 'subscription_stars_only',
    });
    expect(
      await failure(
        wallet.buy({ body: encodeTable((b) => fb.WalletBuy.createWalletBuy(b, pass, b.createString('k1'))) }, as(accountId, 'telegram')),
      ),
    ).toMatchObject({
      errorCode: 'not_sold_for_chips',
    });
  });

  it('credits the first payment with the pass to the expiration date, then two renewals once each', async () => {
    const { accountId, payer, orderId } = await subscriber();
    const first = unixIn(30);
    expect(await forward(intake, orderId, 'sub-a-1', 100n, payer, { first: true, expiresUnix: first })).toBe(true);
    let [s] = await listSubscriptions(subs, accountId);
    expect(s).toMatchObject({ state: 'active', paidUntilUnix: first, periods: 1, amount: 100n, title: 'Monthly pass' });
    expect((await noAdsUntil(accountId))?.until).toBe(first);
    expect((await noAdsUntil(accountId))?.hints).toBe(5n);
    // the first charge delivered again credits nothing more and opens no renewal
    expect(await forward(intake, orderId, 'sub-a-1', 100n, payer, { first: true, expiresUnix: first })).toBe(true);
    expect(await listSubscriptions(subs, accountId)).toMatchObject([{ periods: 1, paidUntilUnix: first }]);
    expect((await noAdsUntil(accountId))?.hints).toBe(5n);

    const second = first + BigInt(PERIOD_S);
    const third = second + BigInt(PERIOD_S);
    expect(await forward(intake, orderId, 'sub-a-2', 100n, payer, { first: false, expiresUnix: second })).toBe(true);
    expect(await forward(intake, orderId, 'sub-a-3', 100n, payer, { first: false, expiresUnix: third })).toBe(true);
    // duplicate deliveries of both renewals credit nothing more
    expect(await forward(intake, orderId, 'sub-a-2', 100n, payer, { first: false, expiresUnix: second })).toBe(true);
    expect(await forward(intake, orderId, 'sub-a-3', 100n, payer, { first: false, expiresUnix: third })).toBe(true);
    [s] = await listSubscriptions(subs, accountId);
    expect(s).toMatchObject({ state: 'active', paidUntilUnix: third, periods: 3 });
    const w = await noAdsUntil(accountId);
    expect(w).toMatchObject({ until: third, hints: 15n });
    const orders = await h.database.db
      .selectFrom('orders')
      .select(['id', 'state', 'platform_charge_id'])
      .where('account_id', '=', accountId)
      .orderBy('created_at')
      .execute();
    expect(orders.map((o) => [o.state, o.platform_charge_id])).toEqual([
      ['paid', 'sub-a-1'],
      ['paid', 'sub-a-2'],
      ['paid', 'sub-a-3'],
    ]);
    const purchases = await h.database.db
      .selectFrom('ledger_operations')
      .select(['money_minor', 'pass_until'])
      .where('account_id', '=', accountId)
      .where('kind', '=', 'purchase')
      .execute();
    expect(purchases.map((p) => p.money_minor)).toEqual([100n, 100n, 100n]);
    const metrics = await (await fetch(h.metricsUrl)).text();
    expect(Number(/backend_subscription_charges_total\{kind="renewal"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThanOrEqual(2);
  });

  it('a late renewal still credits, and one of an earlier period extends nothing', async () => {
    const { accountId, payer, orderId } = await subscriber();
    // the first period already ended when its payment is forwarded: the pass is expired
    const lapsed = unixIn(-1);
    expect(await forward(intake, orderId, 'sub-b-1', 100n, payer, { first: true, expiresUnix: lapsed })).toBe(true);
    expect((await listSubscriptions(subs, accountId))[0]?.state).toBe('expired');
    const next = lapsed + BigInt(PERIOD_S);
    expect(await forward(intake, orderId, 'sub-b-3', 100n, payer, { first: false, expiresUnix: next + BigInt(PERIOD_S) })).toBe(true);
    expect(await forward(intake, orderId, 'sub-b-2', 100n, payer, { first: false, expiresUnix: next })).toBe(true);
    const [s] = await listSubscriptions(subs, accountId);
    expect(s).toMatchObject({ state: 'active', paidUntilUnix: next + BigInt(PERIOD_S), periods: 3 });
  });

  it('records a renewal for a subscription we have no record of, or of another amount, as unmatched', async () => {
    const { payer, orderId } = await subscriber();
    expect(await forward(intake, orderId, 'sub-c-1', 100n, payer, { first: true, expiresUnix: unixIn(30) })).toBe(true);
    expect(await forward(intake, orderId, 'sub-c-2', 90n, payer, { first: false, expiresUnix: unixIn(60) })).toBe(false);
    const unknown = '00000000-0000-4000-8000-00000000abcd';
    expect(await forward(intake, unknown, 'sub-c-3', 100n, payer, { first: false, expiresUnix: unixIn(60) })).toBe(false);
    const rows = await h.database.db
      .selectFrom('unmatched_payments')
      .select(['platform_charge_id', 'reason'])
      .where('platform_charge_id', 'in', ['sub-c-2', 'sub-c-3'])
      .orderBy('platform_charge_id')
      .execute();
    expect(rows).toEqual([
      { platform_charge_id: 'sub-c-2', reason: 'amount_mismatch' },
      { platform_charge_id: 'sub-c-3', reason: 'unknown_subscription' },
    ]);
    // the same charge again is a replay of its record
    expect(await forward(intake, unknown, 'sub-c-3', 100n, payer, { first: false, expiresUnix: unixIn(60) })).toBe(false);
  });

  it('records a renewal naming a one-time order (pending or paid) as unknown_subscription, crediting nothing', async () => {
    user += 1;
    const payer = BigInt(user);
    const accountId = await telegramAccount(h.database.db, String(user));
    const { id: oneTime } = await upsertProduct(
      h.database.db,
      {
        id: 0n,
        title: 'Hint pack',
        active: true,
        atoms: [{ kind: 'hints', quantity: 3n }],
        prices: [{ method: 'xtr', amount: 40n, currency: 'XTR' }],
      },
      new Date(),
    );
    const { orderId } = await createOrder(payments, accountId, 'telegram', oneTime, 'stars');
    const state = async () =>
      (await h.database.db.selectFrom('orders').select('state').where('id', '=', orderId).executeTakeFirstOrThrow()).state;
    expect(await forward(intake, orderId, 'sub-g-1', 40n, payer, { first: false, expiresUnix: unixIn(30) })).toBe(false);
    expect(await state()).toBe('pending');
    // its own one-time charge still credits it; a renewal naming it afterwards is no subscription's either
    expect(await forward(intake, orderId, 'one-g-1', 40n, payer)).toBe(true);
    expect(await forward(intake, orderId, 'sub-g-2', 40n, payer, { first: false, expiresUnix: unixIn(60) })).toBe(false);
    const rows = await h.database.db
      .selectFrom('unmatched_payments')
      .select(['platform_charge_id', 'reason'])
      .where('platform_charge_id', 'in', ['sub-g-1', 'sub-g-2'])
      .orderBy('platform_charge_id')
      .execute();
    expect(rows).toEqual([
      { platform_charge_id: 'sub-g-1', reason: 'unknown_subscription' },
      { platform_charge_id: 'sub-g-2', reason: 'unknown_subscription' },
    ]);
    expect(await listSubscriptions(subs, accountId)).toEqual([]);
  });

  it('a refund reverses the period it paid for; with none left the pass is gone', async () => {
    const { accountId, payer, orderId } = await subscriber();
    const first = unixIn(30);
    const second = first + BigInt(PERIOD_S);
    await forward(intake, orderId, 'sub-d-1', 100n, payer, { first: true, expiresUnix: first });
    await forward(intake, orderId, 'sub-d-2', 100n, payer, { first: false, expiresUnix: second });
    const renewal = await h.database.db
      .selectFrom('orders')
      .select('id')
      .where('platform_charge_id', '=', 'sub-d-2')
      .executeTakeFirstOrThrow();
    expect(await refund(h.client(backendApi.RefundService), renewal.id)).toMatchObject({ status: 'succeeded' });
    let [s] = await listSubscriptions(subs, accountId);
    expect(s).toMatchObject({ state: 'active', paidUntilUnix: first, periods: 1 });
    expect((await noAdsUntil(accountId))?.until).toBe(first);
    // the platform refunds the first charge itself (ForwardRefund)
    expect(await forwardRefund(intake, orderId, 'sub-d-1', 100n, payer)).toBe(true);
    [s] = await listSubscriptions(subs, accountId);
    expect(s).toMatchObject({ state: 'expired', periods: 0 });
    expect((await noAdsUntil(accountId))?.until ?? 0n).toBe(0n);
  });

  it('cancels and re-enables through the bot, recording the state only when delivered', async () => {
    const { accountId, payer, orderId } = await subscriber();
    const first = unixIn(30);
    await forward(intake, orderId, 'sub-e-1', 100n, payer, { first: true, expiresUnix: first });
    await forward(intake, orderId, 'sub-e-2', 100n, payer, { first: false, expiresUnix: first + BigInt(PERIOD_S) });
    const [s] = await listSubscriptions(subs, accountId);
    if (!s) throw new Error('no subscription');

    bot.respond = () => ({ outcome: gatewayApi.Outcome.NO_BOT });
    expect(await failure(editSubscription(subs, accountId, s.id, true))).toMatchObject({ errorCode: 'bot_unavailable' });
    bot.respond = () => ({ outcome: gatewayApi.Outcome.FAILED, error: 'SUBSCRIPTION_NOT_FOUND' });
    expect(await failure(editSubscription(subs, accountId, s.id, true))).toMatchObject({ errorCode: 'bot_delivery_failed' });
    expect((await listSubscriptions(subs, accountId))[0]?.state).toBe('active');
    bot.respond = () => ({ outcome: gatewayApi.Outcome.FAILED, error: 'platform 400: Bad Request: SUBSCRIPTION_EXPIRED' });
    expect(await failure(editSubscription(subs, accountId, s.id, true))).toMatchObject({ errorCode: 'subscription_expired' });
    expect((await listSubscriptions(subs, accountId))[0]?.state).toBe('active');

    bot.respond = deliverInvoices;
    const cancelled = await editSubscription(subs, accountId, s.id, true);
    expect(cancelled).toMatchObject({ state: 'cancelled', paidUntilUnix: first + BigInt(PERIOD_S) });
    expect(cancelled.cancelledAtUnix).toBeGreaterThan(0n);
    const sent = bot.commands.at(-1);
    if (sent?.payload.case !== 'editStarSubscription') throw new Error('expected edit_star_subscription');
    expect(sent.payload.value).toMatchObject({ userId: payer, platformPaymentChargeId: 'sub-e-2', isCanceled: true });
    // cancelled still grants the pass to the end of its paid period
    expect((await noAdsUntil(accountId))?.until).toBe(first + BigInt(PERIOD_S));
    const sentBefore = bot.commands.length;
    expect(await editSubscription(subs, accountId, s.id, true)).toMatchObject({ state: 'cancelled' });
    expect(bot.commands.length).toBe(sentBefore);

    expect(await editSubscription(subs, accountId, s.id, false)).toMatchObject({ state: 'active', cancelledAtUnix: 0n });
    const metrics = await (await fetch(h.metricsUrl)).text();
    expect(metrics).toMatch(/backend_subscription_edits_total\{action="cancel",outcome="done"\} 1\b/);
    expect(metrics).toMatch(/backend_subscription_edits_total\{action="cancel",outcome="not_delivered"\} 1\b/);
    expect(metrics).toMatch(/backend_subscription_edits_total\{action="cancel",outcome="unchanged"\} 1\b/);
    const enabled = bot.commands.at(-1);
    if (enabled?.payload.case !== 'editStarSubscription') throw new Error('expected edit_star_subscription');
    expect(enabled.payload.value.isCanceled).toBe(false);

    const other = await telegramAccount(h.database.db, 'other-e');
    expect(await failure(editSubscription(subs, other, s.id, true))).toMatchObject({ errorCode: 'unknown_subscription' });
    expect(await failure(editSubscription(subs, accountId, s.id, true, 'none'))).toMatchObject({ errorCode: 'untrusted_session' });
  });

  it('refuses to edit an expired subscription', async () => {
    const { accountId, payer, orderId } = await subscriber();
    await forward(intake, orderId, 'sub-f-1', 100n, payer, { first: true, expiresUnix: unixIn(-2) });
    const [s] = await listSubscriptions(subs, accountId);
    if (!s) throw new Error('no subscription');
    expect(await failure(editSubscription(subs, accountId, s.id, false))).toMatchObject({ errorCode: 'subscription_expired' });
  });

  it('counts active subscriptions, renewals and cancellations per day for the console', async () => {
    const f = await subscriptionFigures(subs, 3);
    expect(f.days).toHaveLength(3);
    const today = f.days[0];
    expect(today?.day).toBe(new Date().toISOString().slice(0, 10));
    expect(f.active).toBeGreaterThanOrEqual(3n);
    expect(today?.renewals).toBeGreaterThanOrEqual(5n);
    expect(today?.started).toBeGreaterThanOrEqual(5n);
    expect(
      await failure(
        h
          .bareClient(backendApi.SubscriptionService)
          .getSubscriptionFigures({ body: encodeTable((b) => fb.SubscriptionFiguresQuery.createSubscriptionFiguresQuery(b, 3)) }),
      ),
    ).toMatchObject({
      errorCode: 'operator_session_invalid',
    });
  });
});

describe('cancelling and re-enabling a pass is rate-limited per account', () => {
  let bot: BotCommandServer;
  let h: Harness;

  beforeAll(async () => {
    bot = await startBotCommandServer();
    h = await startHarness({ GATEWAY_INTERNAL_URL: bot.url, REAPER_INTERVAL_MS: '0', SUBSCRIPTION_EDIT_MAX: '2' });
  });
  afterAll(async () => {
    await h.stop();
    await bot.stop();
  });

  it('refuses the third edit in an hour with rate_limited, before asking the bot', async () => {
    const pass = await passProduct(h.database.db, 100n, 0n);
    const accountId = await telegramAccount(h.database.db, '6001');
    const order = await createOrder(h.client(backendApi.PaymentsService), accountId, 'telegram', pass, 'stars');
    const intake = h.client(backendApi.BotIntakeService);
    expect(await forward(intake, order.orderId, 'rl-1', 100n, 6001n, { first: true, expiresUnix: unixIn(30) })).toBe(true);
    const subs = h.client(backendApi.SubscriptionService);
    const [s] = await listSubscriptions(subs, accountId);
    if (!s) throw new Error('no subscription');
    await editSubscription(subs, accountId, s.id, true);
    await editSubscription(subs, accountId, s.id, false);
    const sent = bot.commands.length;
    expect(await failure(editSubscription(subs, accountId, s.id, true))).toMatchObject({ errorCode: 'rate_limited' });
    expect(bot.commands.length).toBe(sent);
    expect((await listSubscriptions(subs, accountId))[0]?.state).toBe('active');
  });
});
