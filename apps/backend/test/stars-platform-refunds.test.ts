import { ConnectError, Code } from '@connectrpc/connect';
import { backendApi, gatewayApi, type botlink } from '@wordgame/contracts';
import { startPlatformEmulator, type PlatformEmulator, type TgStarTransaction } from '@wordgame/platform-emulator';
import { auditLedger } from '../src/ledger/audit.js';
import { createStarRefunder } from '../src/payments/refunds/star-refunds.js';
import type { Reconciler } from '../src/reconciliation/job.js';
import { startCardFixture, type CardFixture } from './card-support.js';
import { createOrder, deliverInvoices, forward, forwardRefund, refund, telegramAccount, type Responder } from './payments-support.js';
import { createProduct } from './support/wallet.js';

/**
 * Plays the bot over the platform emulator: refund_star_payment refunds there (already refunded
 * charges answered as Telegram's CHARGE_ALREADY_REFUNDED maps), get_star_transactions reads its list.
 * `duringRefund` runs while a refund call is in flight (before the platform is asked).
 */
function botOver(platform: PlatformEmulator, duringRefund: { run?: (charge: string) => Promise<void> }): Responder {
  return async (c: botlink.Command) => {
    if (c.payload.case === 'refundStarPayment') {
      const charge = c.payload.value.platformPaymentChargeId;
      await duringRefund.run?.(charge);
      const already = platform.control.starRefunds().some((r) => r.telegramPaymentChargeId === charge);
      if (!already) platform.control.platformRefund(charge);
      return { outcome: gatewayApi.Outcome.DELIVERED, result: already ? 'already_refunded' : '' };
    }
    if (c.payload.case !== 'getStarTransactions') return deliverInvoices(c);
    const { offset, limit } = c.payload.value;
    const res = await fetch(`${platform.apiRoot}/bot${platform.tokens[0] ?? ''}/getStarTransactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ offset: Number(offset), limit: Number(limit) }),
    });
    const body = (await res.json()) as { ok: boolean; result?: { transactions: TgStarTransaction[] } };
    if (!body.ok || !body.result) return { outcome: gatewayApi.Outcome.ERROR, error: `platform ${res.status}` };
    const transactions = body.result.transactions.map((t) =>
      t.source
        ? { id: t.id, amount: t.amount, date: t.date, kind: 'payment', user_id: t.source.user.id, payload: t.source.invoice_payload ?? '' }
        : { id: t.id, amount: t.amount, date: t.date, kind: 'refund', user_id: t.receiver?.user.id },
    );
    return { outcome: gatewayApi.Outcome.DELIVERED, result: JSON.stringify({ transactions }) };
  };
}

describe('ForwardRefund: a stars refund made outside our refund flow, on PostgreSQL', () => {
  let f: CardFixture;
  let platform: PlatformEmulator;
  let reconciler: Reconciler;
  let pack: bigint;
  let userId: number;
  let seq = 0;
  const during: { run?: (charge: string) => Promise<void> } = {};

  beforeAll(async () => {
    platform = await startPlatformEmulator();
    f = await startCardFixture({ RECONCILIATION_INTERVAL_MS: '0', RECONCILIATION_RAILS: 'stars', STAR_REFUND_INTERVAL_MS: '0' });
    reconciler =
      f.h.app.reconciler() ??
      (() => {
        throw new Error('no reconciler');
      })();
    pack = await createProduct(f.h.client(backendApi.CatalogAdminService), {
      title: 'Refundable pack',
      atoms: [
        ['chips', 50n],
        ['hints', 2n],
      ],
      prices: [['xtr', 50n]],
    });
  }, 60_000);
  afterAll(async () => {
    await f.stop();
    await platform.stop();
  });
  beforeEach(() => {
    platform.control.reset();
    delete during.run;
    f.bot.respond = botOver(platform, during);
    userId = platform.control.createUser({ started: true }).user.id;
  });

  const intake = () => f.h.client(backendApi.BotIntakeService);
  const db = () => f.db();

  async function pendingOrder(): Promise<{ orderId: string; accountId: bigint }> {
    seq += 1;
    const accountId = await telegramAccount(db(), `88${seq}${Date.now() % 100000}`);
    return { accountId, orderId: (await createOrder(f.payments, accountId, 'telegram', pack, 'stars')).orderId };
  }

  async function paidOrder(): Promise<{ orderId: string; accountId: bigint; charge: string }> {
    const order = await pendingOrder();
    const charge = platform.control.unforwardedCharge({ userId, amount: 50, payload: order.orderId }).telegramPaymentChargeId;
    expect(await forward(intake(), order.orderId, charge, 50n, BigInt(userId))).toBe(true);
    return { ...order, charge };
  }

  const ledger = (orderId: string) =>
    db()
      .selectFrom('ledger_operations')
      .select(['kind', 'money_minor', 'refund_id'])
      .where('order_id', '=', orderId)
      .orderBy('id')
      .execute();
  const chips = async (accountId: bigint) =>
    (
      await db()
        .selectFrom('wallet_segments')
        .select('balance')
        .where('account_id', '=', accountId)
        .where('segment', '=', 'telegram')
        .executeTakeFirstOrThrow()
    ).balance;
  const findings = async (from: Date, charge: string) =>
    (await reconciler.run({ from, to: new Date(Date.now() + 2_000) }, 'cli')).mismatches.filter((m) => m.payment_ref === charge);

  it('reverses exactly what the pack funded once, however often and concurrently it is delivered; the reconciliation agrees', async () => {
    const from = new Date();
    const { orderId, accountId, charge } = await paidOrder();
    expect(await chips(accountId)).toBe(50n);
    platform.control.platformRefund(charge);

    const answers = await Promise.all([1, 2, 3].map(() => forwardRefund(intake(), orderId, charge, 50n, BigInt(userId))));
    expect(answers).toEqual([true, true, true]);
    expect(await forwardRefund(intake(), orderId, charge, 50n, BigInt(userId))).toBe(true);

    expect(await ledger(orderId)).toEqual([
      { kind: 'purchase', money_minor: 50n, refund_id: null },
      { kind: 'refund', money_minor: -50n, refund_id: charge },
    ]);
    expect(await chips(accountId)).toBe(0n);
    const order = await db().selectFrom('orders').select(['state', 'refund_id']).where('id', '=', orderId).executeTakeFirstOrThrow();
    expect(order).toEqual({ state: 'paid', refund_id: charge });
    expect(await findings(from, charge)).toEqual([]);
    expect((await auditLedger(db())).problems).toEqual([]);
  });

  it('leaves a debt when the chips were spent, as any full refund does', async () => {
    const { orderId, accountId, charge } = await paidOrder();
    await db().updateTable('wallet_segments').set({ balance: 10n }).where('account_id', '=', accountId).execute();
    expect(await forwardRefund(intake(), orderId, charge, 50n, BigInt(userId))).toBe(true);
    expect(await chips(accountId)).toBe(-40n);
  });

  it('while our own console refund of the order is in flight (its hold set): one refund recorded, one reversal', async () => {
    const from = new Date();
    const { orderId, charge } = await paidOrder();
    let heldDuringCall: string | null | undefined;
    during.run = async (refunding) => {
      heldDuringCall = (await db().selectFrom('orders').select('refund_hold').where('id', '=', orderId).executeTakeFirstOrThrow())
        .refund_hold;
      platform.control.platformRefund(refunding);
      expect(await forwardRefund(intake(), orderId, refunding, 50n, BigInt(userId))).toBe(true);
    };
    expect(await refund(f.refunds, orderId)).toMatchObject({ status: 'succeeded', refundId: charge });
    expect(heldDuringCall).toBe(charge);
    expect(await ledger(orderId)).toEqual([
      { kind: 'purchase', money_minor: 50n, refund_id: null },
      { kind: 'refund', money_minor: -50n, refund_id: charge },
    ]);
    const order = await db()
      .selectFrom('orders')
      .select(['refund_hold', 'refund_claimed_at'])
      .where('id', '=', orderId)
      .executeTakeFirstOrThrow();
    expect(order).toEqual({ refund_hold: null, refund_claimed_at: null });
    expect(await findings(from, charge)).toEqual([]);
  });

  it('a charge refunded before its payment was forwarded: the order closes as refunded, the late ForwardPayment credits nothing, no reversal', async () => {
    const from = new Date();
    const { orderId } = await pendingOrder();
    const charge = platform.control.unforwardedCharge({ userId, amount: 50, payload: orderId }).telegramPaymentChargeId;
    platform.control.platformRefund(charge);
    expect(await forwardRefund(intake(), orderId, charge, 50n, BigInt(userId))).toBe(true);
    // The first delivery alone records the charge as refunded: its automatic return never sends the stars back a second time.
    const recorded = () =>
      db().selectFrom('unmatched_payments').select(['reason', 'refund_status']).where('platform_charge_id', '=', charge).execute();
    expect(await recorded()).toEqual([{ reason: 'refunded_before_credit', refund_status: 'refunded' }]);
    const before = f.bot.commands.length;
    await createStarRefunder(f.deps, { intervalMs: 0, retryMaxMs: 60_000 }).runDue(new Date(Date.now() + 3_600_000));
    expect(f.bot.commands.slice(before).filter((c) => c.payload.case === 'refundStarPayment')).toEqual([]);
    expect(await forwardRefund(intake(), orderId, charge, 50n, BigInt(userId))).toBe(true);
    expect(await forward(intake(), orderId, charge, 50n, BigInt(userId))).toBe(false);

    expect(await ledger(orderId)).toEqual([]);
    const order = await db()
      .selectFrom('orders')
      .select(['state', 'failure_reason', 'refund_id', 'platform_charge_id'])
      .where('id', '=', orderId)
      .executeTakeFirstOrThrow();
    expect(order).toEqual({ state: 'failed', failure_reason: 'refunded', refund_id: charge, platform_charge_id: null });
    expect(await recorded()).toEqual([{ reason: 'refunded_before_credit', refund_status: 'refunded' }]);
    const events = await db()
      .selectFrom('payment_events')
      .select('kind')
      .where('order_id', '=', orderId)
      .where('kind', '=', 'refunded')
      .execute();
    expect(events).toHaveLength(1);
    expect(await findings(from, charge)).toEqual([]);
  });

  it('a charge recorded as unmatched (being returned) is marked refunded once and its automatic return sends nothing', async () => {
    const { orderId } = await paidOrder();
    const second = platform.control.unforwardedCharge({ userId, amount: 50, payload: orderId }).telegramPaymentChargeId;
    expect(await forward(intake(), orderId, second, 50n, BigInt(userId))).toBe(false);
    platform.control.platformRefund(second);
    expect(await forwardRefund(intake(), orderId, second, 50n, BigInt(userId))).toBe(true);
    expect(await forwardRefund(intake(), orderId, second, 50n, BigInt(userId))).toBe(true);
    const row = await db()
      .selectFrom('unmatched_payments')
      .select(['refund_status'])
      .where('platform_charge_id', '=', second)
      .executeTakeFirstOrThrow();
    expect(row.refund_status).toBe('refunded');
    const before = f.bot.commands.length;
    await createStarRefunder(f.deps, { intervalMs: 0, retryMaxMs: 60_000 }).runDue(new Date(Date.now() + 3_600_000));
    expect(f.bot.commands.slice(before).filter((c) => c.payload.case === 'refundStarPayment')).toEqual([]);
    expect((await ledger(orderId)).map((l) => l.kind)).toEqual(['purchase']);
  });

  it('a charge of no order of ours is recorded for an operator: recorded=false, on every delivery', async () => {
    const charge = `stx-unknown-${Date.now()}`;
    expect(await forwardRefund(intake(), 'not-an-order', charge, 9n, BigInt(userId))).toBe(false);
    expect(await forwardRefund(intake(), 'not-an-order', charge, 9n, BigInt(userId))).toBe(false);
    const rows = await db()
      .selectFrom('unmatched_payments')
      .select(['reason', 'refund_status', 'amount'])
      .where('platform_charge_id', '=', charge)
      .execute();
    expect(rows).toEqual([{ reason: 'refunded_unknown', refund_status: 'refunded', amount: 9n }]);
  });

  it('refuses a body without a charge id, in another currency or without an amount', async () => {
    const { orderId } = await pendingOrder();
    for (const [charge, amount, currency] of [
      ['', 50n, 'XTR'],
      ['c-1', 50n, 'USD'],
      ['c-1', 0n, 'XTR'],
    ] as const) {
      const err = await forwardRefund(intake(), orderId, charge, amount, 1n, currency).then(
        () => undefined,
        (e: unknown) => ConnectError.from(e),
      );
      expect(err?.code).toBe(Code.InvalidArgument);
    }
  });
});
