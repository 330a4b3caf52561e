import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { createLogger } from '@wordgame/logging';
import { TEST_RATE_LIMITS, TEST_SERVICE_TOKENS } from '@wordgame/testkit';
import { upsertProduct } from '../../../apps/backend/src/catalog/catalog.store.js';
import { loadBackendConfig } from '../../../apps/backend/src/config/index.js';
import type { Database } from '../../../apps/backend/src/db/database.js';
import { auditLedger } from '../../../apps/backend/src/ledger/audit.js';
import type { BotCommands } from '../../../apps/backend/src/botcommands/index.js';
import type { PaymentDeps } from '../../../apps/backend/src/payments/deps.js';
import { paymentDeps } from '../../../apps/backend/src/payments/module.js';
import { createStarRefunder, type StarRefunder } from '../../../apps/backend/src/payments/refunds/star-refunds.js';
import { StarPlatform, type Fate } from '../../../apps/backend/test/support/star-platform.js';
import { DECLINE, forwardPayment, validatePreCheckout } from '../../../apps/backend/src/payments/stars/intake.js';
import { freshMigratedPostgres } from '../../../apps/backend/src/testing/databases.js';
import { PaymentOutbox } from '../../../apps/bot/src/payments/outbox.store.js';
import {
  decidePreCheckout,
  paymentHeldIn,
  PAYMENT_HELD_REASON,
  type PaymentHeld,
  type ValidatePreCheckout,
} from '../../../apps/bot/src/payments/pre-checkout.js';
import { outboxPaymentOf } from '../../../apps/bot/src/payments/successful-payment.js';
import { openBotDb } from '../../../apps/bot/src/store/db.js';
import { DeadLetters } from '../../../apps/bot/src/store/dead-letters.js';
import { report } from '../src/harness/scale.js';

/**
 * The money-conservation property (apps/backend/test/money-conservation-property.test.ts) with the
 * bot's outbox in the interleavings: the backend unreachable while payments wait in the outbox, and
 * repeat taps on the order's reusable invoice link. The bot side is the bot's own code on a real
 * SQLite file (PaymentOutbox, its pre-checkout decision, the successful_payment row), the backend side
 * the backend's own intake, refunder and audit on real PostgreSQL. It lives here because it needs
 * both apps in one process and no app may import the other; eslint.config.js allows exactly these
 * modules for this file.
 *
 * Actions run one after the other (what concerns one order reaches the bot as one ordered update
 * stream); the races of concurrent backend calls are the backend property's and the intake tests'.
 */

type Action =
  | { kind: 'tap'; user: 0 | 1; abandon: boolean }
  | { kind: 'stray'; thisOrder: boolean; amountOk: boolean }
  | { kind: 'forward'; pick: number; answerLost: boolean }
  | { kind: 'backendDown' }
  | { kind: 'backendUp' }
  | { kind: 'holdLapses' }
  | { kind: 'starRefunds' }
  | { kind: 'botRestart' };

const action: fc.Arbitrary<Action> = fc.oneof(
  {
    arbitrary: fc.record({ kind: fc.constant('tap' as const), user: fc.constantFrom(0 as const, 1 as const), abandon: fc.boolean() }),
    weight: 5,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant('stray' as const),
      thisOrder: fc.constantFrom(true, true, true, false),
      amountOk: fc.constantFrom(true, false, false),
    }),
    weight: 2,
  },
  {
    arbitrary: fc.record({ kind: fc.constant('forward' as const), pick: fc.nat(7), answerLost: fc.constantFrom(true, false, false) }),
    weight: 4,
  },
  { arbitrary: fc.constant({ kind: 'backendDown' as const }), weight: 2 },
  fc.constant({ kind: 'backendUp' as const }),
  { arbitrary: fc.constant({ kind: 'holdLapses' as const }), weight: 2 },
  fc.constant({ kind: 'starRefunds' as const }),
  fc.constant({ kind: 'botRestart' as const }),
);

const HOLD_MS = 10_000;
const PRICE = 50n;
const RUNS = 800;

describe('money conservation with the bot outbox: backend unreachable while payments wait, repeat pre-checkouts', () => {
  let pg: Database & { url: string };
  let deps: PaymentDeps;
  let refunder: StarRefunder;
  let productId: bigint;
  let dir: string;
  const platform = new StarPlatform();
  const log = createLogger('money-outbox-property', 'silent');
  let clock = Date.now();

  beforeAll(async () => {
    pg = await freshMigratedPostgres();
    const config = loadBackendConfig({
      ...TEST_SERVICE_TOKENS,
      ...TEST_RATE_LIMITS,
      DATABASE_URL: pg.url,
      PRECHECKOUT_HOLD_MS: String(HOLD_MS),
    });
    const bot: BotCommands = {
      createInvoice: () => Promise.resolve({ status: 'no_bot' }),
      notify: () => Promise.resolve({ status: 'no_bot' }),
      chatGate: () => Promise.resolve({ status: 'no_bot' }),
      refundStarPayment: (user, charge) => Promise.resolve(platform.refund(user, charge)),
      editStarSubscription: () => Promise.resolve({ status: 'no_bot' }),
      forgetUser: () => Promise.resolve({ status: 'no_bot' }),
      sendToUser: () => Promise.resolve({ status: 'no_bot' }),
    };
    deps = paymentDeps(config, pg.db, log, { bot, now: () => new Date(clock) });
    refunder = createStarRefunder(deps, { intervalMs: 0, retryMaxMs: 60_000 });
    ({ id: productId } = await upsertProduct(
      pg.db,
      {
        id: 0n,
        title: 'Outbox pack',
        active: true,
        atoms: [{ kind: 'chips', quantity: 100n }],
        prices: [{ method: 'xtr', amount: PRICE, currency: 'XTR' }],
      },
      new Date(clock),
    ));
    dir = mkdtempSync(join(tmpdir(), 'money-outbox-'));
  });
  afterAll(async () => {
    await pg.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The bot's SQLite file as one process has it open; a restart opens it again. */
  interface BotFile {
    outbox: PaymentOutbox;
    held: PaymentHeld;
    close(): void;
  }
  /** Opens the file as the bot does on start (app.ts): one connection for the outbox and the dead letters. */
  const openBot = (path: string): BotFile => {
    const db = openBotDb(path);
    const outbox = new PaymentOutbox(db);
    return { outbox, held: paymentHeldIn(outbox, new DeadLetters(db)), close: () => db.close() };
  };

  interface Run {
    order: string;
    bot: BotFile;
    path: string;
    backendUp: boolean;
    /** Charges the platform took for this order that the bot was told of (successful_payment stored), in order. */
    taken: string[];
    /** Every charge the platform took in this run (strays naming other orders too). */
    all: string[];
    /** Of those, the ones some ForwardPayment has reached the backend with (recorded there, credited or not). */
    recorded: Set<string>;
    /** The clock until which the last approval holds the order (0: none yet). */
    holdUntil: number;
  }

  const stats = { taps: 0, approved: 0, heldByBotBackendWouldApprove: 0, chargedDeclines: 0, unreachableDeclines: 0 };

  /** The bot stores a successful_payment: its outbox row, from the bot's own mapping of the message. */
  function paid(run: Run, platformChargeId: string, orderId: string, amount: bigint, user: bigint): void {
    const row = outboxPaymentOf(
      { currency: 'XTR', total_amount: Number(amount), invoice_payload: orderId, telegram_payment_charge_id: platformChargeId },
      { message_id: 1, chat: { id: Number(user), type: 'private' }, from: { id: Number(user), is_bot: false, first_name: 'Payer' } },
    );
    expect(run.bot.outbox.add(row)).toBe(true);
    run.all.push(platformChargeId);
    if (orderId === run.order) run.taken.push(platformChargeId);
  }

  async function tap(run: Run, user: 0 | 1, abandon: boolean): Promise<void> {
    stats.taps += 1;
    const known = run.taken.length;
    const pending = new Set(run.bot.outbox.pending(1_000).map((r) => r.platformChargeId));
    const waiting = run.taken.some((c) => pending.has(c));
    const recorded = run.taken.some((c) => run.recorded.has(c));
    const unheld = clock >= run.holdUntil;
    const validate: ValidatePreCheckout = run.backendUp
      ? async (req) => {
          // As the bot-link carries the backend's verdict: ok, or not with its reason.
          const verdict = await validatePreCheckout(deps, req.orderId, req.amount, req.currency);
          return verdict.ok ? { ok: true, reason: '' } : verdict;
        }
      : () => Promise.reject(new Error('backend unreachable'));
    const verdict = await decidePreCheckout(
      run.bot.held,
      validate,
      { invoice_payload: run.order, total_amount: Number(PRICE), currency: 'XTR' },
      log,
    );
    // No approval while a payment for the order waits, nor once one is recorded: once the platform took
    // a charge for this order (and told the bot), every later tap is declined.
    expect(verdict.ok && known > 0 ? { approvedWith: { charges: known, waiting, recorded } } : null).toBeNull();
    // And nothing else declines it: with the backend up, no charge and no live hold, the tap is approved.
    if (run.backendUp && known === 0 && unheld) expect(verdict).toEqual({ ok: true, reason: '' });
    // The bot says "held" exactly when a payment for the order waits in its file.
    expect(verdict.reason === PAYMENT_HELD_REASON).toBe(waiting);
    if (waiting && run.backendUp && unheld && !recorded) stats.heldByBotBackendWouldApprove += 1;
    if (verdict.reason === DECLINE.charged) stats.chargedDeclines += 1;
    if (!run.backendUp && !verdict.ok) stats.unreachableDeclines += 1;
    if (!verdict.ok) return;
    stats.approved += 1;
    run.holdUntil = clock + HOLD_MS;
    if (abandon) return;
    paid(run, platform.take(run.order, PRICE, 9_000n + BigInt(user)), run.order, PRICE, 9_000n + BigInt(user));
  }

  /** The forwarder's rule for one row: forgotten only once a ForwardPaymentResponse arrived. */
  async function forward(run: Run, pick: number, answerLost: boolean): Promise<void> {
    const rows = run.bot.outbox.pending(1_000);
    const row = rows[pick % Math.max(rows.length, 1)];
    if (!row) return;
    if (!run.backendUp) return;
    await forwardPayment(deps, {
      orderId: row.orderId,
      platformChargeId: row.platformChargeId,
      amount: row.amount,
      platformUserId: row.platformUserId,
    });
    run.recorded.add(row.platformChargeId);
    if (!answerLost) run.bot.outbox.remove(row.platformChargeId);
  }

  async function act(a: Action, run: Run): Promise<void> {
    switch (a.kind) {
      case 'tap':
        return tap(run, a.user, a.abandon);
      case 'stray': {
        // A charge no pre-checkout of this bot approved (an old link, an earlier deployment) reaches the bot.
        const orderId = a.thisOrder ? run.order : randomUUID();
        const amount = a.amountOk ? PRICE : 7n;
        paid(run, platform.take(orderId, amount, 9_100n), orderId, amount, 9_100n);
        return;
      }
      case 'forward':
        return forward(run, a.pick, a.answerLost);
      case 'backendDown':
        run.backendUp = false;
        return;
      case 'backendUp':
        run.backendUp = true;
        return;
      case 'holdLapses':
        clock += HOLD_MS + 1_000;
        return;
      case 'starRefunds':
        // The refund loop runs in the backend: nothing happens while it is down.
        if (run.backendUp) await refunder.runDue(new Date(clock));
        return;
      case 'botRestart':
        run.bot.close();
        run.bot = openBot(run.path);
        return;
    }
  }

  /** Afterwards: the backend is back, the bot forwards every row until answered, refunds are re-sent until done. */
  async function settle(run: Run): Promise<void> {
    run.backendUp = true;
    for (let row = run.bot.outbox.pending(1)[0]; row; row = run.bot.outbox.pending(1)[0]) await forward(run, 0, false);
    platform.fates = [];
    for (let i = 0; i < 5; i += 1) {
      clock += 3_600_000;
      await refunder.runDue(new Date(clock));
    }
  }

  it(`every charge ends credited once or returned once; no repeat pre-checkout is approved while a payment for its order waits (${RUNS} runs)`, async () => {
    let runs = 0;
    let credited = 0;
    let returned = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(action, { minLength: 3, maxLength: 12 }),
        fc.array(fc.constantFrom<Fate>('ok', 'ack_lost', 'unreachable'), { minLength: 1, maxLength: 4 }),
        async (actions, fates) => {
          runs += 1;
          platform.fates = fates;
          const account = await pg.db.insertInto('accounts').defaultValues().returning('id').executeTakeFirstOrThrow();
          const order = randomUUID();
          await pg.db
            .insertInto('orders')
            .values({
              id: order,
              account_id: account.id,
              product_id: productId,
              title: 'Outbox pack',
              rail: 'stars',
              provider: 'telegram_stars',
              shop: null,
              segment: 'telegram',
              amount: PRICE,
              currency: 'XTR',
              chips: 100n,
              created_at: new Date(clock),
              expires_at: new Date(clock + 1_800_000),
            })
            .execute();
          const path = join(dir, `bot-${runs}.sqlite`);
          const run: Run = { order, bot: openBot(path), path, backendUp: true, taken: [], all: [], recorded: new Set(), holdUntil: 0 };
          try {
            for (const a of actions) await act(a, run);
            await settle(run);
          } finally {
            run.bot.close();
          }

          const reopened = PaymentOutbox.open(path);
          expect(reopened.pending()).toEqual([]);
          reopened.close();
          const ids = run.all;
          const orders = await pg.db
            .selectFrom('orders')
            .select(['id', 'state', 'platform_charge_id', 'refund_id'])
            .where('platform_charge_id', 'in', ids.length === 0 ? [''] : ids)
            .execute();
          const unmatched = await pg.db
            .selectFrom('unmatched_payments')
            .select(['platform_charge_id', 'refund_status'])
            .where('platform_charge_id', 'in', ids.length === 0 ? [''] : ids)
            .execute();
          for (const platformChargeId of ids) {
            const charge = platform.charges.get(platformChargeId);
            const home = orders.filter((o) => o.platform_charge_id === platformChargeId).length;
            const back = unmatched.filter((u) => u.platform_charge_id === platformChargeId);
            // Exactly one home for every charge the platform took: credited, or recorded and given back once.
            expect([platformChargeId, home + back.length]).toEqual([platformChargeId, 1]);
            if (home === 1) {
              credited += 1;
              expect([platformChargeId, charge?.refunded]).toEqual([platformChargeId, false]);
            } else {
              returned += 1;
              expect([platformChargeId, back[0]?.refund_status, charge?.refunded]).toEqual([platformChargeId, 'refunded', true]);
            }
          }
          // The order: paid by at most one charge, and only by one the platform took for it.
          const row = await pg.db
            .selectFrom('orders')
            .select(['state', 'platform_charge_id'])
            .where('id', '=', order)
            .executeTakeFirstOrThrow();
          const purchases = await pg.db
            .selectFrom('ledger_operations')
            .select('id')
            .where('order_id', '=', order)
            .where('kind', '=', 'purchase')
            .execute();
          expect(purchases).toHaveLength(row.state === 'paid' ? 1 : 0);
          if (row.state === 'paid') expect(run.taken).toContain(row.platform_charge_id);
          if (runs % 100 === 0) expect((await auditLedger(pg.db)).problems).toEqual([]);
        },
      ),
      { numRuns: RUNS },
    );
    expect(runs).toBe(RUNS);
    expect((await auditLedger(pg.db)).problems).toEqual([]);
    report('money conservation with the bot outbox', JSON.stringify({ runs, ...stats, credited, returned }));
    // The interleavings must reach the paths this property is about.
    expect(stats.heldByBotBackendWouldApprove).toBeGreaterThan(50);
    expect(stats.chargedDeclines).toBeGreaterThan(10);
    expect(stats.unreachableDeclines).toBeGreaterThan(100);
    expect(credited).toBeGreaterThan(200);
    expect(returned).toBeGreaterThan(200);
  }, 600_000);
});
