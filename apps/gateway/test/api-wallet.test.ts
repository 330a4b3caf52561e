import { runLedgerAudit } from './support/backend-process.js';
import { grantChips, startChain, untrustedSession, VK_APP_SECRET, type Chain } from './support/chain.js';
import { call } from './support/edge.js';
import { nowSeconds, vkLaunchParams } from './support/launch-data.js';

interface Wallet {
  segments: { segment: string; balance: string; in_debt: boolean }[];
  benefits: { origin: string; hints: string; no_ads_until: string | null; no_ads_forever: boolean; in_debt: boolean }[];
  spend_order: string[];
  can_spend: boolean;
  frozen: boolean;
  trusted: boolean;
}
interface Purchase {
  product_id: string;
  price: string;
  draws: { segment: string; amount: string }[];
  benefit_origin: string;
  wallet: Wallet;
  replayed: boolean;
}

const balanceOf = (w: Wallet, segment: string) => w.segments.find((s) => s.segment === segment)?.balance ?? '0';

describe('wallet and catalog editor through gateway -> backend -> PostgreSQL', () => {
  let chain: Chain;
  let api: string;
  let editor: string;
  let op: Record<string, string> = {};
  const products: Record<string, string> = {};
  let buyer: { token: string; accountId: string };

  const session = async (email: string, subtype = 'web') => {
    const res = await call(`${api}/session/direct`, {
      method: 'POST',
      json: { email, password: 'wallet password 1', mode: 'signup', subtype },
    });
    const body = res.body as { token: string; account_id: string };
    return { token: body.token, accountId: body.account_id };
  };
  const as = (token: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, ...extra });
  const wallet = async (token: string) => (await call(`${api}/user/wallet`, { headers: as(token) })).body as Wallet;
  const buy = (token: string, productId: string, key?: string) =>
    call(`${api}/user/wallet`, {
      method: 'POST',
      headers: as(token, key === undefined ? {} : { 'idempotency-key': key }),
      json: { product_id: productId },
    });
  const ledgerRows = async () => (await chain.db.query<{ n: number }>('select count(*)::int as n from ledger_operations')).rows[0]?.n;

  beforeAll(async () => {
    chain = await startChain();
    api = `${chain.edge.url}/api/v1`;
    editor = `${chain.edge.url}/_gm/api/catalog/products`;
    op = { authorization: `Bearer ${chain.operatorToken}` };
    buyer = await session('buyer@example.test');
  }, 90_000);
  afterAll(async () => {
    await chain?.stop();
  });

  describe('catalog editor (operator only)', () => {
    it('creates value products from atoms and prices', async () => {
      const drafts = {
        hints: {
          title: 'Hints x5',
          texts: { ru: { title: 'Подсказки x5' } },
          atoms: [{ kind: 'hints', quantity: '5' }],
          prices: [{ method: 'chips', amount: '30', currency: 'CHIPS' }],
        },
        noAds: {
          title: 'No ads for a week',
          texts: { ru: { title: 'Без рекламы неделю' } },
          atoms: [{ kind: 'no_ads_days', quantity: '7' }],
          prices: [
            { method: 'chips', amount: '50', currency: 'CHIPS' },
            { method: 'provider', amount: '9900', currency: 'RUB' },
          ],
        },
      };
      for (const [name, draft] of Object.entries(drafts)) {
        const res = await call(editor, { method: 'POST', headers: op, json: draft });
        expect(res).toMatchObject({ status: 201, body: { title: draft.title, active: true, atoms: draft.atoms } });
        products[name] = (res.body as { product_id: string }).product_id;
      }
      const list = await call(editor, { headers: op });
      expect((list.body as { products: { product_id: string }[] }).products.map((p) => p.product_id)).toEqual(
        expect.arrayContaining([products['hints'], products['noAds']]),
      );
    });

    it('updates a product and reads it back by id; unknown ids are 404', async () => {
      const id = products['noAds'] ?? '';
      const put = await call(`${editor}/${id}`, {
        method: 'PUT',
        headers: op,
        json: {
          title: 'No ads, one week',
          atoms: [{ kind: 'no_ads_days', quantity: '7' }],
          prices: [{ method: 'chips', amount: '50', currency: 'CHIPS' }],
        },
      });
      expect(put).toMatchObject({
        status: 200,
        body: { product_id: id, title: 'No ads, one week', prices: [{ method: 'chips', amount: '50' }] },
      });
      expect(await call(`${editor}/${id}`, { headers: op })).toMatchObject({ status: 200, body: { title: 'No ads, one week' } });
      expect(await call(`${editor}/987654321`, { headers: op })).toMatchObject({
        status: 404,
        body: { error: { code: 'unknown_product' } },
      });
      const ghost = await call(`${editor}/987654321`, {
        method: 'PUT',
        headers: op,
        json: { title: 'Ghost', atoms: [{ kind: 'hints', quantity: '1' }], prices: [{ method: 'chips', amount: '1', currency: 'CHIPS' }] },
      });
      expect(ghost).toMatchObject({ status: 404, body: { error: { code: 'unknown_product' } } });
    });

    it.each([
      ['a title with &', { title: 'Tom & Jerry' }, 'invalid_title'],
      ['a title with <', { title: '<b>pack' }, 'invalid_title'],
      ['a title with a quote', { title: 'the "best"' }, 'invalid_title'],
      ['a title with an apostrophe', { title: "Bob's pack" }, 'invalid_title'],
      ['an empty title', { title: '' }, 'invalid_title'],
      ['no atoms', { atoms: [] }, 'invalid_atoms'],
      ['an unknown atom kind', { atoms: [{ kind: 'gold', quantity: '1' }] }, 'invalid_atoms'],
      ['a numeric quantity', { atoms: [{ kind: 'hints', quantity: 5 }] }, 'invalid_atoms'],
      ['a fractional amount', { prices: [{ method: 'chips', amount: '1.5', currency: 'CHIPS' }] }, 'invalid_prices'],
      ['a huge amount', { prices: [{ method: 'chips', amount: '99999999999999999999', currency: 'CHIPS' }] }, 'invalid_prices'],
      ['an out-of-range amount', { prices: [{ method: 'chips', amount: '9000000000000000000', currency: 'CHIPS' }] }, 'invalid_prices'],
      [
        'duplicate methods',
        {
          prices: [
            { method: 'chips', amount: '1', currency: 'CHIPS' },
            { method: 'chips', amount: '2', currency: 'CHIPS' },
          ],
        },
        'invalid_prices',
      ],
    ])('refuses %s with 400 and writes nothing', async (_name, change, code) => {
      const before = (await call(`${editor}?include_inactive=true`, { headers: op })).body;
      const draft = {
        title: 'Valid',
        texts: { ru: { title: 'Годный' } },
        atoms: [{ kind: 'hints', quantity: '1' }],
        prices: [{ method: 'chips', amount: '10', currency: 'CHIPS' }],
        ...change,
      };
      expect(await call(editor, { method: 'POST', headers: op, json: draft })).toMatchObject({ status: 400, body: { error: { code } } });
      expect((await call(`${editor}?include_inactive=true`, { headers: op })).body).toEqual(before);
    });
  });

  it('refuses a new product with only an English title, naming the missing language, as the console form does', async () => {
    const before = (await call(`${editor}?include_inactive=true`, { headers: op })).body;
    const draft = { atoms: [{ kind: 'hints', quantity: '1' }], prices: [{ method: 'chips', amount: '10', currency: 'CHIPS' }] };
    for (const words of [{ title: 'English only' }, { texts: { en: { title: 'English only' } } }, { title: 'Pack', texts: {} }]) {
      const res = await call(editor, { method: 'POST', headers: op, json: { ...draft, ...words } });
      expect(res).toMatchObject({ status: 400, body: { error: { code: 'invalid_title' } } });
      expect((res.body as { error: { message: string } }).error.message).toMatch(
        /^texts\.ru\.title: missing; a product needs a title in every language/,
      );
    }
    expect((await call(`${editor}?include_inactive=true`, { headers: op })).body).toEqual(before);
    // An update without texts changes the English title and keeps the stored Russian words.
    const id = products['hints'] ?? '';
    const put = await call(`${editor}/${id}`, {
      method: 'PUT',
      headers: op,
      json: {
        title: 'Hints x5',
        atoms: [{ kind: 'hints', quantity: '5' }],
        prices: [{ method: 'chips', amount: '30', currency: 'CHIPS' }],
      },
    });
    expect(put).toMatchObject({ status: 200, body: { texts: { ru: { title: 'Подсказки x5' } } } });
  });

  describe('wallet.get, wallet.catalog, wallet.buy', () => {
    it('shows granted chips and the catalog with chips prices', async () => {
      await grantChips(chain.db, buyer.accountId, 'direct', 100n);
      await grantChips(chain.db, buyer.accountId, 'telegram', 20n);
      const w = await wallet(buyer.token);
      expect(w).toMatchObject({ can_spend: true, frozen: false, trusted: true, spend_order: ['direct', 'telegram', 'vk'] });
      expect([balanceOf(w, 'direct'), balanceOf(w, 'telegram')]).toEqual(['100', '20']);
      const catalog = await call(`${api}/user/wallet/catalog`, { headers: as(buyer.token) });
      expect(catalog.status).toBe(200);
      const items = (catalog.body as { products: { product_id: string; prices: { method: string; amount: string }[] }[] }).products;
      expect(items.find((p) => p.product_id === products['hints'])?.prices).toEqual(
        expect.arrayContaining([{ method: 'chips', amount: '30', currency: 'CHIPS' }]),
      );
    });

    it('projects the catalog per context: only usable prices; a direct buyer without a confirmed e-mail is told to add one', async () => {
      const pack = await call(editor, {
        method: 'POST',
        headers: op,
        json: {
          title: 'Chips 500',
          texts: { ru: { title: '500 фишек' } },
          atoms: [{ kind: 'chips', quantity: '500' }],
          prices: [
            { method: 'provider', amount: '19900', currency: 'RUB' },
            { method: 'xtr', amount: '150', currency: 'XTR' },
          ],
        },
      });
      expect(pack.status).toBe(201);
      const packId = (pack.body as { product_id: string }).product_id;
      type Catalog = {
        products: { product_id: string; prices: { method: string }[] }[];
        purchase_methods: string[];
        email_required: boolean;
        notice: string | null;
      };
      const catalogOf = async (token: string) => (await call(`${api}/user/wallet/catalog`, { headers: as(token) })).body as Catalog;
      const methodsOf = (c: Catalog, id: string) => c.products.find((p) => p.product_id === id)?.prices.map((p) => p.method) ?? [];

      const direct = await catalogOf(buyer.token);
      expect(methodsOf(direct, packId)).toEqual(['provider']);
      expect(direct).toMatchObject({ email_required: true, notice: expect.stringMatching(/e-?mail/i) as string });

      const vk = await call(`${api}/session/vk`, {
        method: 'POST',
        json: { launch_params: vkLaunchParams(VK_APP_SECRET, '4040', 'mobile_android', nowSeconds()) },
      });
      const inVk = await catalogOf((vk.body as { token: string }).token);
      for (const c of [direct, inVk]) {
        for (const p of c.products) for (const price of p.prices) expect(c.purchase_methods).toContain(price.method);
      }
      expect(methodsOf(inVk, packId)).not.toContain('xtr');
    });

    it('buys with chips: draws the direct segment, grants the benefit, one result per Idempotency-Key', async () => {
      const first = await buy(buyer.token, products['hints'] ?? '', 'order-1');
      expect(first.status).toBe(200);
      const p = first.body as Purchase;
      expect(p).toMatchObject({ price: '30', draws: [{ segment: 'direct', amount: '30' }], benefit_origin: 'direct', replayed: false });
      expect(balanceOf(p.wallet, 'direct')).toBe('70');
      expect(p.wallet.benefits.find((b) => b.origin === 'direct')?.hints).toBe('5');

      const again = await buy(buyer.token, products['hints'] ?? '', 'order-1');
      expect(again).toMatchObject({ status: 200, body: { price: '30', draws: [{ segment: 'direct', amount: '30' }], replayed: true } });
      expect(balanceOf(await wallet(buyer.token), 'direct')).toBe('70');

      const other = await buy(buyer.token, products['noAds'] ?? '', 'order-1');
      expect(other).toMatchObject({ status: 409, body: { error: { code: 'idempotency_key_reused' } } });
    });

    it('the same Idempotency-Key sent 20 times at once charges once', async () => {
      const results = await Promise.all(Array.from({ length: 20 }, () => buy(buyer.token, products['hints'] ?? '', 'order-burst')));
      expect(results.map((r) => r.status)).toEqual(Array<number>(20).fill(200));
      expect(results.filter((r) => !(r.body as Purchase).replayed)).toHaveLength(1);
      expect(balanceOf(await wallet(buyer.token), 'direct')).toBe('40');
    });

    it('draws direct, then telegram, when direct alone cannot pay', async () => {
      const res = await buy(buyer.token, products['noAds'] ?? '', 'order-2');
      expect(res).toMatchObject({
        status: 200,
        body: {
          price: '50',
          draws: [
            { segment: 'direct', amount: '40' },
            { segment: 'telegram', amount: '10' },
          ],
        },
      });
      const w = await wallet(buyer.token);
      expect([balanceOf(w, 'direct'), balanceOf(w, 'telegram')]).toEqual(['0', '10']);
    });

    it('not enough chips is 409 insufficient_chips and nothing is written', async () => {
      const rows = await ledgerRows();
      expect(await buy(buyer.token, products['hints'] ?? '', 'order-3')).toMatchObject({
        status: 409,
        body: { error: { code: 'insufficient_chips' } },
      });
      expect(await ledgerRows()).toBe(rows);
      expect(balanceOf(await wallet(buyer.token), 'telegram')).toBe('10');
    });

    it('a segment in debt shows a negative balance with in_debt, pays for nothing, and the other segments still pay', async () => {
      const debtor = await session('debtor@example.test');
      await grantChips(chain.db, debtor.accountId, 'direct', 100n);
      await grantChips(chain.db, debtor.accountId, 'telegram', 40n);
      // What a full refund of a 150-chip, 2-hint direct pack leaves after 250 chips and 2 hints were spent.
      await chain.db.query(`update wallet_segments set balance = balance - 150 where account_id = $1 and segment = 'direct'`, [
        debtor.accountId,
      ]);
      await chain.db.query(`insert into benefits (account_id, origin, hints) values ($1, 'direct', -2)`, [debtor.accountId]);
      await chain.db.query(
        `insert into ledger_operations (account_id, kind, segment, chips_delta, benefit_origin, hints_delta, note) values ($1, 'refund', 'direct', -150, 'direct', -2, 'test debt')`,
        [debtor.accountId],
      );
      const w = await wallet(debtor.token);
      expect(w.segments).toEqual([
        { segment: 'direct', balance: '-50', in_debt: true },
        { segment: 'telegram', balance: '40', in_debt: false },
        { segment: 'vk', balance: '0', in_debt: false },
      ]);
      expect(w.benefits).toEqual([{ origin: 'direct', hints: '-2', no_ads_until: null, no_ads_forever: false, in_debt: true }]);

      const res = await buy(debtor.token, products['hints'] ?? '');
      expect(res).toMatchObject({
        status: 200,
        body: { price: '30', draws: [{ segment: 'telegram', amount: '30' }], benefit_origin: 'telegram' },
      });
      expect((res.body as Purchase).wallet.segments.slice(0, 2)).toEqual([
        { segment: 'direct', balance: '-50', in_debt: true },
        { segment: 'telegram', balance: '10', in_debt: false },
      ]);
      expect(await buy(debtor.token, products['hints'] ?? '')).toMatchObject({
        status: 409,
        body: { error: { code: 'insufficient_chips' } },
      });
    });

    it('an unknown product is 404 unknown_product', async () => {
      expect(await buy(buyer.token, '99999999')).toMatchObject({ status: 404, body: { error: { code: 'unknown_product' } } });
    });

    it('vk on iOS is frozen: balances shown, buying refused with 403 purchase_forbidden', async () => {
      const vk = await call(`${api}/session/vk`, {
        method: 'POST',
        json: { launch_params: vkLaunchParams(VK_APP_SECRET, '31337', 'mobile_iphone', nowSeconds()) },
      });
      const { token, account_id } = vk.body as { token: string; account_id: string };
      await grantChips(chain.db, account_id, 'vk', 100n);
      const w = await wallet(token);
      expect(w).toMatchObject({ frozen: true, can_spend: false });
      expect(balanceOf(w, 'vk')).toBe('100');
      const rows = await ledgerRows();
      expect(await buy(token, products['hints'] ?? '')).toMatchObject({ status: 403, body: { error: { code: 'purchase_forbidden' } } });
      expect(await ledgerRows()).toBe(rows);
    });

    it('vk with an unknown signed vk_platform is frozen too (fail closed): no subtype, balances shown, buy and order 403', async () => {
      const vk = await call(`${api}/session/vk`, {
        method: 'POST',
        json: { launch_params: vkLaunchParams(VK_APP_SECRET, '31338', 'tv_external', nowSeconds()) },
      });
      expect(vk).toMatchObject({ status: 200, body: { platform: { kind: 'vk', subtype: null } } });
      const { token, account_id } = vk.body as { token: string; account_id: string };
      await grantChips(chain.db, account_id, 'vk', 100n);
      const w = await wallet(token);
      expect(w).toMatchObject({ frozen: true, can_spend: false, trusted: true, spend_order: [] });
      expect(balanceOf(w, 'vk')).toBe('100');
      const rows = await ledgerRows();
      expect(await buy(token, products['hints'] ?? '')).toMatchObject({ status: 403, body: { error: { code: 'purchase_forbidden' } } });
      const order = await call(`${api}/user/wallet/orders`, {
        method: 'POST',
        headers: as(token),
        json: { product_id: products['noAds'] ?? '', rail: 'card' },
      });
      expect(order).toMatchObject({ status: 403, body: { error: { code: 'purchase_forbidden' } } });
      expect(await ledgerRows()).toBe(rows);
      expect((await chain.db.query('select id from orders where account_id = $1', [account_id])).rows).toEqual([]);
      expect(balanceOf(await wallet(token), 'vk')).toBe('100');
    });

    it('an untrusted session (no recorded platform) views the wallet but buying is 403 untrusted_session', async () => {
      const rich = await session('rich@example.test');
      await grantChips(chain.db, rich.accountId, 'direct', 1_000n);
      const token = await untrustedSession(chain.db, rich.accountId);
      const w = await wallet(token);
      expect(w.trusted).toBe(false);
      const rows = await ledgerRows();
      expect(await buy(token, products['hints'] ?? '', 'untrusted-1')).toMatchObject({
        status: 403,
        body: { error: { code: 'untrusted_session' } },
      });
      expect(await ledgerRows()).toBe(rows);
      expect(balanceOf(await wallet(rich.token), 'direct')).toBe('1000');
    });
  });

  describe('bad input never reaches the ledger and is never a 5xx', () => {
    let rich: { token: string; accountId: string };
    beforeAll(async () => {
      rich = await session('matrix@example.test');
      await grantChips(chain.db, rich.accountId, 'direct', 1_000n);
    });

    const raw = (body: string, contentType = 'application/json', headers: Record<string, string> = {}) =>
      call(`${api}/user/wallet`, { method: 'POST', headers: { ...as(rich.token), 'content-type': contentType, ...headers }, raw: body });

    it.each([
      ['a number id', '{"product_id":1}', 'invalid_product_id'],
      ['a fractional id', '{"product_id":"1.5"}', 'invalid_product_id'],
      ['a negative id', '{"product_id":"-1"}', 'invalid_product_id'],
      ['zero', '{"product_id":"0"}', 'invalid_product_id'],
      ['an exponent', '{"product_id":"1e3"}', 'invalid_product_id'],
      ['a huge id', '{"product_id":"99999999999999999999"}', 'invalid_product_id'],
      ['beyond int64', '{"product_id":"9223372036854775808"}', 'invalid_product_id'],
      ['a null id', '{"product_id":null}', 'invalid_product_id'],
      ['an array id', '{"product_id":["1"]}', 'invalid_product_id'],
      ['an object id', '{"product_id":{"$gt":"0"}}', 'invalid_product_id'],
      ['no id', '{}', 'invalid_product_id'],
      ['an extra field', `{"product_id":"1","price":"0"}`, 'invalid_product_id'],
      ['a JSON array body', '[1,2]', 'invalid_product_id'],
      ['a JSON string body', '"hello"', 'malformed_json'],
      ['malformed JSON', '{"product_id":', 'malformed_json'],
    ])('%s is refused with 400', async (_name, body, code) => {
      const rows = await ledgerRows();
      const res = await raw(body);
      expect(res).toMatchObject({ status: 400, body: { error: { code } } });
      expect(await ledgerRows()).toBe(rows);
    });

    it('a too-large body is 413, a non-JSON content type 415, a bad Idempotency-Key 400', async () => {
      const rows = await ledgerRows();
      const huge = JSON.stringify({ product_id: products['hints'], pad: 'x'.repeat(200_000) });
      expect(await raw(huge)).toMatchObject({ status: 413, body: { error: { code: 'body_too_large' } } });
      expect(await raw(`product_id=${products['hints'] ?? ''}`, 'application/x-www-form-urlencoded')).toMatchObject({
        status: 415,
        body: { error: { code: 'unsupported_media_type' } },
      });
      expect(
        await raw(JSON.stringify({ product_id: products['hints'] }), 'application/json', { 'idempotency-key': 'has space' }),
      ).toMatchObject({
        status: 400,
        body: { error: { code: 'invalid_idempotency_key' } },
      });
      expect(
        await raw(JSON.stringify({ product_id: products['hints'] }), 'application/json', { 'idempotency-key': 'k'.repeat(129) }),
      ).toMatchObject({
        status: 400,
        body: { error: { code: 'invalid_idempotency_key' } },
      });
      expect(await ledgerRows()).toBe(rows);
    });

    it('session endpoints refuse wrong shapes with 4xx', async () => {
      const cases: [string, unknown, number, string][] = [
        ['/session/telegram', {}, 400, 'invalid_request'],
        ['/session/telegram', { init_data: 42 }, 400, 'invalid_request'],
        ['/session/telegram', { init_data: 'x'.repeat(9000) }, 400, 'invalid_request'],
        ['/session/telegram', { init_data: 'hash=zz&user=%7B' }, 401, 'launch_data_invalid'],
        ['/session/vk', { launch_params: ['a'] }, 400, 'invalid_request'],
        ['/session/vk', { launch_params: 'vk_user_id=1' }, 401, 'launch_data_invalid'],
        ['/session/direct', { email: 'not-an-email', password: 'longenough', mode: 'signup' }, 400, 'invalid_email'],
        ['/session/direct', { email: 'a@example.test', password: 'longenough', mode: 'register' }, 400, 'invalid_mode'],
        [
          '/session/direct',
          { email: 'a@example.test', password: 'longenough', mode: 'signup', platform: 'telegram' },
          400,
          'invalid_request',
        ],
        ['/session/direct', { email: 'a@example.test', password: 12345678, mode: 'signup' }, 400, 'invalid_password'],
      ];
      for (const [path, json, status, code] of cases) {
        const res = await call(`${api}${path}`, { method: 'POST', json });
        expect([path, res.status, (res.body as { error: { code: string } }).error.code]).toEqual([path, status, code]);
      }
    });

    it('profile update refuses wrong shapes with 400', async () => {
      for (const [json, code] of [
        [{}, 'invalid_request'],
        [{ display_name: '' }, 'invalid_display_name'],
        [{ display_name: 'x'.repeat(65) }, 'invalid_display_name'],
        [{ display_name: 'tab\there' }, 'invalid_display_name'],
        [{ email: 'nope' }, 'invalid_email'],
        [{ account_id: '1' }, 'invalid_request'],
      ] as const) {
        const res = await call(`${api}/user/profile`, { method: 'PATCH', headers: as(rich.token), json });
        expect([json, res.status, (res.body as { error: { code: string } }).error.code]).toEqual([json, 400, code]);
      }
    });
  });

  it('the ledger audit is clean after all of it, and notices a balance changed behind its back', async () => {
    const spends = await chain.db.query<{ n: number }>(`select count(*)::int as n from ledger_operations where kind = 'spend'`);
    expect(spends.rows[0]?.n).toBeGreaterThanOrEqual(3);
    const audit = runLedgerAudit(chain.db.url);
    expect(audit).toMatchObject({ status: 0 });
    await chain.db.query(`update wallet_segments set balance = balance + 1 where account_id = $1 and segment = 'direct'`, [
      buyer.accountId,
    ]);
    expect(runLedgerAudit(chain.db.url).status).toBe(1);
  });
});
