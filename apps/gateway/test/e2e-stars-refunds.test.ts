import pg from 'pg';
import type { PlatformEmulator, PreCheckoutView } from '@wordgame/platform-emulator';
import { eventually } from './support/botlink-gateway.js';
import { call } from './support/edge.js';
import {
  balance,
  bearer,
  createProduct,
  ledgerRows,
  startPaymentsStack,
  telegramCustomer,
  waitForBot,
  type Customer,
  type OrderBody,
  type PaymentsStack,
} from './support/payments-stack.js';

const OWNER = 8101;
const PAYER_A = 8102;
const PAYER_B = 8103;
const HOLD_MS = 1_500;
/** The bot's decline for an order whose payment it still holds (apps/bot payments/pre-checkout.ts). */
const PAYMENT_HELD_REASON = 'This order is already paid. The purchase will reach your wallet shortly.';

/**
 * Stars money rules across real processes (gateway, backend process, real bot process, platform
 * emulator): a reusable invoice link paid twice at once takes one charge, and a repeat tap while the
 * first payment waits in the bot's outbox takes none; a charge that credits nothing goes back to its
 * payer exactly once, also when the bot is killed before the refund.
 */
describe('e2e: one charge per order, unmatched stars returned once', () => {
  let stack: PaymentsStack;
  let platform: PlatformEmulator;
  let owner: Customer;
  let pack: string;

  const newOrder = async () => {
    const res = await call(`${stack.api}/user/wallet/orders`, {
      method: 'POST',
      headers: bearer(owner),
      json: { product_id: pack, rail: 'stars' },
    });
    expect(res.status).toBe(201);
    return res.body as OrderBody;
  };
  const order = async (id: string) => (await call(`${stack.api}/user/wallet/orders/${id}`, { headers: bearer(owner) })).body as OrderBody;
  const answered = async (id: string): Promise<PreCheckoutView> => {
    let view: PreCheckoutView | undefined;
    await eventually(() => {
      view = platform.control.preCheckout(id);
      return view !== undefined && view.status !== 'pending';
    }, 20_000);
    if (!view) throw new Error('no pre-checkout');
    return view;
  };
  const chargesFor = (link: string) => platform.control.state().payments.filter((p) => p.link === link);
  const chargeById = (id: string) => platform.control.state().payments.find((p) => p.telegramPaymentChargeId === id);
  const unmatched = async () =>
    (
      await stack.db.query<{ platform_charge_id: string; refund_status: string; reason: string }>(
        'select platform_charge_id, refund_status, reason from unmatched_payments',
      )
    ).rows;

  beforeAll(async () => {
    stack = await startPaymentsStack({
      bot: true,
      backendEnv: { PRECHECKOUT_HOLD_MS: String(HOLD_MS), STAR_REFUND_INTERVAL_MS: '300', STAR_REFUND_RETRY_MAX_MS: '5000' },
    });
    if (!stack.platform) throw new Error('no platform emulator');
    platform = stack.platform;
    for (const id of [OWNER, PAYER_A, PAYER_B]) platform.control.createUser({ id, firstName: `U${id}`, started: true });
    pack = await createProduct(stack, 'Chips 300', 300n, { xtr: 30n });
    owner = await telegramCustomer(stack.api, OWNER);
  }, 180_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('two pre-checkouts for one reusable link at the same moment: one approved, one charge, credited once', async () => {
    const created = await newOrder();
    const link = created.invoice_link ?? '';
    const queries = [platform.control.pay({ link, userId: PAYER_A }), platform.control.pay({ link, userId: PAYER_B })];
    const views = await Promise.all(queries.map((q) => answered(q.preCheckoutQueryId)));
    expect(views.map((v) => v.status).sort()).toEqual(['approved', 'rejected']);
    expect(views.find((v) => v.status === 'rejected')?.errorMessage).toBe('This order is being paid right now. Please wait a few seconds.');
    await eventually(async () => (await order(created.order_id)).state === 'paid', 20_000);
    expect(chargesFor(link)).toHaveLength(1);
    expect(await ledgerRows(stack.db, created.order_id, 'purchase')).toBe(1);
    expect(await balance(stack.api, owner, 'telegram')).toBe('300');
    expect(await unmatched()).toEqual([]);
  });

  it('a repeat tap while the first payment waits is declined; a stray second charge ends unmatched and goes back to its payer once, also across a bot kill', async () => {
    const bot = stack.bot;
    if (!bot) throw new Error('no bot');
    const before = BigInt(await balance(stack.api, owner, 'telegram'));
    const created = await newOrder();
    const link = created.invoice_link ?? '';
    const holder = new pg.Client({ connectionString: stack.db.url });
    await holder.connect();
    try {
      // Stall every ForwardPayment before it touches the order (the credit statement writes the
      // order's payment event, so it waits for this lock), while pre-checkouts still run.
      await holder.query('begin');
      await holder.query('lock table payment_events in access exclusive mode');
      const first = await answered(platform.control.pay({ link, userId: PAYER_A }).preCheckoutQueryId);
      expect(first.status).toBe('approved');
      await new Promise((r) => setTimeout(r, HOLD_MS + 300));
      // The backend's hold lapsed; the bot still holds the first payment and declines before asking.
      const second = await answered(platform.control.pay({ link, userId: PAYER_B }).preCheckoutQueryId);
      expect(second).toMatchObject({ status: 'rejected', errorMessage: PAYMENT_HELD_REASON });
      expect(chargesFor(link)).toHaveLength(1);
      // A second charge for the order that no pre-checkout of this bot approved (an earlier deployment's
      // link) reaches the bot as a successful_payment.
      const stray = platform.control.unforwardedCharge({ userId: PAYER_B, amount: 30, payload: created.order_id });
      platform.control.injectUpdate({
        message: {
          message_id: 1,
          date: Math.floor(Date.now() / 1000),
          from: { id: PAYER_B, is_bot: false, first_name: `U${PAYER_B}` },
          chat: { id: PAYER_B, type: 'private', first_name: `U${PAYER_B}` },
          successful_payment: {
            currency: 'XTR',
            total_amount: 30,
            invoice_payload: created.order_id,
            telegram_payment_charge_id: stray.telegramPaymentChargeId,
            provider_payment_charge_id: '',
          },
        },
      });
      await eventually(() => (platform.control.state().bots[0]?.pendingUpdates.length ?? 1) === 0, 20_000);
      // The bot dies with both charges in its outbox, then the stall ends.
      await bot.kill();
      await holder.query('rollback');
    } finally {
      await holder.end();
    }
    expect(await unmatched()).toEqual([]);
    // The platform refuses the first two refund calls with a 5xx: outcomes unknown, sent again later.
    platform.control.addFault({ method: 'refundStarPayment', status: 502, times: 2 });
    bot.start();
    await waitForBot(stack.gateway);
    await eventually(async () => (await unmatched()).length === 1, 20_000);
    const [lost] = await unmatched();
    expect(lost?.reason).toBe('order_paid');
    const attempts = async () =>
      (
        await stack.db.query<{ refund_attempts: number; refund_status: string; refund_error: string | null }>(
          'select refund_attempts, refund_status, refund_error from unmatched_payments',
        )
      ).rows[0];
    // The restarted bot forwards its outbox (several rows at once) as it links, so the first refund
    // attempt may find no bot linked yet ("no bot connected", also an unknown outcome); the platform's
    // 502 answers an attempt made once the Link is up.
    await eventually(async () => /^platform 502/.test((await attempts())?.refund_error ?? ''), 20_000);
    expect(await attempts()).toMatchObject({ refund_status: 'pending' });
    // The bot is killed again while the refund waits for its next attempt.
    await bot.kill();
    await new Promise((r) => setTimeout(r, 1_000));
    expect(platform.control.starRefunds()).toEqual([]);
    bot.start();
    await waitForBot(stack.gateway);
    await eventually(async () => (await unmatched())[0]?.refund_status === 'refunded', 40_000);
    const refunds = platform.control.starRefunds();
    expect(refunds).toHaveLength(1);
    expect(refunds[0]?.telegramPaymentChargeId).toBe(lost?.platform_charge_id);
    const credited = (
      await stack.db.query<{ platform_charge_id: string }>('select platform_charge_id from orders where id = $1', [created.order_id])
    ).rows[0];
    expect(refunds[0]?.userId).toBe(chargeById(lost?.platform_charge_id ?? '')?.userId);
    expect(credited?.platform_charge_id).not.toBe(lost?.platform_charge_id);
    expect(await ledgerRows(stack.db, created.order_id, 'purchase')).toBe(1);
    expect(BigInt(await balance(stack.api, owner, 'telegram'))).toBe(before + 300n);
    // Replays from the restarted bot's outbox and later refund passes change nothing.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(platform.control.starRefunds()).toHaveLength(1);
    expect(await ledgerRows(stack.db, created.order_id, 'purchase')).toBe(1);
  });
});
