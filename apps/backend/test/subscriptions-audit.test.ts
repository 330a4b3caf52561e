import { createLogger } from '@wordgame/logging';
import { sql } from 'kysely';
import { auditLedger } from '../src/ledger/audit.js';
import { createOrder } from '../src/payments/orders/create.js';
import type { PaymentDeps } from '../src/payments/deps.js';
import { paymentDeps } from '../src/payments/module.js';
import { forwardPayment } from '../src/payments/stars/intake.js';
import { forwardRefund } from '../src/payments/stars/refunded.js';
import { startPropertyWorld, type PropertyWorld } from './support/property-world.js';
import { telegramAccount } from './payments-support.js';
import { passProduct, PERIOD_S } from './subscriptions-support.js';

/**
 * The ledger audit over monthly passes, on its own database: clean after a first payment, two
 * renewals and a refund of one of them, and each kind of drift between the ledger and the pass
 * (the benefit's end, the subscription's paid_until, a period's end or refund mark, a refund row
 * revoking another end than its purchase granted) is reported, then gone once put back.
 */
describe('ledger audit of stars subscriptions on PostgreSQL', () => {
  let world: PropertyWorld;
  let deps: PaymentDeps;
  let account: bigint;
  let subscriptionId: bigint;
  const t0 = Math.floor(Date.now() / 1000);
  const end = (n: number) => new Date((t0 + n * PERIOD_S) * 1000);

  beforeAll(async () => {
    world = await startPropertyWorld('Audited pass base');
    const pass = await passProduct(world.pg.db, 70n, 1n);
    deps = {
      ...paymentDeps(world.config, world.pg.db, createLogger('subscriptions-audit', 'silent')),
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
    account = await telegramAccount(world.pg.db, '99001');
    const first = await createOrder(deps, { accountId: account, platform: { kind: 'telegram', subtype: 'android' } }, pass, 'stars');
    const base = { orderId: first.id, amount: 70n, platformUserId: 99001n, isRecurring: true };
    expect(await forwardPayment(deps, { ...base, platformChargeId: 'au-1', isFirstRecurring: true, expiresAt: end(1) })).toBe(true);
    expect(await forwardPayment(deps, { ...base, platformChargeId: 'au-2', expiresAt: end(2) })).toBe(true);
    expect(await forwardPayment(deps, { ...base, platformChargeId: 'au-3', expiresAt: end(3) })).toBe(true);
    // the platform gives the middle renewal back
    expect(await forwardRefund(deps, { orderId: first.id, platformChargeId: 'au-2', amount: 70n, platformUserId: 99001n })).toBe(
      'reversed',
    );
    const sub = await world.pg.db
      .selectFrom('star_subscriptions')
      .select(['id', 'paid_until'])
      .where('first_order_id', '=', first.id)
      .executeTakeFirstOrThrow();
    expect(sub.paid_until.getTime()).toBe(end(3).getTime());
    subscriptionId = sub.id;
  }, 60_000);
  afterAll(async () => {
    await world.stop();
  });

  const problems = async () => (await auditLedger(world.pg.db)).problems;
  const periodOf = (chargeId: string) => world.pg.db.updateTable('star_subscription_periods').where('charge_id', '=', chargeId);

  it('is clean after a first payment, two renewals and a refunded renewal', async () => {
    expect(await problems()).toEqual([]);
  });

  it("reports a benefit whose pass end is not its unrefunded charges' latest end", async () => {
    await world.pg.db
      .updateTable('benefits')
      .set({ pass_until: end(4) })
      .where('account_id', '=', account)
      .execute();
    expect(await problems()).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`account ${account} origin telegram: pass_until .* but subscription charges replay to`)),
      ]),
    );
    await world.pg.db
      .updateTable('benefits')
      .set({ pass_until: end(3) })
      .where('account_id', '=', account)
      .execute();
    expect(await problems()).toEqual([]);
  });

  it("reports a subscription whose paid_until is not its paid periods' latest end", async () => {
    await world.pg.db
      .updateTable('star_subscriptions')
      .set({ paid_until: end(2) })
      .where('id', '=', subscriptionId)
      .execute();
    expect(await problems()).toEqual([
      expect.stringMatching(new RegExp(`subscription ${subscriptionId}: paid_until .* but its paid periods end`)),
    ]);
    await world.pg.db
      .updateTable('star_subscriptions')
      .set({ paid_until: end(3) })
      .where('id', '=', subscriptionId)
      .execute();
    expect(await problems()).toEqual([]);
  });

  it('reports a period whose end or refund mark disagrees with its ledger rows', async () => {
    await periodOf('au-1')
      .set({ period_end: end(5) })
      .execute();
    expect(await problems()).toEqual(expect.arrayContaining(['subscription charge au-1: purchase row grants another end']));
    await periodOf('au-1')
      .set({ period_end: end(1) })
      .execute();

    await periodOf('au-2').set({ refunded_at: null }).execute();
    expect(await problems()).toEqual(expect.arrayContaining(['subscription charge au-2: refunded in the ledger, not in the period']));
    await periodOf('au-2').set({ refunded_at: new Date() }).execute();

    await periodOf('au-1').set({ refunded_at: new Date() }).execute();
    expect(await problems()).toEqual(expect.arrayContaining(['subscription charge au-1: refunded in the period, not in the ledger']));
    await periodOf('au-1').set({ refunded_at: null }).execute();
    expect(await problems()).toEqual([]);
  });

  it('reports a refund row revoking another pass end than its purchase granted', async () => {
    // The ledger is append-only: a corrupted row is simulated with its guard triggers off for one transaction.
    const setRefundEnd = (to: Date) =>
      world.pg.db.transaction().execute(async (trx) => {
        await sql`set local session_replication_role = replica`.execute(trx);
        await sql`update ledger_operations set pass_until = ${to}
          where kind = 'refund' and order_id = (select order_id from orders where platform_charge_id = 'au-2')`.execute(trx);
      });
    await setRefundEnd(end(7));
    expect(await problems()).toEqual([
      expect.stringMatching(/^order [0-9a-f-]+: its refund revokes another pass end than its purchase granted$/),
    ]);
    await setRefundEnd(end(2));
    expect(await problems()).toEqual([]);
  });
});
