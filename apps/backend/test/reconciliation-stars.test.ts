import { backendApi, gatewayApi, type botlink } from '@wordgame/contracts';
import { startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import { startCardFixture, type CardFixture } from './card-support.js';
import { createOrder, deliverInvoices, forward, refund, telegramAccount } from './payments-support.js';
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
