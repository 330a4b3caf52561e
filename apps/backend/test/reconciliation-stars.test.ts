import { ConnectError } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb, gatewayApi, type botlink } from '@wordgame/contracts';
import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import { startCardFixture, type CardFixture } from './card-support.js';
import { asOperator, operatorToken } from './console-support.js';
import { createOrder, deliverInvoices, forward, refund, refundThroughPlatform, telegramAccount } from './payments-support.js';
import { errorOf } from './support/harness.js';
import { createProduct } from './support/wallet.js';
import type { Reconciler } from '../src/reconciliation/job.js';

/**
 * Plays the bot for the backend's bot commands: invoices and refunds are acknowledged, and
 * get_star_transactions answers the platform emulator's getStarTransactions page in the bot's
 * compact form (apps/bot tests cover the bot's own translation against the same emulator).
 */
function botOver(platform: PlatformEmulator) {
  return (c: botlink.Command) => {
    if (c.payload.case === 'refundStarPayment') return { outcome: gatewayApi.Outcome.DELIVERED };
    if (c.payload.case !== 'getStarTransactions') return deliverInvoices(c);
    const { offset, limit } = c.payload.value;
    const page = platform.control.starTransactions().slice(Number(offset), Number(offset + limit));
    const transactions = page.map((t) =>
      t.source
        ? { id: t.id, amount: t.amount, date: t.date, kind: 'payment', user_id: t.source.user.id, payload: t.source.invoice_payload ?? '' }
        : { id: t.id, amount: t.amount, date: t.date, kind: 'refund', user_id: t.receiver?.user.id },
    );
    return { outcome: gatewayApi.Outcome.DELIVERED, result: JSON.stringify({ transactions }) };
  };
}

describe('stars reconciliation against the platform emulator on PostgreSQL', () => {
  let f: CardFixture;
  let platform: PlatformEmulator;
  let reconciler: Reconciler;
  let pack: bigint;
  let userId: number;
  let seq = 0;

  beforeAll(async () => {
    platform = await startPlatformEmulator();
    f = await startCardFixture({ RECONCILIATION_INTERVAL_MS: '0', RECONCILIATION_RAILS: 'stars', STAR_REFUND_INTERVAL_MS: '0' });
    f.bot.respond = botOver(platform);
    reconciler =
      f.h.app.reconciler() ??
      (() => {
        throw new Error('no reconciler');
      })();
    pack = await createProduct(f.h.client(backendApi.CatalogAdminService), {
      title: '50 chips',
      atoms: [['chips', 50n]],
      prices: [['xtr', 50n]],
    });
  }, 60_000);
  afterAll(async () => {
    await f.stop();
    await platform.stop();
  });
  beforeEach(() => {
    platform.control.reset();
    userId = platform.control.createUser({ started: true }).user.id;
  });

  const intake = () => f.h.client(backendApi.BotIntakeService);
  const window = (from: Date) => ({ from, to: new Date(Date.now() + 2_000) });

  async function pendingOrder(): Promise<string> {
    seq += 1;
    const account = await telegramAccount(f.db(), `77${seq}${Date.now() % 100000}`);
    return (await createOrder(f.payments, account, 'telegram', pack, 'stars')).orderId;
  }

  /** A stars order the platform charged and the bot forwarded: credited. */
  async function paidOrder(): Promise<{ orderId: string; chargeId: string }> {
    const orderId = await pendingOrder();
    const { telegramPaymentChargeId: chargeId } = platform.control.unforwardedCharge({ userId, amount: 50, payload: orderId });
    expect(await forward(intake(), orderId, chargeId, 50n, BigInt(userId))).toBe(true);
    return { orderId, chargeId };
  }

  it('a clean window reports nothing; a known unmatched payment is not reported again', async () => {
    const from = new Date();
    await paidOrder();
    const stray = platform.control.unforwardedCharge({ userId, amount: 7, payload: 'not-an-order' });
    await forward(intake(), 'not-an-order', stray.telegramPaymentChargeId, 7n, BigInt(userId));
    const report = await reconciler.run(window(from), 'cli');
    expect(report.run).toMatchObject({ outcome: 'clean', rails: 'stars' });
    const asked = f.bot.commands.filter((c) => c.payload.case === 'getStarTransactions');
    expect(asked.at(-1)?.payload.value).toMatchObject({ offset: 0n, limit: 100n });
  });

  it('reports each kind of mismatch with order and charge ids', async () => {
    const from = new Date();
    const neverForwarded = await pendingOrder();
    const lost = platform.control.unforwardedCharge({ userId, amount: 50, payload: neverForwarded }).telegramPaymentChargeId;
    const forgotten = await paidOrder();
    platform.control.forgetCharge(forgotten.chargeId);
    const altered = await paidOrder();
    platform.control.alterCharge(altered.chargeId, 45);
    const platformOnly = await paidOrder();
    platform.control.platformRefund(platformOnly.chargeId);
    const ledgerOnly = await paidOrder();
    expect((await refund(f.refunds, ledgerOnly.orderId)).status).toBe('succeeded');
    await paidOrder();

    const report = await reconciler.run(window(from), 'cli');
    const rows = report.mismatches.map((m) => [m.kind, m.order_id, m.payment_ref, m.refund_ref, m.ledger_amount, m.provider_amount]);
    expect(rows).toEqual(
      expect.arrayContaining([
        ['taken_not_credited', neverForwarded, lost, null, null, 50n],
        ['credited_not_taken', forgotten.orderId, forgotten.chargeId, null, 50n, null],
        ['amount_mismatch', altered.orderId, altered.chargeId, null, 50n, 45n],
        ['refund_provider_only', platformOnly.orderId, platformOnly.chargeId, platformOnly.chargeId, null, 50n],
        ['refund_ledger_only', ledgerOnly.orderId, ledgerOnly.chargeId, ledgerOnly.chargeId, 50n, null],
      ]),
    );
    expect(rows).toHaveLength(5);
    expect(report.mismatches.find((m) => m.kind === 'taken_not_credited')?.payer_ref).toBe(String(userId));
    const text = await f.h.app.metricsRegistry().metrics();
    expect(text).toContain('reconciliation_mismatches{kind="refund_ledger_only"} 1');

    // once the lost charge went back to its payer, the next run no longer reports it
    platform.control.platformRefund(lost);
    const next = await reconciler.run(window(from), 'cli');
    expect(next.mismatches.filter((m) => m.payment_ref === lost)).toEqual([]);
  });

  it('credit and refund pressed at once on one stars row, on two replicas: exactly one happens, and the loser is told which', async () => {
    const from = new Date();
    const rounds: Array<{ orderId: string; chargeId: string }> = [];
    for (let i = 0; i < 20; i += 1) {
      const orderId = await pendingOrder();
      rounds.push({
        orderId,
        ...{ chargeId: platform.control.unforwardedCharge({ userId, amount: 50, payload: orderId }).telegramPaymentChargeId },
      });
    }
    const report = await reconciler.run(window(from), 'cli');
    // the bot refunds through the platform emulator, each refund held there a while
    f.bot.respond = refundThroughPlatform(platform, botOver(platform));
    platform.control.addFault({ method: 'refundStarPayment', delayMs: 120, times: 1_000 });
    const console = f.h.client(backendApi.ConsoleService);
    const tokens = [
      await operatorToken(f.db(), console, 'stars-alice', ['refunder']),
      await operatorToken(f.db(), console, 'stars-bob', ['refunder']),
    ];
    const replica = await f.h.replica();
    try {
      const sides = [f.h.client(backendApi.ReconciliationService), replica.client(backendApi.ReconciliationService)];
      const press = async (side: number, id: bigint, action: string) => {
        try {
          const res = await sides[side]?.actOnMismatch(
            { body: encodeTable((b) => fb.ReconciliationAction.createReconciliationAction(b, id, b.createString(action))) },
            asOperator(tokens[side] ?? ''),
          );
          const outcome = decodeTable(
            res?.body ?? new Uint8Array(),
            (bb) => fb.ReconciliationActionResult.getRootAsReconciliationActionResult(bb),
            (t) => t.outcome() ?? '',
          );
          return { ok: true as const, side, action, outcome };
        } catch (err: unknown) {
          return { ok: false as const, side, action, ...errorOf(err), message: ConnectError.from(err).rawMessage };
        }
      };
      for (const [i, round] of rounds.entries()) {
        const id = report.mismatches.find((m) => m.payment_ref === round.chargeId && m.kind === 'taken_not_credited')?.id;
        if (id === undefined) throw new Error(`no mismatch for round ${i}`);
        const [a, b] = i % 2 === 0 ? ['credit', 'refund'] : ['refund', 'credit'];
        const answers = await Promise.all([press(0, id, a ?? ''), press(1, id, b ?? '')]);
        const winner = answers.find((x) => x.ok);
        const loser = answers.find((x) => !x.ok);
        expect({ round: i, won: answers.filter((x) => x.ok).length }).toEqual({ round: i, won: 1 });
        if (!winner || !loser || loser.ok) throw new Error('unreachable');
        const order = await f.db().selectFrom('orders').select('state').where('id', '=', round.orderId).executeTakeFirstOrThrow();
        const ledger = await f.db().selectFrom('ledger_operations').select('id').where('order_id', '=', round.orderId).execute();
        const calls = platform.control.calls('refundStarPayment').filter((c) => c.params['telegram_payment_charge_id'] === round.chargeId);
        const returned = platform.control.starRefunds().filter((r) => r.telegramPaymentChargeId === round.chargeId);
        expect({
          round: i,
          paid: order.state === 'paid',
          ledgerRows: ledger.length,
          platformCalls: calls.length,
          returned: returned.length,
        }).toEqual({
          round: i,
          paid: winner.action === 'credit',
          ledgerRows: winner.action === 'credit' ? 1 : 0,
          platformCalls: winner.action === 'refund' ? 1 : 0,
          returned: winner.action === 'refund' ? 1 : 0,
        });
        expect(`${i}: ${loser.errorCode}`).toMatch(/^\d+: (already_resolved|action_in_progress)$/);
        expect(loser.message).toContain(winner.side === 0 ? 'stars-alice' : 'stars-bob');
        expect(loser.message).toContain(winner.action);
      }
    } finally {
      await replica.stop();
      f.bot.respond = botOver(platform);
    }
  }, 60_000);

  it('pages through more than one page of transactions, and fails the run when the bot cannot answer', async () => {
    const from = new Date();
    for (let i = 0; i < 120; i += 1) platform.control.unforwardedCharge({ userId, amount: 1, payload: '' });
    const report = await reconciler.run(window(from), 'cli');
    expect(report.mismatches.filter((m) => m.kind === 'taken_not_credited')).toHaveLength(120);
    f.bot.respond = () => ({ outcome: gatewayApi.Outcome.NO_BOT });
    try {
      const failed = await reconciler.run(window(from), 'cli');
      expect(failed.run.outcome).toBe('failed');
      expect(failed.run.error).toMatch(/get_star_transactions: NO_BOT/);
    } finally {
      f.bot.respond = botOver(platform);
    }
  });
});
