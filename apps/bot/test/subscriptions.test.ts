import { join } from 'node:path';
import { Code, ConnectError } from '@connectrpc/connect';
import type { botlink } from '@wordgame/contracts';
import { SUBSCRIPTION_PERIOD, startPlatformEmulator, type PlatformEmulator } from '@wordgame/platform-emulator';
import Database from 'better-sqlite3';
import type { CompactStarTransaction } from '../src/commands/star-transactions.js';
import { PaymentOutbox } from '../src/payments/outbox.store.js';
import { DeadLetters } from '../src/store/dead-letters.js';
import { command, startBot, type RunningBot } from './support/bot.js';
import { tempCerts, testConfig } from './support/fixture.js';
import { TestGateway } from './support/gateway.js';
import { ERROR } from './support/logs.js';
import { waitFor } from './support/wait.js';

/**
 * Stars subscriptions through the bot and the platform emulator: the invoice with
 * subscription_period, the first charge and each renewal stored durably and forwarded with
 * ForwardPaymentRequest fields 5-7 (also across a restart before the backend answered),
 * edit_star_subscription, the subscription period in get_star_transactions, and a hostile
 * subscription_expiration_date parked and counted.
 */
const certs = tempCerts();
let emu: PlatformEmulator;
let gateway: TestGateway;
const bots: RunningBot[] = [];
let forwarded: botlink.ForwardPaymentRequest[];
let pathSeq = 0;

beforeAll(async () => {
  emu = await startPlatformEmulator();
  gateway = await TestGateway.start(certs);
});
afterAll(async () => {
  await gateway.close();
  await emu.stop();
  certs.cleanup();
});
beforeEach(() => {
  emu.control.reset();
  forwarded = [];
  gateway.handlers = {
    validatePreCheckout: () => Promise.resolve({ ok: true, reason: '' }),
    forwardPayment: (req) => {
      forwarded.push(req);
      return Promise.resolve({ credited: true });
    },
  };
});
afterEach(async () => {
  for (const bot of bots.splice(0)) await bot.app.stop();
});

const newPath = (): string => join(certs.dir, `subs-${++pathSeq}.sqlite`);

async function bot(path = newPath(), overrides: Record<string, string> = {}): Promise<RunningBot> {
  const running = await startBot(
    testConfig(
      certs,
      { botlink: gateway.url, platform: emu.apiRoot },
      { BOT_OUTBOX_PATH: path, BOT_HEALTH_INTERVAL_MS: '100', ...overrides },
    ),
    gateway,
  );
  bots.push(running);
  return running;
}

function read<T>(path: string, fn: (db: Database.Database) => T): T {
  const db = new Database(path, { readonly: true });
  db.defaultSafeIntegers(true);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}
const outboxRows = (path: string) => read(path, (db) => new PaymentOutbox(db).pending());

function invoice(running: RunningBot, orderId: string, subscriptionPeriod: bigint): Promise<botlink.Ack> {
  return command(running.session, {
    case: 'createInvoice',
    value: { title: 'Monthly pass', description: 'No ads for 30 days', payload: orderId, amount: 75n, subscriptionPeriod },
  });
}

/** A new user subscribes through the bot's pass invoice; resolves once the first charge was forwarded. */
async function subscribe(running: RunningBot, orderId: string): Promise<{ userId: number; firstCharge: string }> {
  const ack = await invoice(running, orderId, BigInt(SUBSCRIPTION_PERIOD));
  expect(ack).toMatchObject({ delivered: true, error: '' });
  const userId = emu.control.createUser({ started: true }).user.id;
  const before = forwarded.length;
  const { preCheckoutQueryId } = emu.control.pay({ link: ack.result, userId });
  await waitFor(() => emu.control.preCheckout(preCheckoutQueryId)?.payment !== undefined, 'the first charge');
  await waitFor(() => forwarded.length > before, 'the first charge forwarded');
  const firstCharge = emu.control.preCheckout(preCheckoutQueryId)?.payment?.telegramPaymentChargeId ?? '';
  return { userId, firstCharge };
}

describe('create_invoice with subscription_period', () => {
  it('passes subscription_period to createInvoiceLink only when it is above 0', async () => {
    const running = await bot();
    expect((await invoice(running, 'order-pass', BigInt(SUBSCRIPTION_PERIOD))).delivered).toBe(true);
    expect((await invoice(running, 'order-once', 0n)).delivered).toBe(true);
    const calls = emu.control.calls('createInvoiceLink').map((c) => c.params);
    expect(calls[0]).toMatchObject({
      payload: 'order-pass',
      currency: 'XTR',
      provider_token: '',
      subscription_period: SUBSCRIPTION_PERIOD,
    });
    expect(calls[1]).toMatchObject({ payload: 'order-once' });
    expect(calls[1]).not.toHaveProperty('subscription_period');
    expect(emu.control.state().invoices.map((i) => i.subscriptionPeriod)).toEqual([SUBSCRIPTION_PERIOD, undefined]);
  });

  it("returns the platform's refusal of another period as the Ack error, and refuses a negative one itself", async () => {
    const running = await bot();
    const refused = await invoice(running, 'order-week', 604_800n);
    expect(refused).toMatchObject({ delivered: false, result: '' });
    expect(refused.error).toContain('SUBSCRIPTION_PERIOD_INVALID');
    emu.control.clearCalls();
    const negative = await invoice(running, 'order-neg', -1n);
    expect(negative.error).toMatch(/subscription_period must be/);
    expect(emu.control.calls('createInvoiceLink')).toEqual([]);
  });
});

describe('a subscription charge forwarded', () => {
  it('forwards the first charge and two renewals with is_recurring, is_first_recurring and the expiration', async () => {
    const path = newPath();
    const running = await bot(path);
    const { userId, firstCharge } = await subscribe(running, 'order-sub');
    const first = forwarded[0];
    const expiry = emu.control.subscription(firstCharge)?.startedAt ?? 0;
    expect(first).toMatchObject({
      orderId: 'order-sub',
      platformPaymentChargeId: firstCharge,
      amount: 75n,
      platformUserId: BigInt(userId),
      isRecurring: true,
      isFirstRecurring: true,
      subscriptionExpirationUnix: BigInt(expiry + SUBSCRIPTION_PERIOD),
    });
    const { renewals } = emu.control.advanceClock(SUBSCRIPTION_PERIOD * 2);
    expect(renewals).toHaveLength(2);
    await waitFor(() => forwarded.length === 3, 'both renewals forwarded');
    expect(forwarded.slice(1)).toEqual(
      renewals.map((r): unknown =>
        expect.objectContaining({
          orderId: 'order-sub',
          platformPaymentChargeId: r.telegramPaymentChargeId,
          amount: 75n,
          isRecurring: true,
          isFirstRecurring: false,
          subscriptionExpirationUnix: BigInt(r.expiresAt),
        }),
      ),
    );
    expect(renewals.map((r) => r.expiresAt)).toEqual([expiry + 2 * SUBSCRIPTION_PERIOD, expiry + 3 * SUBSCRIPTION_PERIOD]);
    await waitFor(() => outboxRows(path).length === 0, 'rows forgotten once answered');
  });

  it('keeps a renewal in the outbox, recurring fields and all, across a restart until the backend answers', async () => {
    const path = newPath();
    const first = await bot(path, { BOT_OUTBOX_RETRY_INITIAL_MS: '100000', BOT_OUTBOX_RETRY_MAX_MS: '100000' });
    const { firstCharge } = await subscribe(first, 'order-restart');
    let attempts = 0;
    gateway.handlers.forwardPayment = () => {
      attempts += 1;
      return Promise.reject(new ConnectError('backend unreachable', Code.Unavailable));
    };
    const [renewal] = emu.control.advanceClock(SUBSCRIPTION_PERIOD).renewals;
    await waitFor(() => attempts >= 1, 'the renewal tried once');
    await waitFor(() => emu.control.state().bots[0]?.pendingUpdates.length === 0, 'the renewal update confirmed');
    expect(outboxRows(path)).toEqual([
      expect.objectContaining({
        platformChargeId: renewal?.telegramPaymentChargeId,
        subscription: { first: false, expirationUnix: BigInt(renewal?.expiresAt ?? 0) },
      }),
    ]);
    await bots.splice(0)[0]?.app.stop();

    gateway.handlers.forwardPayment = (req) => {
      forwarded.push(req);
      return Promise.resolve({ credited: true });
    };
    forwarded = [];
    await bot(path);
    await waitFor(() => forwarded.length === 1, 'forwarded after the restart');
    expect(forwarded[0]).toMatchObject({
      orderId: 'order-restart',
      platformPaymentChargeId: renewal?.telegramPaymentChargeId,
      isRecurring: true,
      isFirstRecurring: false,
      subscriptionExpirationUnix: BigInt(renewal?.expiresAt ?? 0),
    });
    expect(forwarded[0]?.platformPaymentChargeId).not.toBe(firstCharge);
    await waitFor(() => outboxRows(path).length === 0, 'row deleted');
  });

  it('forwards a one-time payment with the recurring fields unset', async () => {
    const running = await bot();
    const ack = await invoice(running, 'order-once', 0n);
    const userId = emu.control.createUser({ started: true }).user.id;
    emu.control.pay({ link: ack.result, userId });
    await waitFor(() => forwarded.length === 1, 'forwarded');
    expect(forwarded[0]).toMatchObject({
      orderId: 'order-once',
      isRecurring: false,
      isFirstRecurring: false,
      subscriptionExpirationUnix: 0n,
    });
  });
});

describe('edit_star_subscription', () => {
  const edit = (running: RunningBot, value: { userId: bigint; platformPaymentChargeId: string; isCanceled: boolean }) =>
    command(running.session, { case: 'editStarSubscription', value });

  it('cancels (no renewal at the end of the period) and re-enables (renewed again) through editUserStarSubscription', async () => {
    const running = await bot();
    const { userId, firstCharge } = await subscribe(running, 'order-edit');
    const target = { userId: BigInt(userId), platformPaymentChargeId: firstCharge };
    expect(await edit(running, { ...target, isCanceled: true })).toMatchObject({ delivered: true, error: '', result: '' });
    expect(emu.control.calls('editUserStarSubscription').at(-1)?.params).toEqual({
      user_id: userId,
      telegram_payment_charge_id: firstCharge,
      is_canceled: true,
    });
    expect(emu.control.subscription(firstCharge)).toMatchObject({ canceled: true, status: 'active' });
    expect(await edit(running, { ...target, isCanceled: false })).toMatchObject({ delivered: true, error: '' });
    expect(emu.control.subscription(firstCharge)?.canceled).toBe(false);
    expect(emu.control.advanceClock(SUBSCRIPTION_PERIOD).renewals).toHaveLength(1);
    await waitFor(() => forwarded.length === 2, 'the renewal forwarded');

    expect(await edit(running, { ...target, isCanceled: true })).toMatchObject({ delivered: true });
    expect(emu.control.advanceClock(SUBSCRIPTION_PERIOD).expired).toEqual([{ subscriptionId: firstCharge, reason: 'canceled' }]);
    const late = await edit(running, { ...target, isCanceled: false });
    expect(late).toMatchObject({ delivered: false, error: 'platform 400: Bad Request: SUBSCRIPTION_EXPIRED' });
  });

  it("returns the platform's refusal of an unknown charge as the Ack error, and never sends a bad command", async () => {
    const running = await bot();
    const user = emu.control.createUser({ started: true }).user.id;
    const unknown = await edit(running, { userId: BigInt(user), platformPaymentChargeId: 'stx-unknown', isCanceled: true });
    expect(unknown).toMatchObject({ delivered: false, error: 'platform 400: Bad Request: CHARGE_NOT_FOUND' });
    emu.control.clearCalls();
    expect((await edit(running, { userId: 0n, platformPaymentChargeId: 'stx-1', isCanceled: true })).error).toMatch(/user_id/);
    expect((await edit(running, { userId: 5n, platformPaymentChargeId: '', isCanceled: true })).error).toMatch(/charge_id/);
    expect((await edit(running, { userId: 5n, platformPaymentChargeId: 'stx\n1', isCanceled: true })).error).toMatch(/control/);
    expect(emu.control.calls('editUserStarSubscription')).toEqual([]);
  });
});

describe('get_star_transactions', () => {
  it("passes each subscription charge's subscription_period through in the Ack JSON", async () => {
    const running = await bot();
    await subscribe(running, 'order-tx');
    emu.control.advanceClock(SUBSCRIPTION_PERIOD);
    const once = await invoice(running, 'order-once', 0n);
    emu.control.pay({ link: once.result, userId: emu.control.createUser({ started: true }).user.id });
    await waitFor(() => forwarded.length === 3, 'every charge forwarded');
    const ack = await command(running.session, { case: 'getStarTransactions', value: { offset: 0n, limit: 100n } });
    const { transactions } = JSON.parse(ack.result) as { transactions: CompactStarTransaction[] };
    expect(transactions.map((t) => [t.payload, t.subscription_period])).toEqual([
      ['order-tx', SUBSCRIPTION_PERIOD],
      ['order-tx', SUBSCRIPTION_PERIOD],
      ['order-once', undefined],
    ]);
    expect(transactions[2]).not.toHaveProperty('subscription_period');
  });
});

describe('a hostile subscription_expiration_date', () => {
  const paymentMessage = (userId: number, payment: Record<string, unknown>) => ({
    message_id: 1,
    date: 1,
    from: { id: userId, is_bot: false, first_name: 'Payer' },
    chat: { id: userId, type: 'private' },
    successful_payment: {
      currency: 'XTR',
      total_amount: 75,
      invoice_payload: 'order-hostile',
      provider_payment_charge_id: '',
      ...payment,
    },
  });

  it.each([
    ['a string', { is_recurring: true, subscription_expiration_date: 'tomorrow' }],
    ['a negative number', { is_recurring: true, subscription_expiration_date: -5 }],
    ['a fraction', { is_recurring: true, subscription_expiration_date: 1.5 }],
    ['past year 9999', { is_recurring: true, subscription_expiration_date: 1e15 }],
    ['missing on a recurring charge', { is_recurring: true, is_first_recurring: true }],
    ['on a one-time charge', { subscription_expiration_date: 1_900_000_000 }],
    ['is_first_recurring without is_recurring', { is_first_recurring: true }],
  ])('(%s) is parked as a dead letter and counted; the bot goes on', async (_case, fields) => {
    const path = newPath();
    const running = await bot(path);
    const user = emu.control.createUser().user.id;
    emu.control.injectUpdate({ message: paymentMessage(user, { telegram_payment_charge_id: 'stx-bad', ...fields }) });
    emu.control.injectUpdate({
      message: paymentMessage(user, {
        telegram_payment_charge_id: 'stx-good',
        is_recurring: true,
        subscription_expiration_date: 1_900_000_000,
      }),
    });
    await waitFor(() => forwarded.length === 1, 'the well-formed renewal behind it forwarded');
    expect(forwarded[0]).toMatchObject({
      platformPaymentChargeId: 'stx-good',
      isRecurring: true,
      subscriptionExpirationUnix: 1_900_000_000n,
    });
    const letters = read(path, (db) => new DeadLetters(db).list());
    expect(letters).toHaveLength(1);
    expect(letters[0]?.reason).toMatch(/^malformed update: message\.successful_payment\.(subscription_expiration_date|is_first_recurring)/);
    expect(running.lines.some((l) => l.level === ERROR && l.msg.startsWith('malformed successful_payment parked'))).toBe(true);
    await waitFor(() => running.session.healths().reduce((sum, h) => sum + h.deadLetters, 0n) === 1n, 'Health carries the dead letter');
  });
});
