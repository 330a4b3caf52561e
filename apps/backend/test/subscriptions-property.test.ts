import fc from 'fast-check';
import { DomainError } from '@wordgame/contracts';
import { createLogger } from '@wordgame/logging';
import type { Database } from '../src/db/database.js';
import { auditLedger } from '../src/ledger/audit.js';
import { createOrder } from '../src/payments/orders/create.js';
import type { BotCommands } from '../src/botcommands/index.js';
import type { PaymentDeps } from '../src/payments/deps.js';
import { paymentDeps } from '../src/payments/module.js';
import { forwardPayment } from '../src/payments/stars/intake.js';
import { forwardRefund } from '../src/payments/stars/refunded.js';
import { refundOrder } from '../src/payments/refunds/console.js';
import { startPropertyWorld, type PropertyWorld } from './support/property-world.js';
import { StarPlatform } from './support/star-platform.js';
import { passProduct, PERIOD_S } from './subscriptions-support.js';
import { telegramAccount } from './payments-support.js';

type Action =
  | { kind: 'renew' }
  | { kind: 'forward'; pick: number; duplicate: boolean }
  | { kind: 'consoleRefund'; pick: number }
  | { kind: 'platformRefund'; pick: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'renew' as const }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('forward' as const), pick: fc.nat(9), duplicate: fc.boolean() }), weight: 4 },
  fc.record({ kind: fc.constant('consoleRefund' as const), pick: fc.nat(9) }),
  fc.record({ kind: fc.constant('platformRefund' as const), pick: fc.nat(9) }),
);

/** Refusals an operator sees as an answer (a refund racing another, a charge not credited yet). */
const EXPECTED = ['order_not_paid', 'refund_in_progress', 'unknown_order', 'refund_rejected'];

/**
 * A monthly pass under random interleavings, run concurrently against the backend on PostgreSQL:
 * renewals the platform takes, their forwards (some delivered twice at once, in any order),
 * console refunds and refunds the platform makes itself. Afterwards every charge has exactly one
 * home (credited once with its one period, or recorded unmatched), each credited period is granted
 * exactly once and revoked at most once (exactly when refunded), the subscription's paid_until and
 * the origin's pass are the latest unrefunded period's end, and the ledger audit is clean.
 */
describe('stars subscriptions: renewals, duplicates and refunds interleaved on PostgreSQL', () => {
  let pg: Database & { url: string };
  let deps: PaymentDeps;
  let world: PropertyWorld;
  let pass: bigint;
  const platform = new StarPlatform();
  const now = Date.now();

  beforeAll(async () => {
    world = await startPropertyWorld('Pass base');
    pg = world.pg;
    pass = await passProduct(pg.db, 60n, 1n);
    const bot: BotCommands = {
      createInvoice: () => Promise.resolve({ status: 'delivered', result: 'https://t.me/$pass' }),
      notify: () => Promise.resolve({ status: 'no_bot' }),
      chatGate: () => Promise.resolve({ status: 'no_bot' }),
      refundStarPayment: (user, charge) => Promise.resolve(platform.refund(user, charge)),
      editStarSubscription: () => Promise.resolve({ status: 'delivered', result: '' }),
      forgetUser: () => Promise.resolve({ status: 'no_bot' }),
      sendToUser: () => Promise.resolve({ status: 'no_bot' }),
    };
    deps = { ...paymentDeps(world.config, pg.db, createLogger('subscriptions-property', 'silent')), bot, now: () => new Date(now) };
  });
  afterAll(async () => {
    await world.stop();
  });

  interface Run {
    payer: bigint;
    firstOrder: string;
    /** Charges the platform took (first payment first) with the period end each paid for, in seconds. */
    charges: Array<{ id: string; end: number }>;
    outbox: string[];
  }

  const codeOf = (err: unknown) => (err instanceof DomainError ? err.code : '');
  const end0 = Math.floor(now / 1000) + PERIOD_S;

  async function forwardOne(run: Run, chargeId: string): Promise<void> {
    const c = run.charges.find((x) => x.id === chargeId);
    if (!c) throw new Error('unknown charge');
    await forwardPayment(deps, {
      orderId: run.firstOrder,
      platformChargeId: chargeId,
      amount: 60n,
      platformUserId: run.payer,
      isRecurring: true,
      isFirstRecurring: chargeId === run.charges[0]?.id,
      expiresAt: new Date(c.end * 1000),
    });
    run.outbox = run.outbox.filter((x) => x !== chargeId);
  }

  async function act(a: Action, run: Run): Promise<void> {
    switch (a.kind) {
      case 'renew': {
        const id = platform.take(run.firstOrder, 60n, run.payer);
        run.charges.push({ id, end: end0 + run.charges.length * PERIOD_S });
        run.outbox.push(id);
        return;
      }
      case 'forward': {
        const id = run.outbox[a.pick % Math.max(run.outbox.length, 1)];
        if (id === undefined) return;
        await Promise.all((a.duplicate ? [1, 2] : [1]).map(() => forwardOne(run, id)));
        return;
      }
      case 'consoleRefund': {
        const c = run.charges[a.pick % run.charges.length];
        if (!c) return;
        const order = await pg.db.selectFrom('orders').select('id').where('platform_charge_id', '=', c.id).executeTakeFirst();
        if (!order) return;
        try {
          await refundOrder(deps, order.id);
        } catch (err: unknown) {
          if (!EXPECTED.includes(codeOf(err))) throw err;
        }
        return;
      }
      case 'platformRefund': {
        const c = run.charges[a.pick % run.charges.length];
        if (!c) return;
        platform.refund(run.payer, c.id);
        await forwardRefund(deps, { orderId: run.firstOrder, platformChargeId: c.id, amount: 60n, platformUserId: run.payer });
        return;
      }
    }
  }

  it('grants each paid period exactly once and revokes it only when refunded (300 runs)', async () => {
    let runs = 0;
    let renewalsCredited = 0;
    let periodsRefunded = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 2, maxLength: 12 }), async (actions) => {
        runs += 1;
        const payer = 70_000n + BigInt(runs);
        const account = await telegramAccount(pg.db, String(payer));
        const order = await createOrder(deps, { accountId: account, platform: { kind: 'telegram', subtype: 'android' } }, pass, 'stars');
        const first = platform.take(order.id, 60n, payer);
        const run: Run = { payer, firstOrder: order.id, charges: [{ id: first, end: end0 }], outbox: [first] };
        await forwardOne(run, first);

        await Promise.all(actions.map((a) => act(a, run)));
        for (const id of [...run.outbox]) await forwardOne(run, id);

        const orders = await pg.db
          .selectFrom('orders')
          .select(['id', 'platform_charge_id', 'refund_id', 'pass_until'])
          .where('account_id', '=', account)
          .execute();
        const periods = await pg.db
          .selectFrom('star_subscription_periods')
          .select(['charge_id', 'order_id', 'period_end', 'refunded_at'])
          .where(
            'order_id',
            'in',
            orders.map((o) => o.id),
          )
          .execute();
        const ledger = await pg.db
          .selectFrom('ledger_operations')
          .select(['order_id', 'kind', 'pass_until'])
          .where('account_id', '=', account)
          .execute();
        const unmatched = await pg.db
          .selectFrom('unmatched_payments')
          .select(['platform_charge_id'])
          .where(
            'platform_charge_id',
            'in',
            run.charges.map((c) => c.id),
          )
          .execute();

        for (const c of run.charges) {
          const credited = orders.filter((o) => o.platform_charge_id === c.id);
          const recorded = unmatched.filter((u) => u.platform_charge_id === c.id);
          expect([c.id, credited.length + recorded.length]).toEqual([c.id, 1]);
          const o = credited[0];
          if (!o) continue;
          const own = periods.filter((p) => p.charge_id === c.id);
          expect(own).toHaveLength(1);
          expect(own[0]?.period_end.getTime()).toBe(c.end * 1000);
          expect(o.pass_until?.getTime()).toBe(c.end * 1000);
          expect(ledger.filter((l) => l.order_id === o.id && l.kind === 'purchase')).toHaveLength(1);
          const revoked = ledger.filter((l) => l.order_id === o.id && l.kind === 'refund');
          expect(revoked).toHaveLength(o.refund_id === null ? 0 : 1);
          expect(own[0]?.refunded_at !== null).toBe(o.refund_id !== null);
          // a refunded charge is one the platform gave back
          if (o.refund_id !== null) expect(platform.charges.get(c.id)?.refunded).toBe(true);
          if (c.id !== first) renewalsCredited += 1;
          if (o.refund_id !== null) periodsRefunded += 1;
        }
        const paid = periods.filter((p) => p.refunded_at === null).map((p) => p.period_end.getTime());
        const latest = paid.length > 0 ? Math.max(...paid) : null;
        const sub = await pg.db
          .selectFrom('star_subscriptions')
          .select(['paid_until'])
          .where('first_order_id', '=', order.id)
          .executeTakeFirst();
        if (periods.length > 0)
          expect(sub?.paid_until.getTime()).toBe(latest ?? Math.min(...periods.map((p) => p.period_end.getTime())) - PERIOD_S * 1000);
        const benefit = await pg.db
          .selectFrom('benefits')
          .select('pass_until')
          .where('account_id', '=', account)
          .where('origin', '=', 'telegram')
          .executeTakeFirst();
        expect(benefit?.pass_until?.getTime() ?? null).toBe(latest);
        if (runs % 100 === 0) expect((await auditLedger(pg.db)).problems).toEqual([]);
      }),
      { numRuns: 300 },
    );
    expect((await auditLedger(pg.db)).problems).toEqual([]);
    // The interleavings must reach the interesting paths.
    expect(renewalsCredited).toBeGreaterThan(100);
    expect(periodsRefunded).toBeGreaterThan(30);
  }, 600_000);
});
