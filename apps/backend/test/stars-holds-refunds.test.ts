import { ConnectError, type Client } from '@connectrpc/connect';
import { sql } from 'kysely';
import { backendApi, gatewayApi } from '@wordgame/contracts';
import { createLogger } from '@wordgame/logging';
import { startPlatformEmulator } from '@wordgame/platform-emulator';
import { loadBackendConfig } from '../src/config/index.js';
import { auditLedger } from '../src/ledger/audit.js';
import { paymentDeps } from '../src/payments/module.js';
import { DECLINE } from '../src/payments/stars/intake.js';
import { createStarRefunder, retryDelayMs, type StarRefunder } from '../src/payments/refunds/star-refunds.js';
import { errorOf, failure, startHarness, type Harness } from './support/harness.js';
import { createProduct } from './support/wallet.js';
import {
  createOrder,
  deliverInvoices,
  forward,
  preCheckout,
  refund,
  refundThroughPlatform,
  startBotCommandServer,
  telegramAccount,
  type BotCommandServer,
  type Responder,
} from './payments-support.js';
import { TEST_RATE_LIMITS, TEST_SERVICE_TOKENS } from '@wordgame/testkit';

const HOLD_MS = 1_000;

/** Answers refund_star_payment like a platform that refunds each charge once. */
function refundingPlatform(): { respond: Responder; refunded: Map<string, bigint> } {
  const refunded = new Map<string, bigint>();
  return {
    refunded,
    respond: (c) => {
      if (c.payload.case !== 'refundStarPayment') return deliverInvoices(c);
      const { platformPaymentChargeId: charge, userId } = c.payload.value;
      if (refunded.has(charge)) return { outcome: gatewayApi.Outcome.DELIVERED, result: 'already_refunded' };
      refunded.set(charge, userId);
      return { outcome: gatewayApi.Outcome.DELIVERED };
    },
  };
}

describe('stars rail: one live approval per order, unmatched stars returned, console refunds', () => {
  let bot: BotCommandServer;
  let h: Harness;
  let payments: Client<typeof backendApi.PaymentsService>;
  let intake: Client<typeof backendApi.BotIntakeService>;
  let refunds: Client<typeof backendApi.RefundService>;
  let refunder: StarRefunder;
  let pack: bigint;

  beforeAll(async () => {
    bot = await startBotCommandServer();
    const env = {
      GATEWAY_INTERNAL_URL: bot.url,
      REAPER_INTERVAL_MS: '0',
      STAR_REFUND_INTERVAL_MS: '0',
      PRECHECKOUT_HOLD_MS: String(HOLD_MS),
      BOT_COMMAND_TIMEOUT_MS: '1000',
    };
    h = await startHarness(env);
    payments = h.client(backendApi.PaymentsService);
    intake = h.client(backendApi.BotIntakeService);
    refunds = h.client(backendApi.RefundService);
    const config = loadBackendConfig({ ...TEST_SERVICE_TOKENS, ...TEST_RATE_LIMITS, ...env, DATABASE_URL: h.database.url });
    refunder = createStarRefunder(paymentDeps(config, h.database.db, createLogger('star-refunds', 'silent')), {
      intervalMs: 0,
      retryMaxMs: 60_000,
    });
    pack = await createProduct(h.client(backendApi.CatalogAdminService), {
      title: 'Stars pack',
      atoms: [
        ['chips', 300n],
        ['hints', 1n],
      ],
      prices: [['xtr', 150n]],
    });
  });
  afterAll(async () => {
    await h.stop();
    await bot.stop();
  });
  beforeEach(() => {
    bot.respond = deliverInvoices;
  });

  const newOrder = async (externalId: string) => {
    const id = await telegramAccount(h.database.db, externalId);
    return { accountId: id, orderId: (await createOrder(payments, id, 'telegram', pack, 'stars')).orderId };
  };
  const unmatched = (charge: string) =>
    h.database.db.selectFrom('unmatched_payments').selectAll().where('platform_charge_id', '=', charge).executeTakeFirstOrThrow();
  const refundCommands = () => bot.commands.filter((c) => c.payload.case === 'refundStarPayment');

  describe('ValidatePreCheckout holds the order', () => {
    it('approves exactly one of many concurrent pre-checkouts for one order', async () => {
      const { orderId } = await newOrder('81001');
      const verdicts = await Promise.all(Array.from({ length: 16 }, () => preCheckout(intake, orderId, 150n, 'XTR')));
      expect(verdicts.filter((v) => v.ok)).toHaveLength(1);
      expect(verdicts.filter((v) => !v.ok).map((v) => v.reason)).toEqual(Array.from({ length: 15 }, () => DECLINE.held));
    });

    it('lets a hold whose payment never arrives lapse, so the customer can pay again', async () => {
      const { orderId } = await newOrder('81002');
      expect(await preCheckout(intake, orderId, 150n, 'XTR')).toEqual({ ok: true, reason: '' });
      expect(await preCheckout(intake, orderId, 150n, 'XTR')).toEqual({ ok: false, reason: DECLINE.held });
      await new Promise((r) => setTimeout(r, HOLD_MS + 100));
      expect(await preCheckout(intake, orderId, 150n, 'XTR')).toEqual({ ok: true, reason: '' });
    });

    it('declines as paid once the held payment credited, and a mismatch is declined as such even while held', async () => {
      const { orderId } = await newOrder('81003');
      expect(await preCheckout(intake, orderId, 150n, 'XTR')).toEqual({ ok: true, reason: '' });
      expect(await preCheckout(intake, orderId, 149n, 'XTR')).toEqual({ ok: false, reason: DECLINE.mismatch });
      expect(await forward(intake, orderId, 'charge-81003', 150n)).toBe(true);
      expect(await preCheckout(intake, orderId, 150n, 'XTR')).toEqual({ ok: false, reason: DECLINE.paid });
    });
    it('declines an order that already has a recorded charge, credited or only recorded as unmatched, and takes no hold', async () => {
      const credited = await newOrder('81004');
      expect(await forward(intake, credited.orderId, 'charge-81004', 150n)).toBe(true);
      expect(await preCheckout(intake, credited.orderId, 150n, 'XTR')).toEqual({ ok: false, reason: DECLINE.paid });

      // A charge of another amount named the order: recorded as unmatched (being returned), the order still pending.
      const { orderId } = await newOrder('81005');
      expect(await forward(intake, orderId, 'charge-81005', 149n, 81005n)).toBe(false);
      expect(await unmatched('charge-81005')).toMatchObject({ order_id: orderId, reason: 'amount_mismatch' });
      for (let i = 0; i < 2; i += 1) {
        expect(await preCheckout(intake, orderId, 150n, 'XTR')).toEqual({ ok: false, reason: DECLINE.charged });
      }
      const order = await h.database.db
        .selectFrom('orders')
        .select(['state', 'checkout_hold_until'])
        .where('id', '=', orderId)
        .executeTakeFirstOrThrow();
      expect(order).toEqual({ state: 'pending', checkout_hold_until: null });
      // Returned to its payer, the charge still names the order: a new purchase is the way on.
      bot.respond = refundingPlatform().respond;
      await refunder.runDue();
      expect(await unmatched('charge-81005')).toMatchObject({ refund_status: 'refunded' });
      expect(await preCheckout(intake, orderId, 150n, 'XTR')).toEqual({ ok: false, reason: DECLINE.charged });
    });

    it('sees a charge that a ForwardPayment holding the order row records while the pre-checkout waits', async () => {
      const { orderId } = await newOrder('81006');
      let release = (): void => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      let recorded = (): void => undefined;
      const isRecorded = new Promise<void>((resolve) => (recorded = resolve));
      // ForwardPayment's locked path for a charge it cannot credit: the order row locked and touched, the charge recorded.
      const writer = h.database.db.transaction().execute(async (trx) => {
        await trx.selectFrom('orders').select('id').where('id', '=', orderId).forUpdate().execute();
        await trx
          .updateTable('orders')
          .set((eb) => ({ state: eb.ref('state') }))
          .where('id', '=', orderId)
          .execute();
        await trx
          .insertInto('unmatched_payments')
          .values({
            provider: 'telegram_stars',
            platform_charge_id: 'charge-81006',
            order_id: orderId,
            amount: 149n,
            platform_user_id: 81006n,
            reason: 'amount_mismatch',
          })
          .execute();
        recorded();
        await released;
      });
      await isRecorded;
      const verdict = preCheckout(intake, orderId, 150n, 'XTR');
      const lockWaiters = async () =>
        (
          await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'`.execute(h.database.db)
        ).rows[0]?.n ?? 0;
      for (let i = 0; i < 500 && (await lockWaiters()) === 0; i += 1) await new Promise((r) => setTimeout(r, 10));
      expect(await lockWaiters()).toBe(1);
      release();
      await writer;
      expect(await verdict).toEqual({ ok: false, reason: DECLINE.charged });
      bot.respond = refundingPlatform().respond;
      await refunder.runDue();
      expect(await unmatched('charge-81006')).toMatchObject({ refund_status: 'refunded' });
    });
  });

  describe('automatic return of unmatched stars', () => {
    it('returns a second charge of a paid order to its payer exactly once', async () => {
      const platform = refundingPlatform();
      bot.respond = platform.respond;
      const { orderId } = await newOrder('82001');
      expect(await forward(intake, orderId, 'charge-82001-a', 150n, 82001n)).toBe(true);
      expect(await forward(intake, orderId, 'charge-82001-b', 150n, 92001n)).toBe(false);
      const before = refundCommands().length;
      expect((await refunder.runDue()).refunded).toBeGreaterThanOrEqual(1);
      expect(platform.refunded.get('charge-82001-b')).toBe(92001n);
      expect(platform.refunded.has('charge-82001-a')).toBe(false);
      expect(await unmatched('charge-82001-b')).toMatchObject({ refund_status: 'refunded', refund_attempts: 1, refund_error: null });
      await refunder.runDue(new Date(Date.now() + 86_400_000));
      expect(
        refundCommands().filter(
          (c) => c.payload.case === 'refundStarPayment' && c.payload.value.platformPaymentChargeId === 'charge-82001-b',
        ),
      ).toHaveLength(1);
      expect(refundCommands().length).toBe(before + 1);
    });

    it('sends again after an unknown outcome, waiting its backoff, and takes already_refunded as done', async () => {
      let calls = 0;
      bot.respond = (c) => {
        if (c.payload.case !== 'refundStarPayment') return deliverInvoices(c);
        calls += 1;
        return calls === 1
          ? { outcome: gatewayApi.Outcome.TIMEOUT }
          : { outcome: gatewayApi.Outcome.DELIVERED, result: 'already_refunded' };
      };
      expect(await forward(intake, '00000000-0000-4000-8000-00000008a001', 'charge-83001', 7n, 83001n)).toBe(false);
      await refunder.runDue();
      const after = await unmatched('charge-83001');
      expect(after).toMatchObject({ refund_status: 'pending', refund_attempts: 1, refund_error: 'no ack in time' });
      expect(after.refund_next_at.getTime()).toBeGreaterThan(Date.now() + retryDelayMs(1, 60_000) - 1_000);
      await refunder.runDue();
      expect(calls).toBe(1);
      await refunder.runDue(new Date(after.refund_next_at.getTime() + 1));
      expect(calls).toBe(2);
      expect(await unmatched('charge-83001')).toMatchObject({ refund_status: 'refunded', refund_attempts: 2, refund_error: null });
    });

    it('records a platform refusal as failed with the platform error and stops sending', async () => {
      bot.respond = (c) =>
        c.payload.case === 'refundStarPayment'
          ? { outcome: gatewayApi.Outcome.ERROR, error: 'platform 400: Bad Request: CHARGE_NOT_FOUND' }
          : deliverInvoices(c);
      expect(await forward(intake, 'garbage-84001', 'charge-84001', 9n, 84001n)).toBe(false);
      await refunder.runDue();
      expect(await unmatched('charge-84001')).toMatchObject({
        refund_status: 'failed',
        refund_error: 'platform 400: Bad Request: CHARGE_NOT_FOUND',
      });
      const sent = refundCommands().length;
      await refunder.runDue(new Date(Date.now() + 86_400_000));
      expect(refundCommands().length).toBe(sent);
    });

    it('hands a payment forwarded without a valid payer id to an operator at once, sending nothing', async () => {
      const sent = refundCommands().length;
      expect(await forward(intake, 'garbage-84101', 'charge-84101', 9n, 0n)).toBe(false);
      await refunder.runDue();
      expect(await unmatched('charge-84101')).toMatchObject({
        refund_status: 'failed',
        refund_error: 'no valid payer id was forwarded with this payment',
      });
      expect(refundCommands().length).toBe(sent);
    });

    it('keeps retrying on no bot, a link lost, a 429 or a platform 5xx', async () => {
      const answers: ReturnType<Responder>[] = [
        { outcome: gatewayApi.Outcome.NO_BOT },
        { outcome: gatewayApi.Outcome.ERROR, error: 'link_lost' },
        { outcome: gatewayApi.Outcome.ERROR, error: 'platform 429: Too Many Requests: retry after 3' },
        { outcome: gatewayApi.Outcome.ERROR, error: 'platform 502: Bad Gateway' },
        { outcome: gatewayApi.Outcome.DELIVERED },
      ];
      bot.respond = (c) =>
        c.payload.case === 'refundStarPayment' ? (answers.shift() ?? { outcome: gatewayApi.Outcome.DELIVERED }) : deliverInvoices(c);
      expect(await forward(intake, 'garbage-85001', 'charge-85001', 9n, 85001n)).toBe(false);
      let at = Date.now();
      for (let i = 0; i < 4; i += 1) {
        await refunder.runDue(new Date(at));
        expect(await unmatched('charge-85001')).toMatchObject({ refund_status: 'pending', refund_attempts: i + 1 });
        at = (await unmatched('charge-85001')).refund_next_at.getTime() + 1;
      }
      await refunder.runDue(new Date(at));
      expect(await unmatched('charge-85001')).toMatchObject({ refund_status: 'refunded', refund_attempts: 5 });
    });

    it('sends each due refund once when two backends run their pass at the same time', async () => {
      const platform = refundingPlatform();
      bot.respond = platform.respond;
      for (let i = 0; i < 12; i += 1) expect(await forward(intake, `garbage-86${i}`, `charge-86-${i}`, 3n, 86000n + BigInt(i))).toBe(false);
      const config = loadBackendConfig({
        ...TEST_SERVICE_TOKENS,
        ...TEST_RATE_LIMITS,
        DATABASE_URL: h.database.url,
        GATEWAY_INTERNAL_URL: bot.url,
      });
      const other = createStarRefunder(paymentDeps(config, h.database.db, createLogger('star-refunds-2', 'silent')), {
        intervalMs: 0,
        retryMaxMs: 60_000,
        batch: 5,
      });
      const before = refundCommands().length;
      await Promise.all([refunder.runDue(), other.runDue(), refunder.runDue(), other.runDue(), other.runDue(), refunder.runDue()]);
      const sent = refundCommands()
        .slice(before)
        .map((c) => (c.payload.case === 'refundStarPayment' ? c.payload.value.platformPaymentChargeId : ''));
      expect(new Set(sent).size).toBe(sent.length);
      const statuses = await h.database.db
        .selectFrom('unmatched_payments')
        .select('refund_status')
        .where('platform_charge_id', 'like', 'charge-86-%')
        .execute();
      expect(statuses.every((r) => r.refund_status === 'refunded')).toBe(true);
    });
  });

  describe('console refund of a stars purchase', () => {
    it('returns the stars to the payer through the bot first, then reverses once; pressing again is safe', async () => {
      const platform = refundingPlatform();
      bot.respond = platform.respond;
      const { accountId, orderId } = await newOrder('87001');
      expect(await forward(intake, orderId, 'charge-87001', 150n, 97001n)).toBe(true);
      expect(await refund(refunds, orderId)).toMatchObject({ status: 'succeeded', refundId: 'charge-87001', amount: 150n });
      expect(platform.refunded.get('charge-87001')).toBe(97001n);
      expect(await refund(refunds, orderId)).toMatchObject({ status: 'succeeded', refundId: 'charge-87001' });
      const rows = await h.database.db
        .selectFrom('ledger_operations')
        .select(['kind', 'money_minor', 'refund_id'])
        .where('order_id', '=', orderId)
        .orderBy('id')
        .execute();
      expect(rows).toEqual([
        { kind: 'purchase', money_minor: 150n, refund_id: null },
        { kind: 'refund', money_minor: -150n, refund_id: 'charge-87001' },
      ]);
      expect(
        refundCommands().filter(
          (c) => c.payload.case === 'refundStarPayment' && c.payload.value.platformPaymentChargeId === 'charge-87001',
        ),
      ).toHaveLength(1);
      const wallet = await h.database.db
        .selectFrom('wallet_segments')
        .select('balance')
        .where('account_id', '=', accountId)
        .where('segment', '=', 'telegram')
        .executeTakeFirstOrThrow();
      expect(wallet.balance).toBe(0n);
      expect((await auditLedger(h.database.db)).problems).toEqual([]);
    });

    it('records nothing when the platform refuses or the outcome is unknown, and records once when pressed again', async () => {
      const { orderId } = await newOrder('87002');
      expect(await forward(intake, orderId, 'charge-87002', 150n, 97002n)).toBe(true);
      bot.respond = (c) =>
        c.payload.case === 'refundStarPayment'
          ? { outcome: gatewayApi.Outcome.ERROR, error: 'platform 400: Bad Request: CHARGE_NOT_FOUND' }
          : deliverInvoices(c);
      expect(await failure(refund(refunds, orderId))).toEqual({ code: 9, errorCode: 'refund_rejected' });
      bot.respond = (c) => (c.payload.case === 'refundStarPayment' ? { outcome: gatewayApi.Outcome.TIMEOUT } : deliverInvoices(c));
      expect(await failure(refund(refunds, orderId))).toEqual({ code: 14, errorCode: 'bot_unavailable' });
      const count = () =>
        h.database.db.selectFrom('ledger_operations').select('id').where('order_id', '=', orderId).where('kind', '=', 'refund').execute();
      expect(await count()).toHaveLength(0);
      bot.respond = (c) =>
        c.payload.case === 'refundStarPayment' ? { outcome: gatewayApi.Outcome.DELIVERED, result: 'already_refunded' } : deliverInvoices(c);
      expect(await refund(refunds, orderId)).toMatchObject({ status: 'succeeded', refundId: 'charge-87002' });
      expect(await count()).toHaveLength(1);
    });

    it('six presses at once, on two replicas, make one platform refund call; the others are told it is in progress or done', async () => {
      const platform = await startPlatformEmulator();
      const replica = await h.replica();
      try {
        const payer = platform.control.createUser({ started: true }).user.id;
        const { orderId } = await newOrder('87004');
        const { telegramPaymentChargeId: charge } = platform.control.unforwardedCharge({ userId: payer, amount: 150, payload: orderId });
        expect(await forward(intake, orderId, charge, 150n, BigInt(payer))).toBe(true);
        bot.respond = refundThroughPlatform(platform);
        platform.control.addFault({ method: 'refundStarPayment', delayMs: 150, times: 10 });
        const clients = [refunds, replica.client(backendApi.RefundService)];
        const answers = await Promise.all(
          Array.from({ length: 6 }, (_, i) =>
            refund(clients[i % 2] ?? refunds, orderId).then(
              (r) => ({ status: r.status, refundId: r.refundId }),
              (err: unknown) => ({ ...errorOf(err), message: ConnectError.from(err).rawMessage }),
            ),
          ),
        );
        const calls = platform.control.calls('refundStarPayment').filter((c) => c.params['telegram_payment_charge_id'] === charge);
        expect(calls).toHaveLength(1);
        expect(platform.control.starRefunds()).toEqual([expect.objectContaining({ telegramPaymentChargeId: charge, userId: payer })]);
        for (const answer of answers) {
          if ('status' in answer) {
            expect(answer).toEqual({ status: 'succeeded', refundId: charge });
          } else {
            expect(answer).toMatchObject({ code: 10, errorCode: 'refund_in_progress' });
            expect(answer.message).toMatch(/^a refund of this order by harness-operator is in progress since /);
          }
        }
        expect(answers.filter((a) => 'status' in a).length).toBeGreaterThanOrEqual(1);
        expect(await refund(refunds, orderId)).toMatchObject({ status: 'succeeded', refundId: charge });
        expect(platform.control.calls('refundStarPayment')).toHaveLength(1);
        const rows = await h.database.db
          .selectFrom('ledger_operations')
          .select('kind')
          .where('order_id', '=', orderId)
          .where('kind', '=', 'refund')
          .execute();
        expect(rows).toHaveLength(1);
      } finally {
        await replica.stop();
        await platform.stop();
      }
    });

    it('refuses an unpaid stars order without calling the bot', async () => {
      const { orderId } = await newOrder('87003');
      const before = refundCommands().length;
      expect(await failure(refund(refunds, orderId))).toEqual({ code: 9, errorCode: 'order_not_paid' });
      expect(refundCommands().length).toBe(before);
    });
  });
});
