import { ConnectError } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { createLogger } from '@wordgame/logging';
import { asOperator, operatorToken } from './console-support.js';
import { errorOf, failure } from './support/harness.js';
import type { Reconciler } from '../src/reconciliation/job.js';
import { createReconciler } from '../src/reconciliation/job.js';
import { resetCardFixture, paymentIdOf, startCardFixture, type CardFixture } from './card-support.js';
import { createOrder, refund } from './payments-support.js';
import { newAccount } from './support/wallet.js';
import { createReaper } from '../src/payments/reaper/reaper.js';

const confirmed = (n: string) => ({ address: `${n}@example.org`, confirmed: true });

/** A window start after everything earlier tests made (their orders must fall outside it). */
async function windowStart(): Promise<Date> {
  await new Promise((r) => setTimeout(r, 5));
  return new Date();
}

/** A metric sample from the registry's text exposition. */
async function sample(f: CardFixture, line: string): Promise<number | undefined> {
  const text = await f.h.app.metricsRegistry().metrics();
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe('card reconciliation against the provider emulator on PostgreSQL', () => {
  let f: CardFixture;
  let reconciler: Reconciler;
  const window = (from: Date) => ({ from, to: new Date(Date.now() + 1_000) });

  beforeAll(async () => {
    f = await startCardFixture({ RECONCILIATION_INTERVAL_MS: '0', RECONCILIATION_RAILS: 'card' });
    const started = f.h.app.reconciler();
    if (!started) throw new Error('no reconciler');
    reconciler = started;
  }, 60_000);
  afterAll(() => f.stop());
  beforeEach(() => resetCardFixture(f));

  /** A card order the customer paid and the backend credited (notification delivered). */
  async function paidOrder(name: string): Promise<{ orderId: string; paymentId: string }> {
    const id = await newAccount(f.db(), confirmed(name));
    const order = await createOrder(f.payments, id, 'direct;web', f.pack, 'card');
    const paymentId = await paymentIdOf(f.db(), order.orderId);
    await f.emulator.control.succeedPayment(paymentId);
    const row = await f.db().selectFrom('orders').select('state').where('id', '=', order.orderId).executeTakeFirstOrThrow();
    expect(row.state).toBe('paid');
    return { orderId: order.orderId, paymentId };
  }

  it('a clean window reports nothing, and the metrics say so', async () => {
    const from = await windowStart();
    await paidOrder('clean');
    const report = await reconciler.run(window(from), 'cli');
    expect(report.run).toMatchObject({ outcome: 'clean', rails: 'card', error: null });
    expect(report.mismatches).toEqual([]);
    expect(await sample(f, 'reconciliation_mismatches{kind="taken_not_credited"}')).toBe(0);
    expect(await sample(f, 'reconciliation_runs_total{outcome="clean"}')).toBeGreaterThanOrEqual(1);
    expect(await sample(f, 'reconciliation_last_run_timestamp_seconds')).toBeCloseTo(report.run.finished_at.getTime() / 1000, 0);
  });

  it('reports each kind of mismatch with its order, payment and refund ids, and counts them per kind', async () => {
    const from = await windowStart();
    // money taken, never credited: a lost notification, and a payment we never created
    const quiet = await newAccount(f.db(), confirmed('quiet'));
    const pending = await createOrder(f.payments, quiet, 'direct;web', f.pack, 'card');
    const quietPayment = await paymentIdOf(f.db(), pending.orderId);
    f.emulator.control.payQuietly(quietPayment);
    const stranger = f.emulator.control.createUnknownPayment({ shopId: f.directShop.id, amount: { value: '15.00', currency: 'RUB' } });
    // credited, never taken
    const vanished = await paidOrder('vanished');
    f.emulator.control.removePayment(vanished.paymentId);
    // amount and currency differ
    const altered = await paidOrder('altered');
    f.emulator.control.alterPayment(altered.paymentId, { value: '1.00', currency: 'USD' });
    // refund on the provider only
    const backOffice = await paidOrder('backoffice');
    const providerRefund = f.emulator.control.createProviderRefund(backOffice.paymentId);
    // refund in our books only
    const ours = await paidOrder('ours');
    const refunded = await refund(f.refunds, ours.orderId);
    expect(refunded.status).toBe('succeeded');
    f.emulator.control.removeRefund(refunded.refundId ?? '');
    // and one order that is fine
    await paidOrder('fine');

    const report = await reconciler.run(window(from), 'cli');
    expect(report.run.outcome).toBe('mismatches');
    const rows = report.mismatches.map((m) => ({
      kind: m.kind,
      order: m.order_id,
      payment: m.payment_ref,
      refund: m.refund_ref,
      ledger: m.ledger_amount === null ? null : `${m.ledger_amount} ${m.ledger_currency}`,
      provider: m.provider_amount === null ? null : `${m.provider_amount} ${m.provider_currency}`,
    }));
    expect(rows).toEqual(
      expect.arrayContaining([
        { kind: 'taken_not_credited', order: pending.orderId, payment: quietPayment, refund: null, ledger: null, provider: '29900 RUB' },
        { kind: 'taken_not_credited', order: null, payment: stranger.id, refund: null, ledger: null, provider: '1500 RUB' },
        {
          kind: 'credited_not_taken',
          order: vanished.orderId,
          payment: vanished.paymentId,
          refund: null,
          ledger: '29900 RUB',
          provider: null,
        },
        {
          kind: 'amount_mismatch',
          order: altered.orderId,
          payment: altered.paymentId,
          refund: null,
          ledger: '29900 RUB',
          provider: '100 USD',
        },
        {
          kind: 'refund_provider_only',
          order: backOffice.orderId,
          payment: backOffice.paymentId,
          refund: providerRefund.id,
          ledger: null,
          provider: '29900 RUB',
        },
        {
          kind: 'refund_ledger_only',
          order: ours.orderId,
          payment: ours.paymentId,
          refund: refunded.refundId,
          ledger: '29900 RUB',
          provider: null,
        },
      ]),
    );
    expect(rows).toHaveLength(6);
    expect(report.mismatches.every((m) => m.rail === 'card' && m.provider === 'yookassa' && m.shop === f.directShop.id)).toBe(true);

    expect(await sample(f, 'reconciliation_mismatches{kind="taken_not_credited"}')).toBe(2);
    for (const kind of ['credited_not_taken', 'amount_mismatch', 'refund_provider_only', 'refund_ledger_only']) {
      expect(await sample(f, `reconciliation_mismatches{kind="${kind}"}`)).toBe(1);
    }
    expect(await sample(f, 'reconciliation_runs_total{outcome="mismatches"}')).toBeGreaterThanOrEqual(1);

    // a window after all of it is clean again, and the gauges follow the last report
    const later = await reconciler.run({ from: new Date(Date.now() + 2_000), to: new Date(Date.now() + 3_000) }, 'cli');
    expect(later.run.outcome).toBe('clean');
    expect(await sample(f, 'reconciliation_mismatches{kind="taken_not_credited"}')).toBe(0);
  });

  it('a refunder acts on a row through the money paths: credit, refund, resolve; audited; a viewer reads only', async () => {
    const from = await windowStart();
    const account = await newAccount(f.db(), confirmed('act'));
    const pending = await createOrder(f.payments, account, 'direct;web', f.pack, 'card');
    const quietPayment = await paymentIdOf(f.db(), pending.orderId);
    f.emulator.control.payQuietly(quietPayment);
    const stranger = f.emulator.control.createUnknownPayment({ shopId: f.directShop.id, amount: { value: '15.00', currency: 'RUB' } });
    const vanished = await paidOrder('act-vanished');
    f.emulator.control.removePayment(vanished.paymentId);
    const report = await reconciler.run(window(from), 'cli');
    const idOf = (payment: string) => report.mismatches.find((m) => m.payment_ref === payment)?.id ?? -1n;

    const svc = f.h.client(backendApi.ReconciliationService);
    const act = async (id: bigint, action: string, token?: string) => {
      const res = await svc.actOnMismatch(
        { body: encodeTable((b) => fb.ReconciliationAction.createReconciliationAction(b, id, b.createString(action))) },
        token === undefined ? {} : asOperator(token),
      );
      return decodeTable(
        res.body,
        (bb) => fb.ReconciliationActionResult.getRootAsReconciliationActionResult(bb),
        (t) => ({ outcome: t.outcome(), detail: t.detail() }),
      );
    };
    const viewer = await operatorToken(f.db(), f.h.client(backendApi.ConsoleService), 'recon-viewer', ['viewer']);
    expect(await failure(act(idOf(quietPayment), 'credit', viewer))).toEqual({ code: 7, errorCode: 'operator_forbidden' });
    const read = await svc.getReconciliationReport(
      { body: encodeTable((b) => fb.ReconciliationQuery.createReconciliationQuery(b)) },
      asOperator(viewer),
    );
    const shown = decodeTable(
      read.body,
      (bb) => fb.ReconciliationReport.getRootAsReconciliationReport(bb),
      (t) => ({ has: t.hasRun(), outcome: t.outcome(), rows: t.mismatchesLength() }),
    );
    expect(shown).toEqual({ has: true, outcome: 'mismatches', rows: 3 });

    expect(await act(idOf(quietPayment), 'credit')).toEqual({ outcome: 'credited', detail: pending.orderId });
    const order = await f.db().selectFrom('orders').select('state').where('id', '=', pending.orderId).executeTakeFirstOrThrow();
    expect(order.state).toBe('paid');
    const refunded = await act(idOf(stranger.id), 'refund');
    expect(refunded.outcome).toBe('refunded');
    expect(f.emulator.control.payment(stranger.id).refunds).toEqual([
      expect.objectContaining({ id: refunded.detail, status: 'succeeded', amount: { value: '15.00', currency: 'RUB' } }),
    ]);
    expect(await failure(act(idOf(stranger.id), 'refund'))).toEqual({ code: 9, errorCode: 'already_resolved' });
    expect(await failure(act(idOf(vanished.paymentId), 'refund'))).toEqual({ code: 9, errorCode: 'action_not_allowed' });
    expect(await failure(act(idOf(vanished.paymentId), 'pay-twice'))).toEqual({ code: 3, errorCode: 'invalid_action' });
    expect(await act(idOf(vanished.paymentId), 'resolve')).toEqual({ outcome: 'resolved', detail: '' });
    expect(await sample(f, 'reconciliation_mismatches{kind="credited_not_taken"}')).toBe(0);

    const audits = await f
      .db()
      .selectFrom('operator_audit')
      .select(['action', 'target', 'outcome'])
      .where('action', 'like', 'reconciliation_%')
      .orderBy('id')
      .execute();
    expect(audits).toEqual([
      { action: 'reconciliation_act', target: '', outcome: 'forbidden' },
      { action: 'reconciliation_credit', target: `mismatch:${idOf(quietPayment)}`, outcome: 'credited' },
      { action: 'reconciliation_refund', target: `mismatch:${idOf(stranger.id)}`, outcome: 'refunded' },
      { action: 'reconciliation_refund', target: `mismatch:${idOf(stranger.id)}`, outcome: 'failed' },
      { action: 'reconciliation_refund', target: `mismatch:${idOf(vanished.paymentId)}`, outcome: 'failed' },
      { action: 'reconciliation_paytwice', target: `mismatch:${idOf(vanished.paymentId)}`, outcome: 'failed' },
      { action: 'reconciliation_resolve', target: `mismatch:${idOf(vanished.paymentId)}`, outcome: 'resolved' },
    ]);
  });

  it('two presses on one row at once, on two replicas: exactly one action happens, and the loser is told which', async () => {
    const from = await windowStart();
    const pairs: Array<[string, string]> = [
      ...Array.from({ length: 20 }, (_, i): [string, string] => (i % 2 === 0 ? ['credit', 'refund'] : ['refund', 'credit'])),
      ['credit', 'resolve'],
      ['resolve', 'refund'],
      ['refund', 'refund'],
      ['credit', 'credit'],
    ];
    const rounds: Array<{ orderId: string; paymentId: string }> = [];
    for (let i = 0; i < pairs.length; i += 1) {
      const account = await newAccount(f.db(), confirmed(`race-${i}`));
      const order = await createOrder(f.payments, account, 'direct;web', f.pack, 'card');
      const paymentId = await paymentIdOf(f.db(), order.orderId);
      f.emulator.control.payQuietly(paymentId);
      rounds.push({ orderId: order.orderId, paymentId });
    }
    const report = await reconciler.run(window(from), 'cli');
    // every refund is held at the provider for a while, so a second press arrives during the first one's call
    f.emulator.control.addFault({ method: 'POST', pathPrefix: '/v3/refunds', status: 'timeout', delayMs: 120 });
    const console = f.h.client(backendApi.ConsoleService);
    const operators = {
      alice: await operatorToken(f.db(), console, 'race-alice', ['refunder']),
      bob: await operatorToken(f.db(), console, 'race-bob', ['refunder']),
    };
    const replica = await f.h.replica();
    try {
      const sides = [f.h.client(backendApi.ReconciliationService), replica.client(backendApi.ReconciliationService)];
      const press = async (side: number, id: bigint, action: string, token: string) => {
        try {
          const res = await sides[side]?.actOnMismatch(
            { body: encodeTable((b) => fb.ReconciliationAction.createReconciliationAction(b, id, b.createString(action))) },
            asOperator(token),
          );
          return {
            ok: true as const,
            action,
            outcome: decodeTable(
              res?.body ?? new Uint8Array(),
              (bb) => fb.ReconciliationActionResult.getRootAsReconciliationActionResult(bb),
              (t) => t.outcome() ?? '',
            ),
          };
        } catch (err: unknown) {
          return { ok: false as const, action, ...errorOf(err), message: ConnectError.from(err).rawMessage };
        }
      };
      for (const [i, [first, second]] of pairs.entries()) {
        const round = rounds[i];
        const id = report.mismatches.find((m) => m.payment_ref === round?.paymentId)?.id;
        if (!round || id === undefined) throw new Error(`no mismatch for round ${i}`);
        const answers = await Promise.all([press(i % 2, id, first, operators.alice), press(1 - (i % 2), id, second, operators.bob)]);
        const won = answers.filter((a) => a.ok);
        const lost = answers.filter((a) => !a.ok);
        expect({ round: i, won: won.length, lost: lost.length }).toEqual({ round: i, won: 1, lost: 1 });
        const winner = won[0];
        const loser = lost[0];
        if (!winner || !loser || loser.ok) throw new Error('unreachable');
        const winnerLogin = winner === answers[0] ? 'race-alice' : 'race-bob';
        // and the money moved for the winner's action only
        const order = await f.db().selectFrom('orders').select('state').where('id', '=', round.orderId).executeTakeFirstOrThrow();
        const purchases = await f.db().selectFrom('ledger_operations').select('id').where('order_id', '=', round.orderId).execute();
        const refunds = f.emulator.control.payment(round.paymentId).refunds;
        const refundCalls = f.emulator.control
          .requests()
          .filter((r) => r.method === 'POST' && r.path === '/v3/refunds' && r.idempotenceKey === `reconcile-${round.paymentId}`);
        expect({
          round: i,
          paid: order.state === 'paid',
          ledgerRows: purchases.length,
          refunds: refunds.length,
          refundCalls: refundCalls.length,
        }).toEqual({
          round: i,
          paid: winner.action === 'credit',
          ledgerRows: winner.action === 'credit' ? 1 : 0,
          refunds: winner.action === 'refund' ? 1 : 0,
          refundCalls: winner.action === 'refund' ? 1 : 0,
        });
        // the loser hears what the winner did, and who
        expect(`${i}: ${loser.errorCode}`).toMatch(/^\d+: (already_resolved|action_in_progress)$/);
        expect(loser.message).toContain(winnerLogin);
        expect(loser.message).toMatch(winner.action === 'credit' ? /credit/ : winner.action === 'refund' ? /refund/ : /resolved/);
      }
    } finally {
      await replica.stop();
    }
  }, 60_000);

  it('a refund whose outcome is unknown keeps the row: credit and resolve are refused, Refund again finishes it; a refusal frees the row', async () => {
    const from = await windowStart();
    const quiet = async (name: string) => {
      const account = await newAccount(f.db(), confirmed(name));
      const order = await createOrder(f.payments, account, 'direct;web', f.pack, 'card');
      const paymentId = await paymentIdOf(f.db(), order.orderId);
      f.emulator.control.payQuietly(paymentId);
      return { orderId: order.orderId, paymentId };
    };
    const unsure = await quiet('unsure');
    const freed = await quiet('freed');
    const report = await reconciler.run(window(from), 'cli');
    const idOf = (payment: string) => report.mismatches.find((m) => m.payment_ref === payment)?.id ?? -1n;
    const svc = f.h.client(backendApi.ReconciliationService);
    const act = async (id: bigint, action: string) => {
      const res = await svc.actOnMismatch({
        body: encodeTable((b) => fb.ReconciliationAction.createReconciliationAction(b, id, b.createString(action))),
      });
      return decodeTable(
        res.body,
        (bb) => fb.ReconciliationActionResult.getRootAsReconciliationActionResult(bb),
        (t) => ({ outcome: t.outcome(), detail: t.detail() }),
      );
    };
    const refusal = (call: Promise<unknown>) =>
      call.then(
        () => {
          throw new Error('expected a refusal');
        },
        (err: unknown) => ({ ...errorOf(err), message: ConnectError.from(err).rawMessage }),
      );

    // the provider makes the refund but its answer is lost
    f.emulator.control.addFault({ method: 'POST', pathPrefix: '/v3/refunds', status: 500, applied: true, times: 1 });
    expect(await failure(act(idOf(unsure.paymentId), 'refund'))).toEqual({ code: 14, errorCode: 'action_failed' });
    expect(f.emulator.control.payment(unsure.paymentId).refunds).toHaveLength(1);
    for (const action of ['credit', 'resolve']) {
      const refused = await refusal(act(idOf(unsure.paymentId), action));
      expect(refused).toMatchObject({ code: 10, errorCode: 'action_in_progress' });
      expect(refused.message).toMatch(
        /^a refund by harness-operator at .* UTC was not confirmed and may have happened; only "Refund" can finish this row/,
      );
    }
    const order = await f.db().selectFrom('orders').select('state').where('id', '=', unsure.orderId).executeTakeFirstOrThrow();
    expect(order.state).not.toBe('paid');
    const again = await act(idOf(unsure.paymentId), 'refund');
    expect(again).toEqual({ outcome: 'refunded', detail: f.emulator.control.payment(unsure.paymentId).refunds[0]?.id });
    expect(f.emulator.control.payment(unsure.paymentId).refunds).toHaveLength(1);
    const late = await refusal(act(idOf(unsure.paymentId), 'credit'));
    expect(late).toMatchObject({ code: 9, errorCode: 'already_resolved' });
    expect(late.message).toMatch(/^this mismatch was already refunded \(.+\) by harness-operator at .* UTC$/);

    // a credit that moved nothing (no answer from the provider before crediting) leaves the row free for a refund
    f.emulator.control.addFault({ method: 'GET', pathPrefix: `/v3/payments/${freed.paymentId}`, status: 500, times: 1 });
    expect(await failure(act(idOf(freed.paymentId), 'credit'))).toEqual({ code: 14, errorCode: 'action_failed' });
    expect((await act(idOf(freed.paymentId), 'refund')).outcome).toBe('refunded');
  });

  describe('a report acted on after the order moved (one owner of the order money state)', () => {
    const svc = () => f.h.client(backendApi.ReconciliationService);
    const act = async (id: bigint, action: string) => {
      const res = await svc().actOnMismatch({
        body: encodeTable((b) => fb.ReconciliationAction.createReconciliationAction(b, id, b.createString(action))),
      });
      return decodeTable(
        res.body,
        (bb) => fb.ReconciliationActionResult.getRootAsReconciliationActionResult(bb),
        (t) => ({ outcome: t.outcome(), detail: t.detail() }),
      );
    };
    /** A card payment the provider took without telling us, reported by a run as taken, not credited. */
    async function reportedQuiet(name: string) {
      const from = await windowStart();
      const account = await newAccount(f.db(), confirmed(name));
      const order = await createOrder(f.payments, account, 'direct;web', f.pack, 'card');
      const paymentId = await paymentIdOf(f.db(), order.orderId);
      f.emulator.control.payQuietly(paymentId);
      const report = await reconciler.run(window(from), 'cli');
      const row = report.mismatches.find((m) => m.payment_ref === paymentId);
      expect(row?.kind).toBe('taken_not_credited');
      return { orderId: order.orderId, paymentId, mismatch: row?.id ?? -1n };
    }
    const orderOf = (orderId: string) =>
      f
        .db()
        .selectFrom('orders')
        .select(['state', 'refund_id', 'refund_hold', 'refund_pending_id'])
        .where('id', '=', orderId)
        .executeTakeFirstOrThrow();
    const ledgerOf = (orderId: string) => f.db().selectFrom('ledger_operations').select('kind').where('order_id', '=', orderId).execute();
    const notify = (event: string, object: Record<string, string>) =>
      f.notifications.intake({
        body: encodeTable((b) =>
          fb.ProviderNotification.createProviderNotification(
            b,
            b.createString('yookassa'),
            fb.ProviderNotification.createBodyVector(b, new TextEncoder().encode(JSON.stringify({ type: 'notification', event, object }))),
          ),
        ),
      });

    it('credited meanwhile by a late notification: Refund is refused and the provider refunds nothing', async () => {
      const q = await reportedQuiet('stale-refund');
      await notify('payment.succeeded', { id: q.paymentId });
      expect((await orderOf(q.orderId)).state).toBe('paid');
      const refused = await act(q.mismatch, 'refund').then(
        () => null,
        (err: unknown) => ({ ...errorOf(err), message: ConnectError.from(err).rawMessage }),
      );
      expect(refused).toMatchObject({ errorCode: 'action_not_allowed' });
      expect(refused?.message).toMatch(/^credited meanwhile: .*use the ledger's refund/);
      expect(f.emulator.control.payment(q.paymentId).refunds).toEqual([]);
    });

    it('a Refund the provider leaves pending holds the order: a notification and a reaper tick credit nothing, the lost refund notification is made good by the reaper', async () => {
      const q = await reportedQuiet('pending-refund');
      f.emulator.control.setRefundOutcome('pending', { times: 1 });
      expect(await act(q.mismatch, 'refund')).toMatchObject({ outcome: 'refund_pending' });
      const refundId = f.emulator.control.payment(q.paymentId).refunds[0]?.id ?? '';
      expect(await orderOf(q.orderId)).toMatchObject({ refund_hold: `reconcile-${q.paymentId}`, refund_pending_id: refundId });
      await notify('payment.succeeded', { id: q.paymentId });
      const reaper = createReaper(f.deps, { intervalMs: 1_000, recheckBatch: 10, recheckConcurrency: 2 });
      await reaper.tick(new Date(Date.now() + 2 * 60_000));
      expect((await orderOf(q.orderId)).state).not.toBe('paid');
      expect(await ledgerOf(q.orderId)).toEqual([]);
      // The provider finishes the refund; its notification never arrives.
      f.emulator.control.setAutoNotify(false);
      await f.emulator.control.settleRefund(refundId, 'succeeded');
      expect((await reaper.tick(new Date(Date.now() + 4 * 60_000))).refunds_settled).toBe(1);
      expect(await orderOf(q.orderId)).toMatchObject({ state: 'failed', refund_id: refundId, refund_hold: null, refund_pending_id: null });
      expect(await ledgerOf(q.orderId)).toEqual([]);
      f.emulator.control.setAutoNotify(true);
    });

    it('a pending Refund the provider cancels frees the order, and the next re-check credits the payment once', async () => {
      const q = await reportedQuiet('canceled-refund');
      f.emulator.control.setRefundOutcome('pending', { times: 1 });
      expect(await act(q.mismatch, 'refund')).toMatchObject({ outcome: 'refund_pending' });
      const refundId = f.emulator.control.payment(q.paymentId).refunds[0]?.id ?? '';
      await f.emulator.control.settleRefund(refundId, 'canceled');
      const reaper = createReaper(f.deps, { intervalMs: 1_000, recheckBatch: 10, recheckConcurrency: 2 });
      expect((await reaper.tick(new Date(Date.now() + 2 * 60_000))).refunds_settled).toBe(1);
      expect((await reaper.tick(new Date(Date.now() + 4 * 60_000))).credited).toBe(1);
      expect(await orderOf(q.orderId)).toMatchObject({ state: 'paid', refund_id: null, refund_hold: null });
      expect((await ledgerOf(q.orderId)).map((l) => l.kind)).toEqual(['purchase']);
    });
  });

  it('pages through provider lists longer than one page', async () => {
    const from = await windowStart();
    for (let i = 0; i < 105; i += 1)
      f.emulator.control.createUnknownPayment({ shopId: f.directShop.id, amount: { value: '1.00', currency: 'RUB' } });
    const report = await reconciler.run(window(from), 'cli');
    expect(report.mismatches.filter((m) => m.kind === 'taken_not_credited')).toHaveLength(105);
    const lists = f.emulator.control
      .requests()
      .filter((r) => r.method === 'GET' && r.path === '/v3/payments' && r.shopId === f.directShop.id);
    expect(lists.length).toBe(2);
  });

  it('stores a failed run when the provider cannot be read, and never a partial report', async () => {
    f.emulator.control.addFault({ method: 'GET', pathPrefix: '/v3/refunds', status: 500 });
    const report = await reconciler.run(window(new Date(Date.now() - 60_000)), 'cli');
    expect(report.run.outcome).toBe('failed');
    expect(report.run.error).toMatch(/list refunds: unavailable/);
    expect(report.mismatches).toEqual([]);
    expect(await sample(f, 'reconciliation_runs_total{outcome="failed"}')).toBeGreaterThanOrEqual(1);
  });

  it('the schedule runs on one replica per interval: two replicas ticking at once run once', async () => {
    const replica = (name: string) =>
      createReconciler(
        { db: f.db(), logger: createLogger(name, 'silent'), card: f.deps.card, stars: null, now: () => new Date() },
        { intervalMs: 60_000, windowMs: 3_600_000, lagMs: 0, starsMaxCalls: 300 },
      );
    const now = new Date(Date.now() + 10 * 60_000);
    const [a, b] = await Promise.all([replica('a').tick(now), replica('b').tick(now)]);
    expect([a, b].filter((r) => r !== null)).toHaveLength(1);
    expect(await replica('c').tick(new Date(now.getTime() + 30_000))).toBeNull();
    expect(await replica('c').tick(new Date(now.getTime() + 60_000))).not.toBeNull();
  });
});
