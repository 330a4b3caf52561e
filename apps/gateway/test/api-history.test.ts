import { call } from './support/edge.js';
import {
  balance,
  bearer,
  createProduct,
  directCustomer,
  startPaymentsStack,
  type Customer,
  type OrderBody,
  type PaymentsStack,
} from './support/payments-stack.js';

interface Entry {
  entry_id: string;
  kind: string;
  at: string;
  title: string;
  rail: string | null;
  state: string;
  amount: string | null;
  currency: string | null;
  chips: string;
  balance_after: string | null;
  in_debt: boolean;
  receipt: boolean;
  refund_receipt: boolean;
  order_id: string | null;
}
interface Page {
  entries: Entry[];
  next_cursor: string | null;
}

/**
 * GET /api/v1/user/wallet/history through gateway -> backend -> PostgreSQL + the provider emulator:
 * the caller's own orders and ledger operations only, newest first, a refund with the debt it left,
 * receipts where the card rail sent them, paged by cursor, its query validated.
 */
describe('wallet.history', () => {
  let stack: PaymentsStack;
  let api: string;
  let buyer: Customer;
  let stranger: Customer;
  let pack: string;
  let hints: string;
  let refunded: OrderBody;
  let pending: OrderBody;

  const history = (who: Customer, query = '', headers: Record<string, string> = {}) =>
    call(`${api}/user/wallet/history${query}`, { headers: { ...bearer(who), ...headers } });
  const walk = async (who: Customer, limit: number): Promise<Entry[]> => {
    const out: Entry[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 50; pages++) {
      const res = await history(who, `?limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
      expect(res.status).toBe(200);
      const page = res.body as Page;
      expect(page.entries.length).toBeLessThanOrEqual(limit);
      out.push(...page.entries);
      cursor = page.next_cursor;
      if (cursor === null) return out;
    }
    throw new Error('the cursor does not end');
  };
  const cardOrder = async (who: Customer) => {
    const res = await call(`${api}/user/wallet/orders`, { method: 'POST', headers: bearer(who), json: { product_id: pack, rail: 'card' } });
    expect(res.status).toBe(201);
    return res.body as OrderBody;
  };
  const pay = async (order: OrderBody) => {
    const found = stack.provider.control.payments().find((p) => p.payment.metadata?.['order_id'] === order.order_id);
    if (!found) throw new Error(`no provider payment for order ${order.order_id}`);
    await stack.provider.control.succeedPayment(found.payment.id);
  };

  beforeAll(async () => {
    stack = await startPaymentsStack({ backendEnv: { BACKEND_YOOKASSA_VAT_CODE: '2' } });
    api = stack.api;
    pack = await createProduct(stack, 'Chips 100', 100n, { rub: 9900n });
    const res = await call(`${stack.urls.httpUrl}/_gm/api/catalog/products`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.operatorToken}` },
      json: {
        texts: { en: { title: 'Hints x5', description: '' }, ru: { title: 'Подсказки x5', description: '' } },
        atoms: [{ kind: 'hints', quantity: '5' }],
        prices: [{ method: 'chips', amount: '80', currency: 'CHIPS' }],
      },
    });
    hints = (res.body as { product_id: string }).product_id;
    buyer = await directCustomer(stack, 'history-buyer@example.test', true);
    stranger = await directCustomer(stack, 'history-stranger@example.test', true);

    // Buy 100 chips by card, spend 80 of them, get the pack refunded: -80 left, a debt.
    refunded = await cardOrder(buyer);
    await pay(refunded);
    expect(await balance(api, buyer, 'direct')).toBe('100');
    const spent = await call(`${api}/user/wallet`, { method: 'POST', headers: bearer(buyer), json: { product_id: hints } });
    expect(spent.status).toBe(200);
    const refund = await call(`${stack.urls.httpUrl}/_gm/api/orders/${refunded.order_id}/refund`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.operatorToken}` },
    });
    expect(refund.body).toMatchObject({ status: 'succeeded' });
    expect(await balance(api, buyer, 'direct')).toBe('-80');
    pending = await cardOrder(buyer);
    await cardOrder(stranger);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it("answers the caller's orders and operations newest first: a pending order, the refund and its debt, the chip spend, the refunded order with its receipts", async () => {
    const res = await history(buyer);
    expect(res.status).toBe(200);
    const page = res.body as Page;
    expect(page.next_cursor).toBeNull();
    expect(page.entries.map((e) => [e.kind, e.state])).toEqual([
      ['order', 'pending'],
      ['refund', 'done'],
      ['spend', 'done'],
      ['order', 'refunded'],
    ]);
    const [open, refund, spend, bought] = page.entries as [Entry, Entry, Entry, Entry];
    expect(open).toMatchObject({ order_id: pending.order_id, rail: 'card', amount: '9900', currency: 'RUB', receipt: true });
    expect(refund).toMatchObject({
      order_id: refunded.order_id,
      rail: 'card',
      chips: '-100',
      amount: '-9900',
      currency: 'RUB',
      balance_after: '-80',
      in_debt: true,
    });
    expect(spend).toMatchObject({ title: 'Hints x5', rail: null, chips: '-80', amount: null, balance_after: '20', in_debt: false });
    expect(bought).toMatchObject({
      entry_id: `order:${refunded.order_id}`,
      title: 'Chips 100',
      amount: '9900',
      chips: '100',
      receipt: true,
      refund_receipt: true,
    });
    const times = page.entries.map((e) => Date.parse(e.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('pages by cursor: every page size walks the same entries once', async () => {
    const all = ((await history(buyer, '?limit=100')).body as Page).entries.map((e) => e.entry_id);
    for (const limit of [1, 2, 3]) expect((await walk(buyer, limit)).map((e) => e.entry_id)).toEqual(all);
  });

  it("shows only the caller's rows, a cursor of another's list included", async () => {
    const mine = (await history(stranger)).body as Page;
    expect(mine.entries.map((e) => e.kind)).toEqual(['order']);
    expect(mine.entries[0]?.order_id).not.toBe(pending.order_id);
    const first = (await history(buyer, '?limit=1')).body as Page;
    const theirs = await history(stranger, `?cursor=${encodeURIComponent(first.next_cursor ?? '')}`);
    expect(theirs.status).toBe(200);
    for (const e of (theirs.body as Page).entries) expect([refunded.order_id, pending.order_id]).not.toContain(e.order_id);
  });

  it('words titles in the Accept-Language language', async () => {
    const page = (await history(buyer, '', { 'accept-language': 'ru-RU' })).body as Page;
    expect(page.entries.find((e) => e.kind === 'spend')?.title).toBe('Подсказки x5');
  });

  it('validates its query and needs a session', async () => {
    for (const query of ['?limit=0', '?limit=101', '?limit=abc', '?cursor=nope', '?cursor=1.2.3', '?page=2']) {
      const res = await history(buyer, query);
      expect({ query, status: res.status, code: (res.body as { error?: { code?: string } }).error?.code }).toEqual({
        query,
        status: 400,
        code: 'invalid_request',
      });
    }
    expect((await call(`${api}/user/wallet/history`)).status).toBe(401);
  });
});
