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
import { forwardPayment, validatePreCheckout } from '../src/payments/stars/intake.js';
import { createReaper, type Reaper } from '../src/payments/reaper/reaper.js';
import { refundOrder } from '../src/payments/refunds/console.js';
import { createStarRefunder, type StarRefunder } from '../src/payments/refunds/star-refunds.js';
import { startPropertyWorld, type PropertyWorld } from './support/property-world.js';
import { StarPlatform, type Fate } from './support/star-platform.js';
import { newAccount } from './support/wallet.js';
import { Registry } from 'prom-client';
import { upsertOperator } from '../src/operators/operators.store.js';
import { createCode, reverseRedemption } from '../src/promos/console.js';
import { createPromoMetrics } from '../src/promos/index.js';
import { redeemCode } from '../src/promos/redeem.js';
import type { PromoDeps } from '../src/promos/service.js';
import { passProduct, PERIOD_S } from './subscriptions-support.js';

type Action =
  | { kind: 'pay'; user: 0 | 1 }
  | { kind: 'strayCharge'; amountOk: boolean }
  | { kind: 'forward'; pick: number; duplicate: boolean; answerLost: boolean }
  | { kind: 'holdLapses' }
  | { kind: 'starRefunds' }
  | { kind: 'consoleRefundStars' }
  | { kind: 'paymentNotification' }
  | { kind: 'refundNotification' }
  | { kind: 'tick'; expire: boolean }
  | { kind: 'consoleRefundCard' }
  | { kind: 'redeem'; twice: boolean }
  | { kind: 'reverseCode'; twice: boolean }
  | { kind: 'renewPass' }
  | { kind: 'consoleRefundPass'; pick: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('pay' as const), user: fc.constantFrom(0 as const, 1 as const) }), weight: 4 },
  fc.record({ kind: fc.constant('strayCharge' as const), amountOk: fc.boolean() }),
  {
    arbitrary: fc.record({ kind: fc.constant('forward' as const), pick: fc.nat(7), duplicate: fc.boolean(), answerLost: fc.boolean() }),
    weight: 4,
  },
  fc.constant({ kind: 'holdLapses' as const }),
  { arbitrary: fc.constant({ kind: 'starRefunds' as const }), weight: 2 },
  fc.constant({ kind: 'consoleRefundStars' as const }),
  fc.constant({ kind: 'paymentNotification' as const }),
  fc.constant({ kind: 'refundNotification' as const }),
  fc.record({ kind: fc.constant('tick' as const), expire: fc.boolean() }),
  fc.constant({ kind: 'consoleRefundCard' as const }),
  { arbitrary: fc.record({ kind: fc.constant('redeem' as const), twice: fc.boolean() }), weight: 2 },
  fc.record({ kind: fc.constant('reverseCode' as const), twice: fc.boolean() }),
  { arbitrary: fc.constant({ kind: 'renewPass' as const }), weight: 2 },
  fc.record({ kind: fc.constant('consoleRefundPass' as const), pick: fc.nat(5) }),
);

/** Refusals an operator or the bot sees as an answer, not a failure of the system. */
const EXPECTED = ['order_not_paid', 'bot_unavailable', 'refund_rejected', 'provider_unavailable', 'refund_in_progress'];
/** A code redemption's or reversal's answers when the interleaving repeats it or races it. */
const CODE_EXPECTED = ['code_already_redeemed', 'redemption_reversed'];

const HOLD_MS = 10_000;

/**
 * Both rails against the backend alone. The same property with the bot's outbox in the interleavings
 * (backend unreachable while payments wait, repeat pre-checkouts decided by the bot's own code on a
 * real SQLite file) is tools/faults/test/money-conservation-outbox.test.ts: it needs both apps in one
 * process, which no app's tests may import.
 */
describe('money conservation: random interleavings of both rails on PostgreSQL', () => {
  let pg: Database & { url: string };
  let emulator: ProviderEmulator;
  let deps: PaymentDeps;
  let reaper: Reaper;
  let refunder: StarRefunder;
  let promos: PromoDeps;
  let operatorId: bigint;
  let productId: bigint;
  let passId: bigint;
  let world: PropertyWorld;
  const platform = new StarPlatform();
  let clock = Date.now();

  beforeAll(async () => {
    world = await startPropertyWorld('Conservation pack', { PRECHECKOUT_HOLD_MS: String(HOLD_MS) });
    ({ pg, emulator, productId } = world);
    const config = world.config;
    const bot: BotCommands = {
      createInvoice: () => Promise.resolve({ status: 'no_bot' }),
      notify: () => Promise.resolve({ status: 'no_bot' }),
      chatGate: () => Promise.resolve({ status: 'no_bot' }),
      refundStarPayment: (user, charge) => Promise.resolve(platform.refund(user, charge)),
      editStarSubscription: () => Promise.resolve({ status: 'no_bot' }),
      forgetUser: () => Promise.resolve({ status: 'no_bot' }),
      sendToUser: () => Promise.resolve({ status: 'no_bot' }),
    };
    deps = { ...paymentDeps(config, pg.db, createLogger('money-property', 'silent')), bot, now: () => new Date(clock) };
    reaper = createReaper(deps, { intervalMs: 0, recheckBatch: 200, recheckConcurrency: 8 });
    refunder = createStarRefunder(deps, { intervalMs: 0, retryMaxMs: 60_000 });
    promos = {
      db: pg.db,
      logger: createLogger('money-property', 'silent'),
      now: () => new Date(clock),
      key: 'money-conservation-promo-key-0123456789abcdef',
      limit: { take: () => Promise.resolve() },
      metrics: createPromoMetrics(new Registry()),
    };
    operatorId = (await upsertOperator(pg.db, 'property-operator', 'property operator password', ['refunder', 'catalog_editor'])).id;
    passId = await passProduct(pg.db, 30n, 1n);
  });
  afterAll(async () => {
    await world.stop();
  });

  interface Run {
    stars: string;
    card: string;
    paymentId: string;
    /** Charges the platform took for this run, and the bot's outbox (charges not yet answered). */
    taken: string[];
    outbox: string[];
    /** The operator was told "nothing recorded, press again" for the stars order. */
    pressAgain: boolean;
    /** The run's promo code (one use, telegram only) and its player. */
    code: string;
    account: bigint;
    /** An operator looked for the redemption before there was one: they reverse it afterwards. */
    reverseLater: boolean;
    /** A monthly pass of the same account: its first order, and each charge the platform took for it with its period end (unix s). */
    pass: string;
    passCharges: Map<string, number>;
    /** Pass orders an operator pressed Refund on (pressed again afterwards until recorded). */
    passRefunds: Set<string>;
  }

  const codeOf = (err: unknown) => (err instanceof DomainError ? err.code : '');

  async function consoleRefund(orderId: string, run: Run, stars: boolean): Promise<void> {
    try {
      await refundOrder(deps, orderId);
      if (stars) run.pressAgain = false;
    } catch (err: unknown) {
      if (!EXPECTED.includes(codeOf(err))) throw err;
      if (stars && codeOf(err) === 'bot_unavailable') run.pressAgain = true;
    }
  }

  async function forwardOne(run: Run, platformChargeId: string, answerLost: boolean): Promise<void> {
    const charge = platform.charges.get(platformChargeId);
    if (!charge) throw new Error('unknown charge');
    const end = run.passCharges.get(platformChargeId);
    await forwardPayment(deps, {
      orderId: charge.orderId,
      platformChargeId,
      amount: charge.amount,
      platformUserId: charge.user,
      ...(end === undefined
        ? {}
        : {
            isRecurring: true,
            isFirstRecurring: run.passCharges.keys().next().value === platformChargeId,
            expiresAt: new Date(end * 1000),
          }),
    });
    // The answer reached the bot: it forgets the outbox row (a lost answer leaves it for a retry).
    if (!answerLost) run.outbox = run.outbox.filter((c) => c !== platformChargeId);
  }

  async function act(a: Action, run: Run): Promise<void> {
    switch (a.kind) {
      case 'pay': {
        const verdict = await validatePreCheckout(deps, run.stars, 50n, 'XTR');
        if (!verdict.ok) return;
        const charge = platform.take(run.stars, 50n, 9_000n + BigInt(a.user));
        run.taken.push(charge);
        run.outbox.push(charge);
        return;
      }
      case 'strayCharge': {
        // A charge that never passed this backend's pre-checkout (another invoice, an old bot).
        const charge = platform.take(a.amountOk ? run.stars : randomUUID(), a.amountOk ? 50n : 7n, 9_100n);
        run.taken.push(charge);
        run.outbox.push(charge);
        return;
      }
      case 'forward': {
        const platformChargeId = run.outbox[a.pick % Math.max(run.outbox.length, 1)];
        if (platformChargeId === undefined) return;
        await Promise.all((a.duplicate ? [1, 2] : [1]).map(() => forwardOne(run, platformChargeId, a.answerLost)));
        return;
      }
      case 'holdLapses':
        clock += HOLD_MS + 1_000;
        return;
      case 'starRefunds':
        await refunder.runDue(new Date(clock));
        return;
      case 'consoleRefundStars':
        await consoleRefund(run.stars, run, true);
        return;
      case 'paymentNotification':
        await handleNotification(
          deps,
          'yookassa',
          Buffer.from(JSON.stringify({ type: 'notification', event: 'payment.succeeded', object: { id: run.paymentId } })),
        );
        return;
      case 'refundNotification': {
        const refundId = emulator.control.payment(run.paymentId).refunds[0]?.id ?? `missing-${randomUUID()}`;
        await handleNotification(
          deps,
          'yookassa',
          Buffer.from(
            JSON.stringify({ type: 'notification', event: 'refund.succeeded', object: { id: refundId, payment_id: run.paymentId } }),
          ),
        );
        return;
      }
      case 'tick':
        await reaper.tick(new Date(Date.now() + (a.expire ? 31 : 2) * 60_000));
        return;
      case 'consoleRefundCard':
        await consoleRefund(run.card, run, false);
        return;
      case 'redeem': {
        const once = () =>
          redeemCode(promos, { accountId: run.account, platform: { kind: 'telegram', subtype: null } }, null, run.code).then(
            () => undefined,
            (err: unknown) => {
              if (!CODE_EXPECTED.includes(codeOf(err))) throw err;
            },
          );
        await Promise.all(a.twice ? [once(), once()] : [once()]);
        return;
      }
      case 'reverseCode': {
        const r = await pg.db.selectFrom('promo_redemptions').select('id').where('account_id', '=', run.account).executeTakeFirst();
        if (r === undefined) {
          run.reverseLater = true;
          return;
        }
        const once = () =>
          reverseRedemption(promos, operatorId, r.id, 'property run').then(
            () => undefined,
            (err: unknown) => {
              if (!CODE_EXPECTED.includes(codeOf(err))) throw err;
            },
          );
        await Promise.all(a.twice ? [once(), once()] : [once()]);
        return;
      }
      case 'renewPass': {
        const charge = platform.take(run.pass, 30n, 9_200n);
        run.passCharges.set(charge, Math.floor(clock / 1000) + (run.passCharges.size + 1) * PERIOD_S);
        run.taken.push(charge);
        run.outbox.push(charge);
        return;
      }
      case 'consoleRefundPass': {
        const charges = [...run.passCharges.keys()];
        const charge = charges[a.pick % charges.length];
        const order =
          charge === undefined
            ? undefined
            : await pg.db.selectFrom('orders').select('id').where('platform_charge_id', '=', charge).executeTakeFirst();
        if (!order) return;
        run.passRefunds.add(order.id);
        await consoleRefund(order.id, run, false);
        return;
      }
    }
  }

  /** What the world does afterwards: the bot forwards until answered, refunds are re-sent until done, the operator presses again. */
  async function settle(run: Run, refundLater: boolean): Promise<void> {
    for (const charge of [...run.outbox]) await forwardOne(run, charge, false);
    if (refundLater) await consoleRefund(run.stars, run, true);
    platform.fates = [];
    for (let i = 0; i < 5; i += 1) {
      clock += 3_600_000;
      await refunder.runDue(new Date(clock));
    }
    if (run.pressAgain) await consoleRefund(run.stars, run, true);
    // The operator who found nothing to reverse looks again once the grant is there, and presses twice at once.
    if (run.reverseLater) await act({ kind: 'reverseCode', twice: true }, { ...run, reverseLater: false });
    for (const order of run.passRefunds) await consoleRefund(order, run, false);
  }

  it('every charge ends credited once or returned once, never both, never neither; refunds reverse once; code grants and their reversals happen once each; the audit stays clean (1,000 runs)', async () => {
    let runs = 0;
    let unmatchedSeen = 0;
    let autoRefunded = 0;
    let consoleStarRefunds = 0;
    let codeGrants = 0;
    let reversedCodes = 0;
    let passCharges = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(action, { minLength: 3, maxLength: 10 }),
        fc.array(fc.constantFrom<Fate>('ok', 'ack_lost', 'unreachable'), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        async (actions, fates, refundLater) => {
          runs += 1;
          platform.fates = fates;
          const account = await newAccount(pg.db, { address: `m${runs}-${randomUUID()}@example.org`, confirmed: true });
          const card = await createOrder(deps, { accountId: account, platform: { kind: 'direct', subtype: null } }, productId, 'card');
          const paymentId = card.provider_payment_id ?? '';
          await emulator.control.succeedPayment(paymentId);
          const stars = randomUUID();
          await pg.db
            .insertInto('orders')
            .values({
              id: stars,
              account_id: account,
              product_id: productId,
              title: 'Conservation pack',
              rail: 'stars',
              provider: 'telegram_stars',
              shop: null,
              segment: 'telegram',
              amount: 50n,
              currency: 'XTR',
              chips: 100n,
              hints: 2n,
              no_ads_days: 3n,
              created_at: new Date(clock),
              expires_at: new Date(clock + 1_800_000),
            })
            .execute();
          const { code } = await createCode(promos, operatorId, {
            code: '',
            label: `run ${runs}`,
            chips: 30n,
            hints: 1n,
            noAdsDays: 2n,
            maxRedemptions: 1,
            validFrom: new Date(0),
            validUntil: new Date(clock + 10 * 365 * 86_400_000),
            hosts: ['telegram'],
          });
          const pass = randomUUID();
          await pg.db
            .insertInto('orders')
            .values({
              id: pass,
              account_id: account,
              product_id: passId,
              title: 'Monthly pass',
              rail: 'stars',
              provider: 'telegram_stars',
              shop: null,
              segment: 'telegram',
              amount: 30n,
              currency: 'XTR',
              chips: 0n,
              hints: 1n,
              subscription_period: PERIOD_S,
              created_at: new Date(clock),
              expires_at: new Date(clock + 1_800_000),
            })
            .execute();
          const run: Run = {
            stars,
            card: card.id,
            paymentId,
            taken: [],
            outbox: [],
            pressAgain: false,
            code,
            account,
            reverseLater: false,
            pass,
            passCharges: new Map(),
            passRefunds: new Set(),
          };
          // The pass's first charge, forwarded among the rest (a renewal may even arrive before it).
          await act({ kind: 'renewPass' }, run);

          await Promise.all(actions.map((a) => act(a, run)));
          await settle(run, refundLater);

          const orders = await pg.db
            .selectFrom('orders')
            .select(['id', 'state', 'platform_charge_id', 'refund_id'])
            .where('account_id', '=', account)
            .execute();
          const ledger = await pg.db
            .selectFrom('ledger_operations')
            .select(['order_id', 'kind', 'refund_id'])
            .where('account_id', '=', account)
            .execute();
          const rows = (orderId: string, kind: string) => ledger.filter((l) => l.order_id === orderId && l.kind === kind);
          const unmatched =
            run.taken.length === 0
              ? []
              : await pg.db
                  .selectFrom('unmatched_payments')
                  .select(['platform_charge_id', 'refund_status'])
                  .where('platform_charge_id', 'in', run.taken)
                  .execute();
          const starsRow = orders.find((o) => o.id === stars);

          for (const platformChargeId of run.taken) {
            const charge = platform.charges.get(platformChargeId);
            const credited = orders.filter((o) => o.platform_charge_id === platformChargeId);
            const returned = unmatched.filter((u) => u.platform_charge_id === platformChargeId);
            // Exactly one home for every charge the platform took.
            expect([platformChargeId, credited.length + returned.length]).toEqual([platformChargeId, 1]);
            if (run.passCharges.has(platformChargeId)) {
              // A pass charge: credited with its one period (granted once), reversed once exactly when the platform gave it back.
              passCharges += 1;
              const o = credited[0];
              expect(o).toBeDefined();
              if (!o) continue;
              const periods = await pg.db
                .selectFrom('star_subscription_periods')
                .select('refunded_at')
                .where('charge_id', '=', platformChargeId)
                .execute();
              expect(periods).toHaveLength(1);
              expect(rows(o.id, 'purchase')).toHaveLength(1);
              expect(rows(o.id, 'refund')).toHaveLength(o.refund_id === null ? 0 : 1);
              expect([platformChargeId, charge?.refunded]).toEqual([platformChargeId, o.refund_id !== null]);
              expect(periods[0]?.refunded_at !== null).toBe(o.refund_id !== null);
              continue;
            }
            if (returned.length === 1) {
              unmatchedSeen += 1;
              expect([platformChargeId, returned[0]?.refund_status, charge?.refunded]).toEqual([platformChargeId, 'refunded', true]);
              autoRefunded += 1;
            } else {
              // Credited: the stars stay with us unless an operator refunded, and then the ledger reverses exactly once.
              const reversals = rows(stars, 'refund');
              expect(rows(stars, 'purchase')).toHaveLength(1);
              expect([platformChargeId, charge?.refunded]).toEqual([platformChargeId, reversals.length === 1]);
              expect(reversals.length).toBeLessThanOrEqual(1);
              if (reversals.length === 1) {
                expect(reversals[0]?.refund_id).toBe(platformChargeId);
                consoleStarRefunds += 1;
              }
            }
          }
          expect(rows(stars, 'purchase')).toHaveLength(starsRow?.state === 'paid' ? 1 : 0);
          expect(starsRow?.state === 'paid').toBe(run.taken.some((c) => starsRow?.platform_charge_id === c));

          // Card: the provider took the payment; a credit happens at most once, and a reversal only for a refund the provider made.
          const cardRow = orders.find((o) => o.id === card.id);
          expect(rows(card.id, 'purchase').length).toBe(cardRow?.state === 'paid' ? 1 : 0);
          const providerRefunds = emulator.control.payment(paymentId).refunds.filter((r) => r.status === 'succeeded');
          expect(rows(card.id, 'refund').length).toBeLessThanOrEqual(1);
          expect(rows(card.id, 'refund').length).toBe(cardRow?.refund_id ? 1 : 0);
          if (cardRow?.refund_id) expect(providerRefunds.map((r) => r.id)).toContain(cardRow.refund_id);

          // Codes: one grant at most (one use, one per player), a reversal only of a grant and only once, each marked on its redemption.
          const redemptions = await pg.db
            .selectFrom('promo_redemptions')
            .select(['reversed_at'])
            .where('account_id', '=', account)
            .execute();
          const grants = ledger.filter((l) => l.kind === 'code_grant').length;
          const codeReversals = ledger.filter((l) => l.kind === 'reversal').length;
          expect(grants).toBe(redemptions.length);
          expect(grants).toBeLessThanOrEqual(1);
          expect(codeReversals).toBe(redemptions.filter((r) => r.reversed_at !== null).length);
          if (grants > 0) codeGrants += 1;
          if (codeReversals > 0) reversedCodes += 1;

          if (runs % 250 === 0) expect((await auditLedger(pg.db)).problems).toEqual([]);
        },
      ),
      { numRuns: 1_000 },
    );
    expect(runs).toBe(1_000);
    expect((await auditLedger(pg.db)).problems).toEqual([]);
    // The interleavings must actually reach the interesting paths.
    expect(unmatchedSeen).toBeGreaterThan(50);
    expect(autoRefunded).toBeGreaterThan(50);
    expect(consoleStarRefunds).toBeGreaterThan(100);
    expect(codeGrants).toBeGreaterThan(200);
    expect(reversedCodes).toBeGreaterThan(50);
    expect(passCharges).toBeGreaterThan(1_000);
  }, 600_000);
});
