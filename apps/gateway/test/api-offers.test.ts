import { createHmac } from 'node:crypto';
import { grantChips } from '@wordgame/testkit';
import { createOperator, OPERATOR_PASSWORD } from './support/operator-api.js';
import { call } from './support/edge.js';
import { bearer, directCustomer, startPaymentsStack, type Customer, type PaymentsStack } from './support/payments-stack.js';

interface CatalogBody {
  products: Array<{ product_id: string; available_until_unix: number | null }>;
  server_now_unix: number;
}

/**
 * Time-limited offers and purchase limits through the REST edge, the catalog editor REST and the
 * console form: gateway -> backend process -> PostgreSQL, with the provider emulator for card orders.
 * Windows are placed hours around the real clock, so no test depends on how long a step takes.
 */
describe('offers and purchase limits through the gateway', () => {
  let stack: PaymentsStack;
  let editor: string;
  let buyer: Customer;
  const hour = 3_600_000;
  const iso = (offsetMs: number) => new Date(Math.floor((Date.now() + offsetMs) / 1000) * 1000).toISOString();
  const op = () => ({ authorization: `Bearer ${stack.operatorToken}` });

  const product = async (extra: Record<string, unknown>, prices: unknown[] = [{ method: 'provider', amount: '990', currency: 'RUB' }]) => {
    const res = await call(editor, {
      method: 'POST',
      headers: op(),
      json: { title: 'Offer pack', texts: { ru: { title: 'Набор' } }, atoms: [{ kind: 'hints', quantity: '3' }], prices, ...extra },
    });
    expect(res.status).toBe(201);
    return res.body as { product_id: string } & Record<string, unknown>;
  };
  const catalog = async (who: Customer) => (await call(`${stack.api}/user/wallet/catalog`, { headers: bearer(who) })).body as CatalogBody;
  const order = (who: Customer, productId: string) =>
    call(`${stack.api}/user/wallet/orders`, { method: 'POST', headers: bearer(who), json: { product_id: productId, rail: 'card' } });
  const buy = (who: Customer, productId: string) =>
    call(`${stack.api}/user/wallet`, { method: 'POST', headers: bearer(who), json: { product_id: productId } });

  beforeAll(async () => {
    stack = await startPaymentsStack();
    editor = `${stack.urls.httpUrl}/_gm/api/catalog/products`;
    buyer = await directCustomer(stack, 'offers@example.test', true);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  describe('the shop and orders', () => {
    it('hides an offer that ended or has not started, and refuses orders and chips purchases of it with 409 offer_not_available', async () => {
      const ended = await product({ available_from: iso(-3 * hour), available_until: iso(-hour) });
      const later = await product({ available_from: iso(hour) }, [{ method: 'chips', amount: '5', currency: 'CHIPS' }]);
      await grantChips(stack.db, buyer.accountId, 'direct', 50n);
      const shop = await catalog(buyer);
      expect(shop.products.map((p) => p.product_id)).not.toContain(ended.product_id);
      expect(shop.products.map((p) => p.product_id)).not.toContain(later.product_id);
      expect(await order(buyer, ended.product_id)).toMatchObject({ status: 409, body: { error: { code: 'offer_not_available' } } });
      expect(await buy(buyer, later.product_id)).toMatchObject({ status: 409, body: { error: { code: 'offer_not_available' } } });
    });

    it('shows an open offer with its end and the server clock, and sells it', async () => {
      const until = iso(2 * hour);
      const open = await product({ available_from: iso(-hour), available_until: until });
      const shop = await catalog(buyer);
      const listed = shop.products.find((p) => p.product_id === open.product_id);
      expect(listed?.available_until_unix).toBe(Date.parse(until) / 1000);
      expect(Number.isInteger(shop.server_now_unix)).toBe(true);
      expect((await order(buyer, open.product_id)).status).toBe(201);
    });

    it('refuses the order past the purchase limit with 409 purchase_limit_reached; another player still buys', async () => {
      const limited = await product({ purchase_limit: { count: 1, period: 'day' } });
      expect((await order(buyer, limited.product_id)).status).toBe(201);
      expect(await order(buyer, limited.product_id)).toMatchObject({ status: 409, body: { error: { code: 'purchase_limit_reached' } } });
      const other = await directCustomer(stack, 'offers-other@example.test', true);
      expect((await order(other, limited.product_id)).status).toBe(201);
    });

    it('refuses the chips purchase past the purchase limit with 409 purchase_limit_reached', async () => {
      const limited = await product({ purchase_limit: { count: 1, period: 'week' } }, [
        { method: 'chips', amount: '5', currency: 'CHIPS' },
      ]);
      await grantChips(stack.db, buyer.accountId, 'direct', 20n);
      expect((await buy(buyer, limited.product_id)).status).toBe(200);
      expect(await buy(buyer, limited.product_id)).toMatchObject({ status: 409, body: { error: { code: 'purchase_limit_reached' } } });
    });
  });

  describe('the catalog editor REST', () => {
    it('stores and answers the offer fields, a monthly stars pass included; a PUT without them clears them', async () => {
      const from = iso(-hour);
      const until = iso(hour);
      const made = await product(
        {
          subscription_period_seconds: 2592000,
          available_from: from,
          available_until: until,
          purchase_limit: { count: 1, period: 'month' },
        },
        [{ method: 'xtr', amount: '100', currency: 'XTR' }],
      );
      expect(made).toMatchObject({
        subscription_period_seconds: 2592000,
        available_from: from,
        available_until: until,
        purchase_limit: { count: 1, period: 'month' },
      });
      const got = await call(`${editor}/${made.product_id}`, { headers: op() });
      expect(got.body).toMatchObject({ subscription_period_seconds: 2592000, available_until: until });
      const put = await call(`${editor}/${made.product_id}`, {
        method: 'PUT',
        headers: op(),
        json: {
          title: 'Offer pack',
          atoms: [{ kind: 'hints', quantity: '3' }],
          prices: [{ method: 'xtr', amount: '100', currency: 'XTR' }],
        },
      });
      expect(put.body).toMatchObject({
        subscription_period_seconds: null,
        available_from: null,
        available_until: null,
        purchase_limit: null,
      });
    });

    it.each<[string, Record<string, unknown>, unknown[] | undefined, string]>([
      [
        'a window that ends before it starts',
        { available_from: '2026-02-02T00:00:00Z', available_until: '2026-02-01T00:00:00Z' },
        undefined,
        'invalid_offer',
      ],
      ['a window edge that is not a time', { available_until: 'tomorrow' }, undefined, 'invalid_offer'],
      ['a window edge in fractions of a second', { available_until: '2026-02-01T00:00:00.500Z' }, undefined, 'invalid_offer'],
      ['a limit per year', { purchase_limit: { count: 1, period: 'year' } }, undefined, 'invalid_offer'],
      ['a limit of 0', { purchase_limit: { count: 0, period: 'day' } }, undefined, 'invalid_offer'],
      [
        'a weekly subscription',
        { subscription_period_seconds: 604800 },
        [{ method: 'xtr', amount: '1', currency: 'XTR' }],
        'invalid_offer',
      ],
      ['a subscription sold by card', { subscription_period_seconds: 2592000 }, undefined, 'invalid_prices'],
    ])('refuses %s with 400 and the code', async (_name, extra, prices, code) => {
      const res = await call(editor, {
        method: 'POST',
        headers: op(),
        json: {
          title: 'Bad offer',
          texts: { ru: { title: 'Плохо' } },
          atoms: [{ kind: 'hints', quantity: '1' }],
          prices: prices ?? [{ method: 'provider', amount: '990', currency: 'RUB' }],
          ...extra,
        },
      });
      expect(res).toMatchObject({ status: 400, body: { error: { code } } });
    });
  });

  describe('the console catalog editor', () => {
    let cookie = '';
    const url = (path: string) => `${stack.urls.httpUrl}${path}`;
    const form = async (path: string, init: { cookie?: string; form?: Record<string, string> } = {}) => {
      const headers: Record<string, string> = {};
      if (init.cookie) headers['cookie'] = init.cookie;
      if (init.form) headers['content-type'] = 'application/x-www-form-urlencoded';
      const res = await fetch(url(path), {
        method: init.form ? 'POST' : 'GET',
        headers,
        body: init.form ? new URLSearchParams(init.form).toString() : undefined,
        redirect: 'manual',
      });
      return { status: res.status, location: res.headers.get('location'), setCookie: res.headers.getSetCookie(), text: await res.text() };
    };
    const csrf = () =>
      createHmac('sha256', cookie.replace(/^gm_session=/, ''))
        .update('wordgame-console-csrf-v1')
        .digest('base64url');
    const base = {
      product_id: '0',
      title: 'Console offer',
      title_ru: 'Предложение',
      active: '1',
      atom_hints: '2',
      price_xtr: '10',
    };

    beforeAll(async () => {
      expect(createOperator(stack.db.url, 'offers-editor@ops.test', 'catalog_editor').status).toBe(0);
      const login = await form('/_gm/login');
      const nonceCookie = login.setCookie.find((c) => c.startsWith('gm_login='))?.split(';')[0] ?? '';
      const nonce = /name="_csrf" value="([^"]+)"/.exec(login.text)?.[1] ?? '';
      const res = await form('/_gm/login', {
        cookie: nonceCookie,
        form: { _csrf: nonce, login: 'offers-editor@ops.test', password: OPERATOR_PASSWORD },
      });
      cookie = res.setCookie.find((c) => c.startsWith('gm_session='))?.split(';')[0] ?? '';
    }, 90_000);

    it('saves the subscription, window and limit, lists them, and shows them again in the form', async () => {
      const saved = await form('/_gm/catalog/save', {
        cookie,
        form: {
          ...base,
          _csrf: csrf(),
          subscription: '1',
          available_from: '2026-12-05T00:00',
          available_until: '2026-12-07T12:30',
          limit_count: '2',
          limit_period: 'week',
        },
      });
      expect(saved.status).toBe(303);
      const id = /saved=(\d+)/.exec(saved.location ?? '')?.[1] ?? '';
      const row = (
        await stack.db.query<{
          subscription_period: number;
          available_from: Date;
          available_until: Date;
          purchase_limit: number;
          purchase_limit_period: string;
        }>(
          'select subscription_period, available_from, available_until, purchase_limit, purchase_limit_period from catalog_products where id = $1',
          [id],
        )
      ).rows[0];
      expect(row).toEqual({
        subscription_period: 2592000,
        available_from: new Date('2026-12-05T00:00:00Z'),
        available_until: new Date('2026-12-07T12:30:00Z'),
        purchase_limit: 2,
        purchase_limit_period: 'week',
      });
      const list = await form('/_gm/catalog', { cookie });
      expect(list.text).toContain(
        'monthly stars subscription; on offer 2026-12-05T00:00 to 2026-12-07T12:30 UTC; limit 2 per player per week',
      );
      const edit = await form(`/_gm/catalog/${id}`, { cookie });
      expect(edit.text).toContain('name="subscription" value="1" checked');
      expect(edit.text).toContain('name="available_from" value="2026-12-05T00:00"');
      expect(edit.text).toContain('name="available_until" value="2026-12-07T12:30"');
      expect(edit.text).toContain('name="limit_count" value="2"');
      expect(edit.text).toContain('<option value="week" selected>');
    });

    it('re-renders the form with the reason next to the offer fields on a refusal, saving nothing', async () => {
      const count = async () =>
        (await stack.db.query<{ n: number }>(`select count(*)::int as n from catalog_products where title = 'Console offer bad'`)).rows[0]
          ?.n;
      const refused: Array<Record<string, string>> = [
        { available_from: '2026-12-07T00:00', available_until: '2026-12-05T00:00' },
        { available_from: 'next friday' },
        { limit_count: 'two' },
        { subscription: '1', price_provider: '990' },
      ];
      for (const fields of refused) {
        const res = await form('/_gm/catalog/save', { cookie, form: { ...base, title: 'Console offer bad', _csrf: csrf(), ...fields } });
        expect([fields, res.status]).toEqual([fields, 400]);
        expect(res.text).toMatch(/id="(offer|prices)-error"/);
      }
      expect(await count()).toBe(0);
    });
  });
});
