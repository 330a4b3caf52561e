import { type PlatformEmulator } from './index.js';
import type { TgStarTransaction } from './star-transactions.js';
import { callApi, controlApi, startCheckedEmulator } from './test-helpers.js';

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
  it('lists payments (source user with payload) and refunds (receiver user), oldest first (chronological, as documented), per bot', async () => {
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
      [a.chargeId, 10, 'in'],
      [b.chargeId, 20, 'in'],
      [a.chargeId, 10, 'out'],
    ]);
    expect(txs[1]).toMatchObject({
      source: { type: 'user', user: { id: b.userId }, invoice_payload: 'order-20' },
      date: expect.any(Number) as number,
    });
    expect(txs[2]).toMatchObject({ receiver: { type: 'user', user: { id: a.userId } } });
    expect(txs[2]?.source).toBeUndefined();
    const dates = txs.map((t) => t.date);
    expect(dates).toEqual([...dates].sort((x, y) => x - y));
  });

  it('pages with offset and limit (clamped to 1..100)', async () => {
    for (const amount of [1, 2, 3]) await paid(amount);
    expect((await list({ offset: 1, limit: 1 })).result?.transactions.map((t) => t.amount)).toEqual([2]);
    expect((await list({ offset: 0, limit: 1 })).result?.transactions.map((t) => t.amount)).toEqual([1]);
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
      [charge, 9, 'in'],
      [charge, 9, 'out'],
    ]);
    expect((await controlApi(emu, 'DELETE', `/star-transactions/${charge}`)).status).toBe(200);
    txs = (await list()).result?.transactions ?? [];
    expect(txs).toEqual([]);
    expect((await controlApi(emu, 'DELETE', `/star-transactions/${charge}`)).status).toBe(404);
  });

  it('answers newest first when switched (control API or start option); reset comes back to the start order', async () => {
    const user = emu.control.createUser().user.id;
    const now = Math.floor(Date.now() / 1000);
    // a backdated history, two of it in one second, given out of order
    const at = [now - 300, now - 100, now - 200, now - 200];
    const ids = at.map(
      (date, i) => emu.control.unforwardedCharge({ userId: user, amount: i + 1, payload: '', date }).telegramPaymentChargeId,
    );
    const amounts = async (params: Record<string, unknown> = {}) => (await list(params)).result?.transactions.map((t) => t.amount);
    expect(await amounts()).toEqual([1, 3, 4, 2]);
    expect((await list()).result?.transactions.map((t) => t.date)).toEqual([now - 300, now - 200, now - 200, now - 100]);
    expect((await controlApi(emu, 'GET', '/star-transactions/order')).body).toEqual({ order: 'oldest_first' });

    expect((await controlApi(emu, 'POST', '/star-transactions/order', { order: 'newest_first' })).body).toEqual({ order: 'newest_first' });
    expect(await amounts()).toEqual([2, 4, 3, 1]);
    expect(await amounts({ offset: 1, limit: 2 })).toEqual([4, 3]);
    expect(emu.control.starTransactions().map((t) => t.id)).toEqual([ids[1], ids[3], ids[2], ids[0]]);
    expect((await controlApi(emu, 'POST', '/star-transactions/order', { order: 'sideways' })).status).toBe(400);
    expect((await controlApi(emu, 'POST', '/star-transactions/unforwarded', { user_id: user, amount: 1, date: -5 })).status).toBe(400);

    emu.control.reset();
    expect(emu.control.starTransactionsOrder()).toEqual({ order: 'oldest_first' });
    const other = await startCheckedEmulator({ starTransactionsOrder: 'newest_first' });
    try {
      other.control.reset();
      expect(other.control.starTransactionsOrder()).toEqual({ order: 'newest_first' });
    } finally {
      await other.stop();
    }
  });
});
