import { type PlatformEmulator } from './index.js';
import type { TgStarTransaction } from './starTransactions.js';
import { callApi, controlApi, startCheckedEmulator } from './testHelpers.js';

let emu: PlatformEmulator;

beforeAll(async () => {
  emu = await startCheckedEmulator({ tokens: ['111:first-bot', '222:second-bot'] });
});
afterAll(() => emu.stop());
beforeEach(() => emu.control.reset());

async function paid(amount: number, token = '111:first-bot'): Promise<{ chargeId: string; userId: number }> {
  const link = await callApi<string>(
    emu,
    'createInvoiceLink',
    { title: 'Chips', description: 'Chips', payload: `order-${amount}`, currency: 'XTR', prices: [{ label: 'Chips', amount }] },
    { token },
  );
  const userId = emu.control.createUser().user.id;
  const { preCheckoutQueryId } = emu.control.pay({ link: link.body.result ?? '', userId });
  await callApi(emu, 'answerPreCheckoutQuery', { pre_checkout_query_id: preCheckoutQueryId, ok: true }, { token });
  const chargeId = emu.control.preCheckout(preCheckoutQueryId)?.payment?.telegramPaymentChargeId;
  if (chargeId === undefined) throw new Error('payment did not complete');
  return { chargeId, userId };
}

const list = async (params: Record<string, unknown> = {}, token = '111:first-bot') =>
  (await callApi<{ transactions: TgStarTransaction[] }>(emu, 'getStarTransactions', params, { token })).body;

describe('getStarTransactions', () => {
  it('lists payments (source user with payload) and refunds (receiver user), newest first, per bot', async () => {
    const a = await paid(10);
    await new Promise((r) => setTimeout(r, 5));
    const b = await paid(20);
    await paid(30, '222:second-bot');
    await new Promise((r) => setTimeout(r, 5));
    await callApi(emu, 'refundStarPayment', { user_id: a.userId, telegram_payment_charge_id: a.chargeId });
    const answer = await list();
    expect(answer.ok).toBe(true);
    const txs = answer.result?.transactions ?? [];
    expect(txs.map((t) => [t.id, t.amount, t.source ? 'in' : 'out'])).toEqual([
      [a.chargeId, 10, 'out'],
      [b.chargeId, 20, 'in'],
      [a.chargeId, 10, 'in'],
    ]);
    expect(txs[1]).toMatchObject({
      source: { type: 'user', user: { id: b.userId }, invoice_payload: 'order-20' },
      date: expect.any(Number) as number,
    });
    expect(txs[0]).toMatchObject({ receiver: { type: 'user', user: { id: a.userId } } });
    expect(txs[0]?.source).toBeUndefined();
  });

  it('pages with offset and limit (clamped to 1..100)', async () => {
    for (const amount of [1, 2, 3]) await paid(amount);
    expect((await list({ offset: 1, limit: 1 })).result?.transactions.map((t) => t.amount)).toEqual([2]);
    expect((await list({ offset: 3 })).result?.transactions).toEqual([]);
    expect((await list({ limit: 0 })).result?.transactions).toHaveLength(1);
    expect((await list({ limit: 'many' })).ok).toBe(false);
  });

  it('control: an unforwarded charge, a platform-only refund, an altered amount and a forgotten charge', async () => {
    const user = emu.control.createUser().user.id;
    const made = await controlApi<{ telegramPaymentChargeId: string }>(emu, 'POST', '/star-transactions/unforwarded', {
      user_id: user,
      amount: 7,
      payload: 'lost',
    });
    expect(made.status).toBe(200);
    const charge = made.body.telegramPaymentChargeId;
    expect(emu.control.messages({ direction: 'to_bot' })).toEqual([]);
    expect((await controlApi(emu, 'POST', `/star-transactions/${charge}/amount`, { amount: 9 })).status).toBe(200);
    expect((await controlApi(emu, 'POST', `/star-transactions/${charge}/refund`)).status).toBe(200);
    expect((await controlApi(emu, 'POST', `/star-transactions/${charge}/refund`)).status).toBe(409);
    let txs = (await list()).result?.transactions ?? [];
    expect(txs.map((t) => [t.id, t.amount, t.source ? 'in' : 'out'])).toEqual([
      [charge, 9, 'out'],
      [charge, 9, 'in'],
    ]);
    expect((await controlApi(emu, 'DELETE', `/star-transactions/${charge}`)).status).toBe(200);
    txs = (await list()).result?.transactions ?? [];
    expect(txs).toEqual([]);
    expect((await controlApi(emu, 'DELETE', `/star-transactions/${charge}`)).status).toBe(404);
  });
});
