import { createLogger } from '@wordgame/logging';
import { auditLedger } from '../src/ledger/audit.js';
import { createOrder } from '../src/payments/orders/create.js';
import type { PaymentDeps } from '../src/payments/deps.js';
import { paymentDeps } from '../src/payments/module.js';
import { forwardPayment } from '../src/payments/stars/intake.js';
import { creditStarsCharge } from '../src/payments/stars/charges.js';
import { reconcileStars } from '../src/reconciliation/stars.js';
import { parseStarPage, type StarTransaction } from '../src/reconciliation/star-source.js';
import { startPropertyWorld, type PropertyWorld } from './support/property-world.js';
import { telegramAccount } from './payments-support.js';
import { passProduct, PERIOD_S } from './subscriptions-support.js';

/**
 * Stars reconciliation over a monthly pass's charges: each renewal in the platform's list (the
 * first order's payload, its own charge id and subscription period) is matched to the renewal order
 * its charge credited, and a renewal the platform took that was never forwarded is found, then
 * credited by the operator's action as that renewal (one period from the platform's date).
 */
describe('stars reconciliation of subscription renewals on PostgreSQL', () => {
  let world: PropertyWorld;
  let deps: PaymentDeps;
  let pass: bigint;

  beforeAll(async () => {
    world = await startPropertyWorld('Reconciled pass base');
    pass = await passProduct(world.pg.db, 80n, 0n);
    deps = {
      ...paymentDeps(world.config, world.pg.db, createLogger('reconcile-subs', 'silent')),
      bot: {
        createInvoice: () => Promise.resolve({ status: 'delivered', result: 'https://t.me/$pass' }),
        notify: () => Promise.resolve({ status: 'no_bot' }),
        chatGate: () => Promise.resolve({ status: 'no_bot' }),
        refundStarPayment: () => Promise.resolve({ status: 'no_bot' }),
        editStarSubscription: () => Promise.resolve({ status: 'no_bot' }),
        forgetUser: () => Promise.resolve({ status: 'no_bot' }),
        sendToUser: () => Promise.resolve({ status: 'no_bot' }),
      },
    };
  }, 60_000);
  afterAll(async () => {
    await world.stop();
  });

  it('matches forwarded renewals to their orders and finds one taken but not credited', async () => {
    const account = await telegramAccount(world.pg.db, '88001');
    const first = await createOrder(deps, { accountId: account, platform: { kind: 'telegram', subtype: 'android' } }, pass, 'stars');
    const start = new Date();
    const t0 = Math.floor(start.getTime() / 1000);
    // Each charge as the bot's get_star_transactions Ack carries it: the platform's subscription_period on every one.
    const tx = (id: string, date: number): StarTransaction => {
      const [parsed] = parseStarPage(
        JSON.stringify({
          transactions: [{ id, amount: 80, date, kind: 'payment', user_id: 88001, payload: first.id, subscription_period: PERIOD_S }],
        }),
      );
      if (!parsed) throw new Error('no transaction parsed');
      return parsed;
    };
    const base = { orderId: first.id, amount: 80n, platformUserId: 88001n, isRecurring: true };
    expect(
      await forwardPayment(deps, { ...base, platformChargeId: 'r-1', isFirstRecurring: true, expiresAt: new Date((t0 + PERIOD_S) * 1000) }),
    ).toBe(true);
    expect(await forwardPayment(deps, { ...base, platformChargeId: 'r-2', expiresAt: new Date((t0 + 2 * PERIOD_S) * 1000) })).toBe(true);
    const listed = [tx('r-1', t0), tx('r-2', t0), tx('r-3', t0)];
    const source = { page: (offset: number, limit: number) => Promise.resolve(listed.slice(offset, offset + limit)) };
    const window = { from: new Date(start.getTime() - 1_000), to: new Date(Date.now() + 2_000) };
    const findings = await reconcileStars(world.pg.db, source, window, { maxCalls: 5, now: () => new Date(Date.now() + 1_000) });
    expect(findings.map((f) => [f.kind, f.paymentRef, f.orderId])).toEqual([['taken_not_credited', 'r-3', first.id]]);

    // the operator credits it: a renewal order for r-3, its period one period from the platform's date
    const done = await creditStarsCharge(deps, {
      platformChargeId: 'r-3',
      orderId: first.id,
      payerId: 88001n,
      amount: 80n,
      occurredAt: new Date(t0 * 1000),
    });
    expect(done).toMatchObject({ kind: 'done', outcome: 'credited' });
    const period = await world.pg.db
      .selectFrom('star_subscription_periods')
      .selectAll()
      .where('charge_id', '=', 'r-3')
      .executeTakeFirstOrThrow();
    expect(period.period_end.getTime()).toBe((t0 + PERIOD_S) * 1000);
    expect(period.renewal).toBe(true);
    expect(
      await creditStarsCharge(deps, {
        platformChargeId: 'r-3',
        orderId: first.id,
        payerId: 88001n,
        amount: 80n,
        occurredAt: new Date(t0 * 1000),
      }),
    ).toMatchObject({
      kind: 'done',
      outcome: 'credited',
    });
    const again = await reconcileStars(world.pg.db, source, window, { maxCalls: 5, now: () => new Date(Date.now() + 1_000) });
    expect(again).toEqual([]);
    expect((await auditLedger(world.pg.db)).problems).toEqual([]);
  });
});
