import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { DomainError } from '@wordgame/contracts';
import { createLogger } from '@wordgame/logging';
import type { ProviderEmulator } from '@wordgame/provider-emulator';
import type { Database } from '../src/db/database.js';
import { auditLedger } from '../src/ledger/audit.js';
import { createOrder } from '../src/payments/orders/create.js';
import type { BotCommands } from '../src/botcommands/index.js';
import type { PaymentDeps } from '../src/payments/deps.js';
import { paymentDeps } from '../src/payments/module.js';
import { handleNotification } from '../src/payments/card/notifications.js';
import { forwardPayment } from '../src/payments/stars/intake.js';
import { createReaper, type Reaper } from '../src/payments/reaper/reaper.js';
import { refundOrder } from '../src/payments/refunds/console.js';
import { startPropertyWorld, type PropertyWorld } from './support/property-world.js';
import { newAccount } from './support/wallet.js';

/** The bot channel is not exercised here (orders are stars-invoiced directly); it reports no bot. */
const noBot: BotCommands = {
  createInvoice: () => Promise.resolve({ status: 'no_bot' }),
  notify: () => Promise.resolve({ status: 'no_bot' }),
  chatGate: () => Promise.resolve({ status: 'no_bot' }),
  refundStarPayment: () => Promise.resolve({ status: 'no_bot' }),
  editStarSubscription: () => Promise.resolve({ status: 'no_bot' }),
  forgetUser: () => Promise.resolve({ status: 'no_bot' }),
  sendToUser: () => Promise.resolve({ status: 'no_bot' }),
};

type Action =
  | { kind: 'forward'; charge: 0 | 1; amountOk: boolean }
  | { kind: 'paymentNotification' }
  | { kind: 'refundNotification' }
  | { kind: 'tick'; expire: boolean }
  | { kind: 'consoleRefund' };

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({ kind: fc.constant('forward' as const), charge: fc.constantFrom(0 as const, 1 as const), amountOk: fc.boolean() }),
  fc.constant({ kind: 'paymentNotification' as const }),
  fc.constant({ kind: 'refundNotification' as const }),
  fc.record({ kind: fc.constant('tick' as const), expire: fc.boolean() }),
  fc.constant({ kind: 'consoleRefund' as const }),
);

describe('payments property: random interleavings on PostgreSQL', () => {
  let pg: Database & { url: string };
  let emulator: ProviderEmulator;
  let deps: PaymentDeps;
  let reaper: Reaper;
  let productId: bigint;
  let world: PropertyWorld;

  beforeAll(async () => {
    world = await startPropertyWorld('Property pack');
    ({ pg, emulator, productId } = world);
    const config = world.config;
    deps = { ...paymentDeps(config, pg.db, createLogger('payments-property', 'silent')), bot: noBot };
    reaper = createReaper(deps, { intervalMs: 0, recheckBatch: 200, recheckConcurrency: 8 });
  });
  afterAll(async () => {
    await world.stop();
  });

  /** Runs one action; expected domain refusals (e.g. refunding an unpaid order) are outcomes, not failures. */
  async function run(a: Action, ctx: { stars: string; card: string; paymentId: string; charges: [string, string] }): Promise<void> {
    try {
      switch (a.kind) {
        case 'forward':
          await forwardPayment(deps, {
            orderId: ctx.stars,
            platformChargeId: ctx.charges[a.charge],
            amount: a.amountOk ? 50n : 49n,
            platformUserId: 1n,
          });
          return;
        case 'paymentNotification':
          await handleNotification(
            deps,
            'yookassa',
            Buffer.from(JSON.stringify({ type: 'notification', event: 'payment.succeeded', object: { id: ctx.paymentId } })),
          );
          return;
        case 'refundNotification': {
          const refundId = emulator.control.payment(ctx.paymentId).refunds[0]?.id ?? `missing-${randomUUID()}`;
          await handleNotification(
            deps,
            'yookassa',
            Buffer.from(
              JSON.stringify({ type: 'notification', event: 'refund.succeeded', object: { id: refundId, payment_id: ctx.paymentId } }),
            ),
          );
          return;
        }
        case 'tick':
          await reaper.tick(new Date(Date.now() + (a.expire ? 31 : 2) * 60_000));
          return;
        case 'consoleRefund':
          await refundOrder(deps, ctx.card);
          return;
      }
    } catch (err: unknown) {
      if (err instanceof DomainError && (err.code === 'order_not_paid' || err.code === 'refund_in_progress')) return;
      throw err;
    }
  }

  it('never credits an order twice nor records a refund twice, and the ledger audit stays clean (1,000 runs)', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 2, maxLength: 8 }), async (actions) => {
        runs += 1;
        const account = await newAccount(pg.db, { address: `p${runs}-${randomUUID()}@example.org`, confirmed: true });
        const caller = (kind: 'telegram' | 'direct') => ({ accountId: account, platform: { kind, subtype: null } });
        const card = await createOrder(deps, caller('direct'), productId, 'card');
        const paymentId = card.provider_payment_id ?? '';
        await emulator.control.succeedPayment(paymentId);
        const stars = randomUUID();
        await pg.db
          .insertInto('orders')
          .values({
            id: stars,
            account_id: account,
            product_id: productId,
            title: 'Property pack',
            rail: 'stars',
            provider: 'telegram_stars',
            shop: null,
            segment: 'telegram',
            amount: 50n,
            currency: 'XTR',
            chips: 100n,
            created_at: new Date(),
            expires_at: new Date(Date.now() + 1_800_000),
          })
          .execute();
        const ctx = { stars, card: card.id, paymentId, charges: [`ch-${stars}-0`, `ch-${stars}-1`] as [string, string] };

        await Promise.all(actions.map((a) => run(a, ctx)));

        const ledger = await pg.db
          .selectFrom('ledger_operations')
          .select(['order_id', 'kind', 'chips_delta'])
          .where('account_id', '=', account)
          .execute();
        const count = (orderId: string, kind: string) => ledger.filter((l) => l.order_id === orderId && l.kind === kind).length;
        expect(count(stars, 'purchase')).toBeLessThanOrEqual(1);
        expect(count(card.id, 'purchase')).toBeLessThanOrEqual(1);
        expect(count(card.id, 'refund')).toBeLessThanOrEqual(count(card.id, 'purchase'));
        expect(count(stars, 'refund')).toBe(0);

        const orders = await pg.db
          .selectFrom('orders')
          .select(['id', 'state', 'platform_charge_id', 'refund_id'])
          .where('account_id', '=', account)
          .execute();
        const starsRow = orders.find((o) => o.id === stars);
        const cardRow = orders.find((o) => o.id === card.id);
        const forwards = actions.filter((a) => a.kind === 'forward');
        const mayCredit = forwards.some((a) => a.amountOk);
        const mustCredit = ([0, 1] as const).some(
          (c) => forwards.some((a) => a.charge === c && a.amountOk) && !forwards.some((a) => a.charge === c && !a.amountOk),
        );
        if (starsRow?.state === 'paid') expect(mayCredit).toBe(true);
        if (mustCredit) expect(starsRow?.state).toBe('paid');
        expect(count(stars, 'purchase')).toBe(starsRow?.state === 'paid' ? 1 : 0);
        expect((cardRow?.state === 'paid') === (count(card.id, 'purchase') === 1)).toBe(true);
        expect((cardRow?.refund_id !== null) === (count(card.id, 'refund') === 1)).toBe(true);
        const refundsAtProvider = emulator.control.payment(paymentId).refunds;
        expect(refundsAtProvider.length).toBeLessThanOrEqual(1);
        if (cardRow?.refund_id) expect(refundsAtProvider[0]?.id).toBe(cardRow.refund_id);

        const unmatched = await pg.db
          .selectFrom('unmatched_payments')
          .select('platform_charge_id')
          .where('platform_charge_id', 'in', ctx.charges)
          .execute();
        const credited = starsRow?.platform_charge_id;
        for (const u of unmatched) expect(u.platform_charge_id).not.toBe(credited);

        if (runs % 250 === 0) expect((await auditLedger(pg.db)).problems).toEqual([]);
      }),
      { numRuns: 1_000 },
    );
    expect(runs).toBe(1_000);
    expect((await auditLedger(pg.db)).problems).toEqual([]);
  }, 180_000);
});
