import { startPlatformEmulator, type PlatformEmulator, type PreCheckoutView } from '@wordgame/platform-emulator';
import { balance, createOrder, createProduct, getOrder, telegramCustomer, type Customer, type Order } from '../src/harness/api.js';
import { creditFacts } from '../src/harness/ledger.js';
import { freshDatabase, type FreshDatabase } from '../src/harness/postgres.js';
import { report } from '../src/harness/scale.js';
import { startStack, TELEGRAM_BOT_TOKEN, type Stack } from '../src/harness/stack.js';
import { waitFor } from '../src/harness/wait.js';

const SUITE = 'pre-checkout while a payment waits in the outbox';
/** PRECHECKOUT_HOLD_MS: the backend's approval lapses after this. */
const HOLD_MS = 2_000;
/**
 * BOT_OUTBOX_RETRY_INITIAL_MS and _MAX_MS: after its first failed ForwardPayment the row is tried
 * again no sooner than 0.8 x this (jitter), so the backend is back well before the bot forwards.
 */
const RETRY_MS = 30_000;
/** When the repeat tap with the backend back comes, after the first approval (the 15 s). */
const SECOND_TAP_AFTER_MS = 15_000;
/** How long the platform holds the bot's answer to the first pre-checkout: the backend is stopped meanwhile. */
const ANSWER_DELAY_MS = 6_000;
/** The bot's decline for an order whose payment it holds (apps/bot payments/pre-checkout.ts). */
const PAYMENT_HELD_REASON = 'This order is already paid. The purchase will reach your wallet shortly.';
const PAYER = 7_501;
const SECOND_PAYER = 7_502;
const CHIPS = 40n;

/**
 * Issue #26 item 1 on real processes (backend, gateway and bot from their bundles, the platform
 * emulator, PostgreSQL): the first payment on a reusable invoice link is confirmed while the backend
 * is stopped, so it waits in the bot's SQLite outbox. Repeat taps on the same link after the
 * backend's hold lapsed, with the backend still down and then back before the bot's next forward,
 * are declined by the bot before it asks anyone (the backend would approve the second: its order is
 * still pending and unheld). Once forwarded: exactly one charge, credited once, nothing refunded.
 */
describe('faults: a repeat pre-checkout while the first payment waits in the outbox', () => {
  let platform: PlatformEmulator;
  let db: FreshDatabase;
  let stack: Stack;
  let payer: Customer;
  let product: string;

  beforeAll(async () => {
    platform = await startPlatformEmulator({ tokens: [TELEGRAM_BOT_TOKEN] });
    db = await freshDatabase();
    stack = await startStack({
      databaseUrl: db.url,
      platformApiRoot: platform.apiRoot,
      backendEnv: { PRECHECKOUT_HOLD_MS: String(HOLD_MS), STAR_REFUND_INTERVAL_MS: '300' },
      botEnv: { BOT_OUTBOX_RETRY_INITIAL_MS: String(RETRY_MS), BOT_OUTBOX_RETRY_MAX_MS: String(RETRY_MS) },
    });
    product = await createProduct(
      stack.urls.gateway,
      { title: 'Chips 40', atoms: [{ kind: 'chips', quantity: CHIPS }], prices: [{ method: 'xtr', amount: 20n, currency: 'XTR' }] },
      stack.operatorToken,
    );
    for (const id of [PAYER, SECOND_PAYER]) platform.control.createUser({ id, firstName: `Payer ${id}`, started: true });
    payer = await telegramCustomer(stack.urls.api, PAYER);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await platform?.stop();
    await db?.drop();
  });

  const answered = async (preCheckoutQueryId: string): Promise<PreCheckoutView> => {
    let view: PreCheckoutView | undefined;
    await waitFor(
      'pre-checkout answered',
      () => {
        view = platform.control.preCheckout(preCheckoutQueryId);
        return view !== undefined && view.status !== 'pending';
      },
      30_000,
    );
    if (!view) throw new Error('no pre-checkout');
    return view;
  };
  const tap = (link: string, userId: number) => answered(platform.control.pay({ link, userId }).preCheckoutQueryId);
  const forwardAttempts = (platformChargeId: string) =>
    stack.bot?.logs.filter(
      (l) => l.entry['platformChargeId'] === platformChargeId && /^ForwardPayment got no response/.test(String(l.entry['msg'])),
    ).length ?? 0;

  it('is declined by the bot with the backend down and after it is back; the one charge is credited once', async () => {
    const backend = stack.backend;
    const created = await createOrder(stack.urls.api, payer, product, 'stars');
    expect(created.status).toBe(201);
    const order = created.body as Order;
    const link = order.invoice_link ?? '';

    // The backend approves the first tap; the platform holds the bot's answer while the backend is stopped.
    platform.control.addFault({ method: 'answerPreCheckoutQuery', delayMs: ANSWER_DELAY_MS, times: 1 });
    const first = platform.control.pay({ link, userId: PAYER }).preCheckoutQueryId;
    const held = async () =>
      (
        await db.query<{ n: number }>('select count(*)::int as n from orders where id = $1 and checkout_hold_until is not null', [
          order.order_id,
        ])
      ).rows[0]?.n === 1;
    await waitFor('the backend approved the first pre-checkout', held, 20_000);
    const approvedAt = performance.now();
    await backend.stop();
    expect(platform.control.preCheckout(first)?.status).toBe('pending');
    const firstView = await answered(first);
    expect(firstView.status).toBe('approved');
    const platformChargeId = firstView.telegramPaymentChargeId ?? '';
    await waitFor(
      'the first ForwardPayment failed: the payment waits in the outbox',
      () => forwardAttempts(platformChargeId) === 1,
      20_000,
    );

    // Well past the hold, backend down: the bot declines on what it holds, not for the backend being away.
    await waitFor('the hold lapsed', () => performance.now() - approvedAt > 2 * HOLD_MS, 10_000);
    const whileDown = await tap(link, SECOND_PAYER);
    expect(whileDown).toMatchObject({ status: 'rejected', errorMessage: PAYMENT_HELD_REASON });

    // Backend back, the payment not forwarded yet, 15 s after the approval: the backend alone would approve this tap.
    await backend.start();
    await waitFor('15 s since the approval', () => performance.now() - approvedAt > SECOND_TAP_AFTER_MS, SECOND_TAP_AFTER_MS);
    const gapS = (performance.now() - approvedAt) / 1000;
    const whileWaiting = await tap(link, SECOND_PAYER);
    expect(whileWaiting).toMatchObject({ status: 'rejected', errorMessage: PAYMENT_HELD_REASON });
    expect(forwardAttempts(platformChargeId)).toBe(1);
    expect((await getOrder(stack.urls.api, payer, order.order_id)).state).toBe('pending');

    // The bot's next attempt forwards the payment: credited once; a tap now is the backend's to decline.
    const creditedAfter = await waitFor(
      'the payment forwarded and credited',
      async () => (await getOrder(stack.urls.api, payer, order.order_id)).state === 'paid',
      RETRY_MS * 2,
      250,
    );
    expect(await tap(link, SECOND_PAYER)).toMatchObject({ status: 'rejected', errorMessage: 'This order is already paid.' });
    const charges = platform.control.state().payments.filter((p) => p.payload === order.order_id);
    expect(charges.map((c) => c.telegramPaymentChargeId)).toEqual([platformChargeId]);
    const bound = await db.query<{ charge: string | null }>('select platform_charge_id as charge from orders where id = $1', [
      order.order_id,
    ]);
    expect(bound.rows[0]?.charge).toBe(platformChargeId);
    expect(await creditFacts(db, [order.order_id])).toEqual({
      orders: 1,
      paid: 1,
      purchaseRows: 1,
      doubleCredited: [],
      inconsistent: [],
      unmatched: 0,
    });
    expect(platform.control.starRefunds()).toEqual([]);
    expect(await balance(stack.urls.api, payer, 'telegram')).toBe(CHIPS);
    report(
      SUITE,
      `second tap ${gapS.toFixed(1)} s after the approval (hold ${HOLD_MS / 1000} s) declined by the bot with the backend down and back; ` +
        `credited ${(creditedAfter / 1000).toFixed(1)} s after that tap, on the bot's next attempt; 1 charge, 0 unmatched, 0 refunds`,
    );
  }, 120_000);
});
