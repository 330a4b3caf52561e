import { QUERY_TOO_OLD, type PlatformEmulator, type TgUpdate } from './index.js';
import { callApi, waitFor, startCheckedEmulator } from './test-helpers.js';

let emu: PlatformEmulator;

beforeAll(async () => {
  emu = await startCheckedEmulator({ preCheckoutTimeoutMs: 300 });
});
afterAll(() => emu.stop());
beforeEach(() => emu.control.reset());

const valid = {
  title: '100 hints',
  description: 'A pack of hints for the word game',
  payload: 'order-1',
  currency: 'XTR',
  prices: [{ label: 'Hints', amount: 50 }],
};

const createLink = (params: Record<string, unknown>) => callApi<string>(emu, 'createInvoiceLink', params);

async function nextUpdates(): Promise<TgUpdate[]> {
  const answer = await callApi<TgUpdate[]>(emu, 'getUpdates', { timeout: 1 });
  const updates = answer.body.result ?? [];
  const last = updates.at(-1);
  if (last) await callApi(emu, 'getUpdates', { offset: last.update_id + 1 });
  return updates;
}

describe('createInvoiceLink', () => {
  it('returns a t.me/$ link and keeps the invoice', async () => {
    const answer = await createLink(valid);
    expect(answer.status).toBe(200);
    expect(answer.body.result).toMatch(/^https:\/\/t\.me\/\$[A-Za-z0-9_-]{10,}$/);
    expect(emu.control.state().invoices).toEqual([
      expect.objectContaining({ link: answer.body.result, payload: 'order-1', amount: 50, title: '100 hints' }),
    ]);
    expect((await createLink({ ...valid, provider_token: '' })).body.ok).toBe(true);
  });

  it('accepts prices as JSON text in a form', async () => {
    const answer = await callApi(emu, 'createInvoiceLink', valid, { encoding: 'form' });
    expect(answer.body.ok).toBe(true);
  });

  it.each([
    ['a non-XTR currency', { currency: 'USD' }, 'Bad Request: CURRENCY_INVALID'],
    ['a provider token', { provider_token: '284685063:TEST:abc' }, 'Bad Request: STARS_INVOICE_INVALID'],
    [
      'two prices',
      {
        prices: [
          { label: 'a', amount: 1 },
          { label: 'b', amount: 2 },
        ],
      },
      'Bad Request: STARS_INVOICE_INVALID',
    ],
    ['no price', { prices: [] }, 'Bad Request: STARS_INVOICE_INVALID'],
    ['a zero amount', { prices: [{ label: 'a', amount: 0 }] }, 'Bad Request: CURRENCY_TOTAL_AMOUNT_INVALID'],
    ['a fractional amount', { prices: [{ label: 'a', amount: 1.5 }] }, "Bad Request: can't parse prices JSON object"],
    ['prices that are not JSON', { prices: '[{' }, "Bad Request: can't parse prices JSON object"],
    ['a payload over 128 bytes', { payload: 'é'.repeat(65) }, 'Bad Request: INVOICE_PAYLOAD_INVALID'],
    ['an empty payload', { payload: '' }, 'Bad Request: parameter "payload" is required'],
    ['a title over 32 characters', { title: 't'.repeat(33) }, 'Bad Request: INVOICE_TITLE_INVALID'],
    ['a description over 255 characters', { description: 'd'.repeat(256) }, 'Bad Request: INVOICE_DESCRIPTION_INVALID'],
    ['tips', { max_tip_amount: 10 }, 'Bad Request: STARS_INVOICE_INVALID'],
    ['a subscription period other than 30 days', { subscription_period: 3600 }, 'Bad Request: SUBSCRIPTION_PERIOD_INVALID'],
  ])('refuses %s', async (_case, change, description) => {
    const answer = await createLink({ ...valid, ...change });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ ok: false, error_code: 400, description });
  });

  it('accepts a payload of exactly 128 bytes', async () => {
    expect((await createLink({ ...valid, payload: 'é'.repeat(64) })).body.ok).toBe(true);
  });
});

describe('payment flow', () => {
  async function setUp(): Promise<{ link: string; userId: number }> {
    const link = (await createLink(valid)).body.result ?? '';
    const userId = emu.control.createUser({ firstName: 'Payer' }).user.id;
    return { link, userId };
  }

  it('pre_checkout_query -> ok -> successful_payment', async () => {
    const { link, userId } = await setUp();
    const { preCheckoutQueryId } = emu.control.pay({ link, userId });
    const [update] = await nextUpdates();
    expect(update?.['pre_checkout_query']).toEqual({
      id: preCheckoutQueryId,
      from: { id: userId, is_bot: false, first_name: 'Payer' },
      currency: 'XTR',
      total_amount: 50,
      invoice_payload: 'order-1',
    });
    const answer = await callApi(emu, 'answerPreCheckoutQuery', { pre_checkout_query_id: preCheckoutQueryId, ok: true });
    expect(answer.body).toEqual({ ok: true, result: true });
    const [paid] = await nextUpdates();
    const message = paid?.['message'] as unknown as Record<string, unknown>;
    expect(message).toMatchObject({
      from: { id: userId },
      chat: { id: userId, type: 'private' },
      successful_payment: {
        currency: 'XTR',
        total_amount: 50,
        invoice_payload: 'order-1',
        telegram_payment_charge_id: expect.stringMatching(/^stx/) as string,
        provider_payment_charge_id: '',
      },
    });
    const outcome = emu.control.preCheckout(preCheckoutQueryId);
    expect(outcome).toMatchObject({ status: 'approved', payment: { userId, totalAmount: 50 } });
    // Answering twice is refused.
    const again = await callApi(emu, 'answerPreCheckoutQuery', { pre_checkout_query_id: preCheckoutQueryId, ok: true });
    expect(again.body).toEqual({ ok: false, error_code: 400, description: 'Bad Request: QUERY_ID_INVALID' });
  });

  it('gives every payment its own charge id', async () => {
    const { link, userId } = await setUp();
    for (let i = 0; i < 2; i += 1) {
      const { preCheckoutQueryId } = emu.control.pay({ link, userId });
      await callApi(emu, 'answerPreCheckoutQuery', { pre_checkout_query_id: preCheckoutQueryId, ok: true });
    }
    const ids = emu.control.state().payments.map((p) => p.telegramPaymentChargeId);
    expect(new Set(ids).size).toBe(2);
  });

  it('ok=false needs error_message and completes no payment', async () => {
    const { link, userId } = await setUp();
    const { preCheckoutQueryId } = emu.control.pay({ link, userId });
    await nextUpdates();
    const missing = await callApi(emu, 'answerPreCheckoutQuery', { pre_checkout_query_id: preCheckoutQueryId, ok: false });
    expect(missing.body.description).toBe('Bad Request: parameter "error_message" is required');
    const answer = await callApi(emu, 'answerPreCheckoutQuery', {
      pre_checkout_query_id: preCheckoutQueryId,
      ok: false,
      error_message: 'Sold out',
    });
    expect(answer.body).toEqual({ ok: true, result: true });
    expect(emu.control.preCheckout(preCheckoutQueryId)).toMatchObject({ status: 'rejected', errorMessage: 'Sold out' });
    expect(await nextUpdates()).toEqual([]);
    expect(emu.control.state().payments).toEqual([]);
  });

  it('expires an unanswered query; a late answer gets "query is too old"', async () => {
    const { link, userId } = await setUp();
    const { preCheckoutQueryId } = emu.control.pay({ link, userId });
    await waitFor(() => emu.control.preCheckout(preCheckoutQueryId)?.status === 'expired');
    const late = await callApi(emu, 'answerPreCheckoutQuery', { pre_checkout_query_id: preCheckoutQueryId, ok: true });
    expect(late.body).toEqual({ ok: false, error_code: 400, description: `Bad Request: ${QUERY_TOO_OLD}` });
    expect(emu.control.state().payments).toEqual([]);
  });

  it('refuses an unknown query id', async () => {
    const answer = await callApi(emu, 'answerPreCheckoutQuery', { pre_checkout_query_id: '12345', ok: true });
    expect(answer.body).toEqual({ ok: false, error_code: 400, description: 'Bad Request: QUERY_ID_INVALID' });
  });

  it('runs over the control HTTP API too', async () => {
    const { link, userId } = await setUp();
    const paid = await fetch(`${emu.url}/_control/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ link, userId }),
    });
    const { preCheckoutQueryId } = (await paid.json()) as { preCheckoutQueryId: string };
    expect(typeof preCheckoutQueryId).toBe('string');
    let view = (await (await fetch(`${emu.url}/_control/precheckouts/${preCheckoutQueryId}`)).json()) as { status: string };
    expect(view.status).toBe('pending');
    await callApi(emu, 'answerPreCheckoutQuery', { pre_checkout_query_id: preCheckoutQueryId, ok: true }, { encoding: 'form' });
    view = (await (await fetch(`${emu.url}/_control/precheckouts/${preCheckoutQueryId}`)).json()) as { status: string };
    expect(view.status).toBe('approved');
    expect((await fetch(`${emu.url}/_control/precheckouts/nope`)).status).toBe(404);
    const badLink = await fetch(`${emu.url}/_control/pay`, {
      method: 'POST',
      body: JSON.stringify({ link: 'https://t.me/$missing', userId }),
    });
    expect(badLink.status).toBe(404);
  });
});
