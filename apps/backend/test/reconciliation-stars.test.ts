import { ConnectError } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb, gatewayApi, type botlink } from '@wordgame/contracts';
import { startPlatformEmulator, type PlatformEmulator, type TgStarTransaction } from '@wordgame/platform-emulator';
import { startCardFixture, type CardFixture } from './card-support.js';
import { asOperator, operatorToken } from './console-support.js';
import {
  createOrder,
  deliverInvoices,
  forward,
  refund,
  refundThroughPlatform,
  telegramAccount,
  type Responder,
} from './payments-support.js';
import { errorOf } from './support/harness.js';
import { createProduct } from './support/wallet.js';
import type { Reconciler } from '../src/reconciliation/job.js';

type Order = 'oldest_first' | 'newest_first';
const ORDERS: Order[] = ['oldest_first', 'newest_first'];

/** What a stand-in bot does around one get_star_transactions page (the list growing while read). */
interface PageHooks {
  /** Before the platform is asked for the page (`call` counts from 1 within the bot's life). */
  before?(call: number): void | Promise<void>;
  /** After the page is read, before it is answered. */
  after?(call: number): void | Promise<void>;
}

/**
 * Plays the bot for the backend's bot commands: invoices and refunds are acknowledged, and
 * get_star_transactions asks the platform emulator's getStarTransactions over HTTP (its paging and
 * its order) and answers in the bot's compact form (apps/bot tests cover the bot's own translation
 * against the same emulator).
 */
function botOver(platform: PlatformEmulator, hooks: PageHooks = {}): Responder {
  let calls = 0;
  return async (c: botlink.Command) => {
    if (c.payload.case === 'refundStarPayment') return { outcome: gatewayApi.Outcome.DELIVERED };
    if (c.payload.case !== 'getStarTransactions') return deliverInvoices(c);
    calls += 1;
    await hooks.before?.(calls);
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
    await hooks.after?.(calls);
    return { outcome: gatewayApi.Outcome.DELIVERED, result: JSON.stringify({ transactions }) };
  };
}

/** The bound the fixture runs with (RECONCILIATION_STARS_MAX_CALLS). */
const MAX_CALLS = 12;

describe('stars reconciliation against the platform emulator on PostgreSQL', () => {
  let f: CardFixture;
  let platform: PlatformEmulator;
  let reconciler: Reconciler;
  let pack: bigint;
  let userId: number;
  let seq = 0;

  beforeAll(async () => {
    platform = await startPlatformEmulator();
    f = await startCardFixture({
      RECONCILIATION_INTERVAL_MS: '0',
      RECONCILIATION_RAILS: 'stars',
      STAR_REFUND_INTERVAL_MS: '0',
      RECONCILIATION_STARS_MAX_CALLS: String(MAX_CALLS),
    });
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
    f.bot.respond = botOver(platform);
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
  async function paidOrder(): Promise<{ orderId: string; platformChargeId: string }> {
    const orderId = await pendingOrder();
    const { telegramPaymentChargeId: platformChargeId } = platform.control.unforwardedCharge({ userId, amount: 50, payload: orderId });
    expect(await forward(intake(), orderId, platformChargeId, 50n, BigInt(userId))).toBe(true);
    return { orderId, platformChargeId };
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

  it.each(ORDERS)('%s: reports each kind of mismatch with order and charge ids', async (order) => {
    platform.control.setStarTransactionsOrder(order);
    const from = new Date();
    const neverForwarded = await pendingOrder();
    const lost = platform.control.unforwardedCharge({ userId, amount: 50, payload: neverForwarded }).telegramPaymentChargeId;
    const forgotten = await paidOrder();
    platform.control.forgetCharge(forgotten.platformChargeId);
    const altered = await paidOrder();
    platform.control.alterCharge(altered.platformChargeId, 45);
    const platformOnly = await paidOrder();
    platform.control.platformRefund(platformOnly.platformChargeId);
    const ledgerOnly = await paidOrder();
    expect((await refund(f.refunds, ledgerOnly.orderId)).status).toBe('succeeded');
    await paidOrder();

    const report = await reconciler.run(window(from), 'cli');
    const rows = report.mismatches.map((m) => [m.kind, m.order_id, m.payment_ref, m.refund_ref, m.ledger_amount, m.provider_amount]);
    expect(rows).toEqual(
      expect.arrayContaining([
        ['taken_not_credited', neverForwarded, lost, null, null, 50n],
        ['credited_not_taken', forgotten.orderId, forgotten.platformChargeId, null, 50n, null],
        ['amount_mismatch', altered.orderId, altered.platformChargeId, null, 50n, 45n],
        ['refund_provider_only', platformOnly.orderId, platformOnly.platformChargeId, platformOnly.platformChargeId, null, 50n],
        ['refund_ledger_only', ledgerOnly.orderId, ledgerOnly.platformChargeId, ledgerOnly.platformChargeId, 50n, null],
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
    const rounds: Array<{ orderId: string; platformChargeId: string }> = [];
    for (let i = 0; i < 20; i += 1) {
      const orderId = await pendingOrder();
      rounds.push({
        orderId,
        ...{ platformChargeId: platform.control.unforwardedCharge({ userId, amount: 50, payload: orderId }).telegramPaymentChargeId },
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
        const id = report.mismatches.find((m) => m.payment_ref === round.platformChargeId && m.kind === 'taken_not_credited')?.id;
        if (id === undefined) throw new Error(`no mismatch for round ${i}`);
        const [a, b] = i % 2 === 0 ? ['credit', 'refund'] : ['refund', 'credit'];
        const answers = await Promise.all([press(0, id, a ?? ''), press(1, id, b ?? '')]);
        const winner = answers.find((x) => x.ok);
        const loser = answers.find((x) => !x.ok);
        expect({ round: i, won: answers.filter((x) => x.ok).length }).toEqual({ round: i, won: 1 });
        if (!winner || !loser || loser.ok) throw new Error('unreachable');
        const order = await f.db().selectFrom('orders').select('state').where('id', '=', round.orderId).executeTakeFirstOrThrow();
        const ledger = await f.db().selectFrom('ledger_operations').select('id').where('order_id', '=', round.orderId).execute();
        const calls = platform.control
          .calls('refundStarPayment')
          .filter((c) => c.params['telegram_payment_charge_id'] === round.platformChargeId);
        const returned = platform.control.starRefunds().filter((r) => r.telegramPaymentChargeId === round.platformChargeId);
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

  describe('a reported charge the bot delivers late (one owner of the order money state)', () => {
    const act = async (id: bigint, action: string) => {
      const res = await f.h.client(backendApi.ReconciliationService).actOnMismatch({
        body: encodeTable((b) => fb.ReconciliationAction.createReconciliationAction(b, id, b.createString(action))),
      });
      return decodeTable(
        res.body,
        (bb) => fb.ReconciliationActionResult.getRootAsReconciliationActionResult(bb),
        (t) => ({ outcome: t.outcome(), detail: t.detail() }),
      );
    };
    /** A stars charge waiting in the bot's outbox (not forwarded yet), reported by a run as taken, not credited. */
    async function reported() {
      const from = new Date();
      const orderId = await pendingOrder();
      const { telegramPaymentChargeId: charge } = platform.control.unforwardedCharge({ userId, amount: 50, payload: orderId });
      const report = await reconciler.run(window(from), 'cli');
      const id = report.mismatches.find((m) => m.payment_ref === charge && m.kind === 'taken_not_credited')?.id;
      if (id === undefined) throw new Error('not reported');
      return { orderId, charge, id };
    }
    const returnedOf = (charge: string) => platform.control.starRefunds().filter((r) => r.telegramPaymentChargeId === charge);
    const purchasesOf = (orderId: string) =>
      f.db().selectFrom('ledger_operations').select('kind').where('order_id', '=', orderId).where('kind', '=', 'purchase').execute();

    it('delivered before the press: Refund is refused as credited meanwhile and no stars go back', async () => {
      f.bot.respond = refundThroughPlatform(platform, botOver(platform));
      const r = await reported();
      expect(await forward(intake(), r.orderId, r.charge, 50n, BigInt(userId))).toBe(true);
      const refused = await act(r.id, 'refund').then(
        () => null,
        (err: unknown) => ({ ...errorOf(err), message: ConnectError.from(err).rawMessage }),
      );
      expect(refused).toMatchObject({ errorCode: 'action_not_allowed' });
      expect(refused?.message).toMatch(/^credited meanwhile: .*use the ledger's refund/);
      expect(returnedOf(r.charge)).toEqual([]);
      expect(await purchasesOf(r.orderId)).toHaveLength(1);
    });

    it('delivered after the press: the returned charge credits nothing and is answered as handled', async () => {
      f.bot.respond = refundThroughPlatform(platform, botOver(platform));
      const r = await reported();
      expect(await act(r.id, 'refund')).toEqual({ outcome: 'refunded', detail: r.charge });
      expect(returnedOf(r.charge)).toHaveLength(1);
      // The outbox delivers the payment now: recorded, credited=false, nothing credited.
      expect(await forward(intake(), r.orderId, r.charge, 50n, BigInt(userId))).toBe(false);
      expect(await purchasesOf(r.orderId)).toEqual([]);
      const row = await f
        .db()
        .selectFrom('unmatched_payments')
        .select(['reason', 'refund_status'])
        .where('platform_charge_id', '=', r.charge)
        .executeTakeFirstOrThrow();
      expect(row).toEqual({ reason: 'reconciliation_refund', refund_status: 'refunded' });
      // A later run finds the charge returned: balanced, nothing reported.
      const again = await reconciler.run(window(new Date(Date.now() - 60_000)), 'cli');
      expect(again.mismatches.filter((m) => m.payment_ref === r.charge)).toEqual([]);
      f.bot.respond = botOver(platform);
    });
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

  /** get_star_transactions commands sent since `mark` (an index into f.bot.commands). */
  const starCalls = (mark: number) => f.bot.commands.slice(mark).filter((c) => c.payload.case === 'getStarTransactions').length;
  const unixNow = () => Math.floor(Date.now() / 1000);

  it.each(ORDERS)(
    '%s: a long history before the window, a window of many pages in one second: every charge once, no false mismatch, few calls',
    async (order) => {
      platform.control.setStarTransactionsOrder(order);
      const from = new Date();
      // 1 000 charges three days back, 300 of them in one second
      const old = unixNow() - 3 * 86_400;
      for (let i = 0; i < 1_000; i += 1)
        platform.control.unforwardedCharge({ userId, amount: 3, payload: '', date: old + Math.floor(i / 300) });
      const credited = [await paidOrder(), await paidOrder()];
      const second = unixNow();
      const lost = Array.from(
        { length: 230 },
        () => platform.control.unforwardedCharge({ userId, amount: 2, payload: '', date: second }).telegramPaymentChargeId,
      );
      const mark = f.bot.commands.length;
      const report = await reconciler.run(window(from), 'cli');
      expect(report.run.outcome).toBe('mismatches');
      const refs = report.mismatches.map((m) => `${m.kind} ${m.payment_ref}`);
      expect(refs.sort()).toEqual(lost.map((id) => `taken_not_credited ${id}`).sort());
      expect(refs.some((r) => credited.some((c) => r.includes(c.platformChargeId)))).toBe(false);
      // oldest first: head, gallop and bisection over the history, then the window's pages; newest first: the window's pages
      expect(starCalls(mark)).toBeLessThanOrEqual(order === 'oldest_first' ? 12 : 4);
    },
  );

  it.each(ORDERS)(
    '%s: the list grows while it is read, and an order is credited mid-read: nothing missed, nothing twice, no false mismatch',
    async (order) => {
      platform.control.setStarTransactionsOrder(order);
      const from = new Date();
      const lost = new Set(
        Array.from({ length: 250 }, () => platform.control.unforwardedCharge({ userId, amount: 1, payload: '' }).telegramPaymentChargeId),
      );
      const grown: string[] = [];
      let late: { orderId: string; platformChargeId: string } | null = null;
      f.bot.respond = botOver(platform, {
        before: () => {
          // three new charges before every page: newest first, each one moves every offset on
          for (let i = 0; i < 3; i += 1)
            grown.push(platform.control.unforwardedCharge({ userId, amount: 1, payload: '' }).telegramPaymentChargeId);
        },
        after: async (call) => {
          // an order paid and credited after the read began: a newest-first read that began earlier cannot have seen its charge
          if (call === 1) late = await paidOrder();
        },
      });
      const report = await reconciler.run(window(from), 'cli');
      const taken = report.mismatches.filter((m) => m.kind === 'taken_not_credited').map((m) => m.payment_ref);
      expect(taken.length).toBe(new Set(taken).size);
      expect([...lost].filter((id) => !taken.includes(id))).toEqual([]);
      expect(taken.filter((id) => !lost.has(id) && !grown.includes(id))).toEqual([]);
      expect(report.mismatches.filter((m) => m.kind !== 'taken_not_credited')).toEqual([]);
      expect(late).not.toBeNull();
      // the next run, with the credit long recorded, finds its charge
      f.bot.respond = botOver(platform);
      const next = await reconciler.run(window(from), 'cli');
      expect(next.mismatches.filter((m) => m.order_id === late?.orderId)).toEqual([]);
    },
  );

  it.each(ORDERS)(
    '%s: past RECONCILIATION_STARS_MAX_CALLS the run is incomplete: no mismatch stored, the last complete counts kept',
    async (order) => {
      platform.control.setStarTransactionsOrder(order);
      const from = new Date();
      const orderId = await pendingOrder();
      platform.control.unforwardedCharge({ userId, amount: 50, payload: orderId });
      const first = await reconciler.run(window(from), 'cli');
      expect(first.run.outcome).toBe('mismatches');
      const gauge = async () =>
        (await f.h.app.metricsRegistry().metrics()).match(/^reconciliation_mismatches\{kind="taken_not_credited"\} (\d+)$/m)?.[1];
      const incompleteRuns = async () =>
        Number((await f.h.app.metricsRegistry().metrics()).match(/^reconciliation_runs_total\{outcome="incomplete"\} (\d+)$/m)?.[1]);
      expect(await gauge()).toBe('1');
      const before = await incompleteRuns();

      for (let i = 0; i < MAX_CALLS * 99 + 50; i += 1) platform.control.unforwardedCharge({ userId, amount: 1, payload: '' });
      const mark = f.bot.commands.length;
      const report = await reconciler.run(window(from), 'cli');
      expect(report.run.outcome).toBe('incomplete');
      expect(report.run.error).toMatch(
        new RegExp(
          `not all read \\(call bound reached \\(${MAX_CALLS} calls\\), after ${MAX_CALLS} of at most ${MAX_CALLS} calls\\).*RECONCILIATION_STARS_MAX_CALLS`,
        ),
      );
      expect(report.mismatches).toEqual([]);
      expect(starCalls(mark)).toBe(MAX_CALLS);
      expect(await gauge()).toBe('1');
      expect(await incompleteRuns()).toBe(before + 1);
    },
  );
});
