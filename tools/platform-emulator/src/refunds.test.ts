import { type PlatformEmulator, type StarRefundView } from './index.js';
import { callApi, controlApi, startCheckedEmulator } from './test-helpers.js';

let emu: PlatformEmulator;

beforeAll(async () => {
  emu = await startCheckedEmulator({ tokens: ['111:first-bot', '222:second-bot'] });
});
afterAll(() => emu.stop());
beforeEach(() => emu.control.reset());

/** A completed Stars payment of `amount` by a new user to the bot with `token`; its charge id and payer. */
async function paid(amount = 50, token = '111:first-bot'): Promise<{ chargeId: string; userId: number }> {
  const link = await callApi<string>(
    emu,
    'createInvoiceLink',
    { title: 'Chips', description: 'A pile of chips', payload: `order-${amount}`, currency: 'XTR', prices: [{ label: 'Chips', amount }] },
    { token },
  );
  const userId = emu.control.createUser().user.id;
  const { preCheckoutQueryId } = emu.control.pay({ link: link.body.result ?? '', userId });
  await callApi(emu, 'answerPreCheckoutQuery', { pre_checkout_query_id: preCheckoutQueryId, ok: true }, { token });
  const chargeId = emu.control.preCheckout(preCheckoutQueryId)?.payment?.telegramPaymentChargeId;
  if (chargeId === undefined) throw new Error('payment did not complete');
  return { chargeId, userId };
}

const refund = (params: Record<string, unknown>, options: { token?: string; encoding?: 'json' | 'form' | 'query' } = {}) =>
  callApi<boolean>(emu, 'refundStarPayment', params, options);

describe('refundStarPayment', () => {
  it('returns true, marks the charge refunded and lists it once under /_control/star-refunds', async () => {
    const { chargeId, userId } = await paid(75);
    const answer = await refund({ user_id: userId, telegram_payment_charge_id: chargeId });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ ok: true, result: true });
    const [payment] = emu.control.state().payments;
    expect(payment?.refundedAt).toEqual(expect.any(String));
    const listed = await controlApi<StarRefundView[]>(emu, 'GET', '/star-refunds');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual([
      expect.objectContaining({
        telegramPaymentChargeId: chargeId,
        userId,
        currency: 'XTR',
        totalAmount: 75,
        payload: 'order-75',
        refundedAt: payment?.refundedAt,
      }),
    ]);
  });

  it('refunds a charge only once: the second call is CHARGE_ALREADY_REFUNDED and nothing moves twice', async () => {
    const { chargeId, userId } = await paid();
    expect((await refund({ user_id: userId, telegram_payment_charge_id: chargeId })).body.ok).toBe(true);
    const firstRefundAt = emu.control.starRefunds()[0]?.refundedAt;
    const again = await refund({ user_id: userId, telegram_payment_charge_id: chargeId }, { encoding: 'form' });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ ok: false, error_code: 400, description: 'Bad Request: CHARGE_ALREADY_REFUNDED' });
    expect(emu.control.starRefunds()).toEqual([expect.objectContaining({ telegramPaymentChargeId: chargeId, refundedAt: firstRefundAt })]);
  });

  it("is CHARGE_NOT_FOUND for an unknown charge, another user's charge and another bot's charge", async () => {
    const mine = await paid();
    const theirs = await paid(60, '222:second-bot');
    const stranger = emu.control.createUser().user.id;
    for (const [params, token] of [
      [{ user_id: mine.userId, telegram_payment_charge_id: 'stxNoSuchCharge' }, undefined],
      [{ user_id: stranger, telegram_payment_charge_id: mine.chargeId }, undefined],
      [{ user_id: theirs.userId, telegram_payment_charge_id: theirs.chargeId }, '111:first-bot'],
    ] as const) {
      const answer = await refund(params, token === undefined ? {} : { token });
      expect(answer.body).toEqual({ ok: false, error_code: 400, description: 'Bad Request: CHARGE_NOT_FOUND' });
    }
    expect(emu.control.starRefunds()).toEqual([]);
    expect(
      (await refund({ user_id: theirs.userId, telegram_payment_charge_id: theirs.chargeId }, { token: '222:second-bot' })).body.ok,
    ).toBe(true);
  });

  it.each([
    ['no user_id', { telegram_payment_charge_id: 'stx1' }, 'Bad Request: invalid user_id specified'],
    ['a user_id that is no integer', { user_id: 'abc', telegram_payment_charge_id: 'stx1' }, 'Bad Request: invalid user_id specified'],
    ['a negative user_id', { user_id: -5, telegram_payment_charge_id: 'stx1' }, 'Bad Request: invalid user_id specified'],
    ['no charge id', { user_id: 5 }, 'Bad Request: parameter "telegram_payment_charge_id" is required'],
    [
      'an empty charge id',
      { user_id: 5, telegram_payment_charge_id: '' },
      'Bad Request: parameter "telegram_payment_charge_id" is required',
    ],
  ])('refuses %s with the usual 400', async (_case, params, description) => {
    const answer = await refund(params);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ ok: false, error_code: 400, description });
  });

  it('takes its parameters as a query string too', async () => {
    const { chargeId, userId } = await paid();
    expect((await refund({ user_id: userId, telegram_payment_charge_id: chargeId }, { encoding: 'query' })).body).toEqual({
      ok: true,
      result: true,
    });
  });

  it('obeys injected faults like every method: a 502 or a dropped call refunds nothing', async () => {
    const { chargeId, userId } = await paid();
    emu.control.addFault({ method: 'refundStarPayment', status: 502 });
    const failed = await fetch(`${emu.apiRoot}/bot111:first-bot/refundStarPayment`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user_id: userId, telegram_payment_charge_id: chargeId }),
    });
    expect(failed.status).toBe(502);
    emu.control.addFault({ method: 'refundStarPayment', drop: true });
    await expect(refund({ user_id: userId, telegram_payment_charge_id: chargeId })).rejects.toThrow();
    expect(emu.control.starRefunds()).toEqual([]);
    expect(emu.control.calls('refundStarPayment').map((c) => c.outcome)).toEqual(['answered', 'dropped']);
    expect((await refund({ user_id: userId, telegram_payment_charge_id: chargeId })).body.ok).toBe(true);
  });

  it('filters /_control/star-refunds by userId and refuses a malformed one', async () => {
    const a = await paid();
    const b = await paid();
    for (const p of [a, b]) await refund({ user_id: p.userId, telegram_payment_charge_id: p.chargeId });
    const onlyB = await controlApi<StarRefundView[]>(emu, 'GET', `/star-refunds?userId=${b.userId}`);
    expect(onlyB.body.map((r) => r.telegramPaymentChargeId)).toEqual([b.chargeId]);
    expect((await controlApi(emu, 'GET', '/star-refunds?userId=x')).status).toBe(400);
    emu.control.reset();
    expect((await controlApi<StarRefundView[]>(emu, 'GET', '/star-refunds')).body).toEqual([]);
  });
});
