import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SUBSCRIPTION_PERIOD, type PlatformEmulator, type SubscriptionView, type TgStarTransaction, type TgUpdate } from './index.js';
import { callApi, controlApi, startCheckedEmulator } from './test-helpers.js';

/**
 * Stars subscriptions as the Bot API publishes them: createInvoiceLink with subscription_period,
 * the first successful_payment (is_recurring, is_first_recurring, subscription_expiration_date),
 * renewals on the emulator's clock, editUserStarSubscription, expiry when a renewal fails, and the
 * subscription period on getStarTransactions.
 */
let emu: PlatformEmulator;

beforeAll(async () => {
  emu = await startCheckedEmulator();
});
afterAll(() => emu.stop());
beforeEach(() => emu.control.reset());

const pass = {
  title: 'Monthly pass',
  description: 'No ads for 30 days',
  payload: 'order-sub-1',
  currency: 'XTR',
  prices: [{ label: 'Pass', amount: 75 }],
  subscription_period: SUBSCRIPTION_PERIOD,
};

async function drain(target: PlatformEmulator = emu): Promise<TgUpdate[]> {
  const answer = await callApi<TgUpdate[]>(target, 'getUpdates', { timeout: 0 });
  const updates = answer.body.result ?? [];
  const last = updates.at(-1);
  if (last) await callApi(target, 'getUpdates', { offset: last.update_id + 1, timeout: 0 });
  return updates;
}

/** Has a new user subscribe through the pass invoice; answers the user, the first charge and its update. */
async function subscribe(target: PlatformEmulator = emu): Promise<{ userId: number; charge: string; update: TgUpdate }> {
  const link = await callApi<string>(target, 'createInvoiceLink', pass);
  expect(link.body.ok).toBe(true);
  const userId = target.control.createUser({ started: true }).user.id;
  const paid = await controlApi<{ preCheckoutQueryId: string }>(target, 'POST', '/pay', { link: link.body.result, user_id: userId });
  await drain(target);
  await callApi(target, 'answerPreCheckoutQuery', { pre_checkout_query_id: paid.body.preCheckoutQueryId, ok: true });
  const [update] = await drain(target);
  const charge = update?.message?.successful_payment?.telegram_payment_charge_id;
  if (!update || charge === undefined) throw new Error('no successful_payment');
  return { userId, charge, update };
}

describe('createInvoiceLink with subscription_period', () => {
  it('keeps the period on the invoice', async () => {
    const link = await callApi<string>(emu, 'createInvoiceLink', pass);
    expect(emu.control.state().invoices).toEqual([
      expect.objectContaining({ link: link.body.result, subscriptionPeriod: SUBSCRIPTION_PERIOD }),
    ]);
  });

  it.each([
    ['another period', { subscription_period: 86_400 }, 'Bad Request: SUBSCRIPTION_PERIOD_INVALID'],
    ['a period that is no integer', { subscription_period: 'monthly' }, 'Bad Request: SUBSCRIPTION_PERIOD_INVALID'],
    ['a fiat currency', { currency: 'USD' }, 'Bad Request: CURRENCY_INVALID'],
    ['a provider token', { provider_token: '284685063:TEST:abc' }, 'Bad Request: STARS_INVOICE_INVALID'],
  ])('refuses %s', async (_case, change, description) => {
    const answer = await callApi(emu, 'createInvoiceLink', { ...pass, ...change });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ ok: false, error_code: 400, description });
  });
});

describe('a subscription', () => {
  it('starts with a first recurring payment that expires one period after it was paid', async () => {
    const { userId, charge, update } = await subscribe();
    const message = update.message;
    const paid = message?.successful_payment;
    expect(paid).toEqual({
      currency: 'XTR',
      total_amount: 75,
      invoice_payload: 'order-sub-1',
      telegram_payment_charge_id: charge,
      provider_payment_charge_id: '',
      is_recurring: true,
      is_first_recurring: true,
      subscription_expiration_date: (message?.date ?? 0) + SUBSCRIPTION_PERIOD,
    });
    const state = await controlApi<SubscriptionView>(emu, 'GET', `/subscriptions/${encodeURIComponent(charge)}`);
    expect(state.body).toEqual(
      expect.objectContaining({ id: charge, userId, status: 'active', canceled: false, expiresAt: paid?.subscription_expiration_date }),
    );
  });

  it('renews at its expiry on the emulated clock: new charge, same payload, expiration moved one period on', async () => {
    const { charge, update } = await subscribe();
    const firstExpiry = update.message?.successful_payment?.subscription_expiration_date ?? 0;
    const early = await controlApi<{ renewals: unknown[] }>(emu, 'POST', '/clock/advance', { seconds: SUBSCRIPTION_PERIOD - 60 });
    expect(early.body.renewals).toEqual([]);
    expect(await drain()).toEqual([]);
    const advanced = await controlApi<{ renewals: Array<{ telegramPaymentChargeId: string }> }>(emu, 'POST', '/clock/advance', {
      seconds: 120,
    });
    expect(advanced.status).toBe(200);
    expect(advanced.body.renewals).toHaveLength(1);
    const [renewal] = await drain();
    const paid = renewal?.message?.successful_payment;
    expect(paid).toEqual({
      currency: 'XTR',
      total_amount: 75,
      invoice_payload: 'order-sub-1',
      telegram_payment_charge_id: advanced.body.renewals[0]?.telegramPaymentChargeId,
      provider_payment_charge_id: '',
      is_recurring: true,
      subscription_expiration_date: firstExpiry + SUBSCRIPTION_PERIOD,
    });
    expect(paid?.telegram_payment_charge_id).not.toBe(charge);
    expect(renewal?.message?.date).toBe(firstExpiry);
    expect(emu.control.subscription(charge)?.chargeIds).toEqual([charge, paid?.telegram_payment_charge_id]);
  });

  it('renews once per period passed when the clock jumps several periods', async () => {
    const { charge } = await subscribe();
    const advanced = emu.control.advanceClock(SUBSCRIPTION_PERIOD * 3);
    expect(advanced.renewals).toHaveLength(3);
    const updates = await drain();
    expect(updates.map((u) => u.message?.successful_payment?.is_first_recurring)).toEqual([undefined, undefined, undefined]);
    expect(emu.control.subscription(charge)?.chargeIds).toHaveLength(4);
  });

  it('lists every charge on getStarTransactions with the subscription period', async () => {
    const one = await callApi<string>(emu, 'createInvoiceLink', { ...pass, subscription_period: undefined, payload: 'one-time' });
    const buyer = emu.control.createUser({ started: true }).user.id;
    const { preCheckoutQueryId } = emu.control.pay({ link: one.body.result ?? '', userId: buyer });
    await callApi(emu, 'answerPreCheckoutQuery', { pre_checkout_query_id: preCheckoutQueryId, ok: true });
    const { userId } = await subscribe();
    emu.control.advanceClock(SUBSCRIPTION_PERIOD);
    const answer = await callApi<{ transactions: TgStarTransaction[] }>(emu, 'getStarTransactions', {});
    const sources = (answer.body.result?.transactions ?? []).map((t) => t.source);
    expect(sources).toEqual([
      expect.not.objectContaining({ subscription_period: expect.anything() as unknown }),
      expect.objectContaining({ user: expect.objectContaining({ id: userId }) as unknown, subscription_period: SUBSCRIPTION_PERIOD }),
      expect.objectContaining({ invoice_payload: 'order-sub-1', subscription_period: SUBSCRIPTION_PERIOD }),
    ]);
  });

  it('refunds a subscription charge like any other, once', async () => {
    const { userId, charge } = await subscribe();
    const first = await callApi(emu, 'refundStarPayment', { user_id: userId, telegram_payment_charge_id: charge });
    expect(first.body).toEqual({ ok: true, result: true });
    const again = await callApi(emu, 'refundStarPayment', { user_id: userId, telegram_payment_charge_id: charge });
    expect(again.body.description).toBe('Bad Request: CHARGE_ALREADY_REFUNDED');
    expect(emu.control.starRefunds({ userId }).map((r) => r.telegramPaymentChargeId)).toEqual([charge]);
  });
});

describe('editUserStarSubscription', () => {
  it('cancels: the subscription stays active to the end of its period, then expires without an update', async () => {
    const { userId, charge } = await subscribe();
    const answer = await callApi(emu, 'editUserStarSubscription', {
      user_id: userId,
      telegram_payment_charge_id: charge,
      is_canceled: true,
    });
    expect(answer.body).toEqual({ ok: true, result: true });
    expect(emu.control.subscription(charge)).toEqual(expect.objectContaining({ status: 'active', canceled: true }));
    const expiresAt = emu.control.subscription(charge)?.expiresAt ?? 0;
    expect(emu.control.advanceClock(expiresAt - emu.control.clock().now - 1).expired).toEqual([]);
    expect(emu.control.subscription(charge)?.status).toBe('active');
    expect(emu.control.advanceClock(1).expired).toEqual([{ subscriptionId: charge, reason: 'canceled' }]);
    expect(await drain()).toEqual([]);
    expect(emu.control.subscription(charge)).toEqual(expect.objectContaining({ status: 'expired', endReason: 'canceled' }));
    const late = await callApi(emu, 'editUserStarSubscription', {
      user_id: userId,
      telegram_payment_charge_id: charge,
      is_canceled: false,
    });
    expect(late.body).toEqual({ ok: false, error_code: 400, description: 'Bad Request: SUBSCRIPTION_EXPIRED' });
  });

  it('re-enables before expiry (as a form, with the renewal charge naming it): it renews again', async () => {
    const { userId, charge } = await subscribe();
    const [renewal] = emu.control.advanceClock(SUBSCRIPTION_PERIOD).renewals;
    await drain();
    const latest = renewal?.telegramPaymentChargeId ?? '';
    const params = { user_id: userId, telegram_payment_charge_id: latest };
    expect((await callApi(emu, 'editUserStarSubscription', { ...params, is_canceled: true }, { encoding: 'form' })).body.ok).toBe(true);
    expect((await callApi(emu, 'editUserStarSubscription', { ...params, is_canceled: false }, { encoding: 'form' })).body.ok).toBe(true);
    expect(emu.control.subscription(charge)?.canceled).toBe(false);
    expect(emu.control.advanceClock(SUBSCRIPTION_PERIOD).renewals).toHaveLength(1);
    expect(await drain()).toHaveLength(1);
  });

  it.each([
    ['an unknown charge', (_u: number, _c: string) => ({ telegram_payment_charge_id: 'stx-nope' }), 'Bad Request: CHARGE_NOT_FOUND'],
    ['another user', (u: number) => ({ user_id: u + 1 }), 'Bad Request: CHARGE_NOT_FOUND'],
    ['no is_canceled', () => ({ is_canceled: undefined }), 'Bad Request: parameter "is_canceled" is required'],
    ['no user_id', () => ({ user_id: undefined }), 'Bad Request: invalid user_id specified'],
  ])('refuses %s', async (_case, change, description) => {
    const { userId, charge } = await subscribe();
    const params = { user_id: userId, telegram_payment_charge_id: charge, is_canceled: true, ...change(userId, charge) };
    const answer = await callApi(emu, 'editUserStarSubscription', JSON.parse(JSON.stringify(params)) as Record<string, unknown>);
    expect(answer.body).toEqual({ ok: false, error_code: 400, description });
    expect(emu.control.subscription(charge)?.canceled).toBe(false);
  });

  it('refuses a one-time charge as no subscription', async () => {
    const link = await callApi<string>(emu, 'createInvoiceLink', { ...pass, subscription_period: undefined });
    const userId = emu.control.createUser({ started: true }).user.id;
    const { preCheckoutQueryId } = emu.control.pay({ link: link.body.result ?? '', userId });
    await callApi(emu, 'answerPreCheckoutQuery', { pre_checkout_query_id: preCheckoutQueryId, ok: true });
    const charge = emu.control.preCheckout(preCheckoutQueryId)?.payment?.telegramPaymentChargeId ?? '';
    const answer = await callApi(emu, 'editUserStarSubscription', {
      user_id: userId,
      telegram_payment_charge_id: charge,
      is_canceled: true,
    });
    expect(answer.body.description).toBe('Bad Request: CHARGE_NOT_FOUND');
  });
});

describe('a failed renewal', () => {
  it('expires the subscription at its end, with no update and no charge', async () => {
    const { charge } = await subscribe();
    const failing = await controlApi<SubscriptionView>(emu, 'POST', `/subscriptions/${encodeURIComponent(charge)}/fail-next-renewal`, {});
    expect(failing.body.failNextRenewal).toBe('insufficient stars');
    const advanced = await controlApi<{ renewals: unknown[]; expired: unknown[] }>(emu, 'POST', '/clock/advance', {
      seconds: SUBSCRIPTION_PERIOD * 2,
    });
    expect(advanced.body).toEqual(
      expect.objectContaining({ renewals: [], expired: [{ subscriptionId: charge, reason: 'insufficient stars' }] }),
    );
    expect(await drain()).toEqual([]);
    expect(emu.control.starTransactions()).toHaveLength(1);
    const listed = await controlApi<SubscriptionView[]>(emu, 'GET', '/subscriptions');
    expect(listed.body).toEqual([expect.objectContaining({ id: charge, status: 'expired', endReason: 'insufficient stars' })]);
  });

  it.each([
    ['a negative advance', '/clock/advance', { seconds: -5 }, 400],
    ['a fractional advance', '/clock/advance', { seconds: 1.5 }, 400],
    ['failing an unknown subscription', '/subscriptions/stx-nope/fail-next-renewal', {}, 404],
  ])('control refuses %s', async (_case, path, body, status) => {
    expect((await controlApi(emu, 'POST', path, body)).status).toBe(status);
  });
});

describe('renewal on the running clock', () => {
  it('renews a subscription whose period ends as real time passes, without a control-API advance', async () => {
    const ticking = await startCheckedEmulator({ subscriptionTickMs: 50 });
    try {
      const { charge, update } = await subscribe(ticking);
      const expiry = update.message?.successful_payment?.subscription_expiration_date ?? 0;
      ticking.control.advanceClock(expiry - ticking.control.clock().now - 1);
      expect(ticking.control.subscription(charge)?.chargeIds).toHaveLength(1);
      const answer = await callApi<TgUpdate[]>(ticking, 'getUpdates', { timeout: 10 });
      expect(answer.body.result?.map((u) => u.message?.successful_payment?.subscription_expiration_date)).toEqual([
        expiry + SUBSCRIPTION_PERIOD,
      ]);
      expect(ticking.control.subscription(charge)?.chargeIds).toHaveLength(2);
    } finally {
      await ticking.stop();
    }
  });
});

describe('the clock and subscriptions in the state file', () => {
  it('come back after a restart, and renewals go on from there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'platform-subs-'));
    const stateFile = join(dir, 'state.json');
    try {
      const first = await startCheckedEmulator({ stateFile });
      const { charge } = await subscribe(first);
      first.control.advanceClock(SUBSCRIPTION_PERIOD);
      await drain(first);
      const before = first.control.clock();
      await first.stop();
      const second = await startCheckedEmulator({ stateFile });
      try {
        expect(second.control.clock().offsetSeconds).toBe(before.offsetSeconds);
        expect(second.control.subscription(charge)?.chargeIds).toHaveLength(2);
        expect(second.control.advanceClock(SUBSCRIPTION_PERIOD).renewals).toHaveLength(1);
        const [renewal] = await drain(second);
        expect(renewal?.message?.successful_payment?.is_recurring).toBe(true);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
