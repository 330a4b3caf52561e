import { Code, ConnectError, type Client } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { sql } from 'kysely';
import { DEV_CATALOG } from '../src/catalog/seed.js';
import { failure, startHarness, type Harness } from './support/harness.js';
import { draftBody, readRecord, type DraftSpec } from './support/wallet.js';

describe('catalog editor (CatalogAdminService)', () => {
  let h: Harness;
  let admin: Client<typeof backendApi.CatalogAdminService>;

  beforeAll(async () => {
    h = await startHarness();
    admin = h.client(backendApi.CatalogAdminService);
  });
  afterAll(() => h.stop());

  const upsert = async (d: DraftSpec) =>
    decodeTable((await admin.upsertProduct({ body: draftBody(d) })).body, (bb) => fb.ProductRecord.getRootAsProductRecord(bb), readRecord);
  const list = async (includeInactive: boolean) =>
    decodeTable(
      (await admin.listProducts({ body: encodeTable((b) => fb.ProductListQuery.createProductListQuery(b, includeInactive)) })).body,
      (bb) => fb.ProductList.getRootAsProductList(bb),
      (t) => Array.from({ length: t.productsLength() }, (_, i) => t.products(i)).map((p) => (p ? readRecord(p) : null)),
    );
  const productCount = async () => (await sql<{ n: bigint }>`select count(*) as n from catalog_products`.execute(h.database.db)).rows[0]?.n;

  it('creates a product from atoms and prices, then replaces it; lists newest first, inactive on request', async () => {
    const created = await upsert({
      title: ' Starter bundle ',
      atoms: [
        ['chips', 50n],
        ['hints', 5n],
      ],
      prices: [
        ['provider', 4_900n, 'rub'],
        ['xtr', 25n],
      ],
    });
    expect(created).toMatchObject({
      title: 'Starter bundle',
      active: true,
      atoms: [
        ['chips', 50n],
        ['hints', 5n],
      ],
      prices: [
        ['provider', 4_900n, 'RUB'],
        ['xtr', 25n, 'XTR'],
      ],
    });
    const updated = await upsert({
      id: created.id,
      title: 'Starter bundle v2',
      active: false,
      atoms: [['hints', 6n]],
      prices: [['chips', 30n, 'CHIPS']],
    });
    expect(updated).toEqual({
      id: created.id,
      title: 'Starter bundle v2',
      active: false,
      atoms: [['hints', 6n]],
      prices: [['chips', 30n, 'CHIPS']],
    });
    const later = await upsert({ title: 'Later', atoms: [['no_ads_forever', 1n]], prices: [['chips', 900n]] });
    expect((await list(true)).map((p) => p?.id)).toEqual([later.id, created.id]);
    expect((await list(false)).map((p) => p?.id)).toEqual([later.id]);
  });

  it.each([
    '&',
    '<',
    '>',
    '"',
    "'",
    '\u202e',
    '\u202a',
    '\u2066',
    '\u2069',
    '\u200e',
    '\u200f',
    '\u061c',
    '\u2028',
    '\u2029',
    '\u0085',
    '\u001b',
  ])('refuses a title containing %j with invalid_title', async (ch) => {
    const before = await productCount();
    expect(
      await failure(
        admin.upsertProduct({ body: draftBody({ title: `Tom ${ch} Jerry`, atoms: [['hints', 1n]], prices: [['chips', 1n]] }) }),
      ),
    ).toEqual({
      code: Code.InvalidArgument,
      errorCode: 'invalid_title',
    });
    expect(await productCount()).toBe(before);
  });

  it.each<[string, DraftSpec, string]>([
    ['an empty title', { title: '  ', atoms: [['hints', 1n]], prices: [['chips', 1n]] }, 'invalid_title'],
    ['a 65-character title', { title: 'x'.repeat(65), atoms: [['hints', 1n]], prices: [['chips', 1n]] }, 'invalid_title'],
    ['no atoms', { title: 'T', atoms: [], prices: [['chips', 1n]] }, 'invalid_atoms'],
    ['an unknown atom', { title: 'T', atoms: [['gold', 1n]], prices: [['chips', 1n]] }, 'invalid_atoms'],
    [
      'a repeated atom kind',
      {
        title: 'T',
        atoms: [
          ['hints', 1n],
          ['hints', 2n],
        ],
        prices: [['chips', 1n]],
      },
      'invalid_atoms',
    ],
    ['a zero quantity', { title: 'T', atoms: [['hints', 0n]], prices: [['chips', 1n]] }, 'invalid_atoms'],
    ['a huge quantity', { title: 'T', atoms: [['chips', 2n ** 62n]], prices: [['xtr', 1n]] }, 'invalid_atoms'],
    ['forever twice', { title: 'T', atoms: [['no_ads_forever', 2n]], prices: [['chips', 1n]] }, 'invalid_atoms'],
    ['no prices', { title: 'T', atoms: [['hints', 1n]], prices: [] }, 'invalid_prices'],
    ['an unknown method', { title: 'T', atoms: [['hints', 1n]], prices: [['paypal', 1n]] }, 'invalid_prices'],
    ['a negative amount', { title: 'T', atoms: [['hints', 1n]], prices: [['chips', -1n]] }, 'invalid_prices'],
    ['a huge amount', { title: 'T', atoms: [['hints', 1n]], prices: [['chips', 2n ** 63n - 1n]] }, 'invalid_prices'],
    ['a provider price without currency', { title: 'T', atoms: [['hints', 1n]], prices: [['provider', 100n]] }, 'invalid_prices'],
    ['stars in another currency', { title: 'T', atoms: [['hints', 1n]], prices: [['xtr', 100n, 'USD']] }, 'invalid_prices'],
    [
      'a card price in GBP (no card shop: RUB only)',
      { title: 'T', atoms: [['hints', 1n]], prices: [['provider', 100n, 'GBP']] },
      'invalid_currency',
    ],
    [
      'a card price in USD (no card shop: RUB only)',
      { title: 'T', atoms: [['hints', 1n]], prices: [['provider', 100n, 'USD']] },
      'invalid_currency',
    ],
    ['a chip pack priced in chips', { title: 'T', atoms: [['chips', 10n]], prices: [['chips', 5n]] }, 'invalid_prices'],
    ['an unknown id', { id: 987_654n, title: 'T', atoms: [['hints', 1n]], prices: [['chips', 1n]] }, 'unknown_product'],
    ['a negative id', { id: -1n, title: 'T', atoms: [['hints', 1n]], prices: [['chips', 1n]] }, 'invalid_product_id'],
  ])('refuses %s, writing nothing', async (_label, draft, errorCode) => {
    const before = await productCount();
    expect((await failure(admin.upsertProduct({ body: draftBody(draft) }))).errorCode).toBe(errorCode);
    expect(await productCount()).toBe(before);
  });

  it('names the currencies the card shops settle when it refuses a card price, keeping the product unchanged', async () => {
    const kept = await upsert({ title: 'Card pack', atoms: [['chips', 10n]], prices: [['provider', 990n, 'RUB']] });
    const err = await admin
      .upsertProduct({ body: draftBody({ id: kept.id, title: 'Card pack', atoms: [['chips', 10n]], prices: [['provider', 800n, 'gbp']] }) })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).code).toBe(Code.InvalidArgument);
    expect((err as ConnectError).metadata.get('x-error-code')).toBe('invalid_currency');
    expect((err as ConnectError).rawMessage).toBe('a card price cannot be in GBP: the card shops settle only RUB');
    expect((await list(true)).find((p) => p?.id === kept.id)?.prices).toEqual([['provider', 990n, 'RUB']]);
  });

  it('the database refuses a forbidden title even past the editor', async () => {
    await expect(h.database.db.insertInto('catalog_products').values({ title: 'a<b' }).execute()).rejects.toThrow(/check/i);
  });

  it('seeds the dev catalog when BACKEND_SEED_CATALOG says so (npm start does) and only into an empty catalog', async () => {
    const dev = await startHarness({ BACKEND_SEED_CATALOG: 'true' });
    try {
      const client = dev.client(backendApi.CatalogAdminService);
      const res = await client.listProducts({ body: encodeTable((b) => fb.ProductListQuery.createProductListQuery(b, true)) });
      const titles = decodeTable(
        res.body,
        (bb) => fb.ProductList.getRootAsProductList(bb),
        (t) => Array.from({ length: t.productsLength() }, (_, i) => t.products(i)?.title()),
      );
      expect([...titles].sort()).toEqual(DEV_CATALOG.map((p) => p.title).sort());
    } finally {
      await dev.stop();
    }
    expect(await productCount()).toBeGreaterThan(0n);
  });
});

describe('catalog editor with card shops that settle KZT', () => {
  it('accepts a card price only in the currency every shop settles', async () => {
    const shops = 'direct:kzt-direct:key-one:test:KZT,vk:kzt-vk:key-two:live:KZT';
    const h = await startHarness({ BACKEND_YOOKASSA_SHOPS: shops });
    try {
      const admin = h.client(backendApi.CatalogAdminService);
      const draft = (currency: string): DraftSpec => ({
        title: 'Tenge pack',
        atoms: [['chips', 10n]],
        prices: [['provider', 50_000n, currency]],
      });
      expect(await failure(admin.upsertProduct({ body: draftBody(draft('RUB')) }))).toEqual({
        code: Code.InvalidArgument,
        errorCode: 'invalid_currency',
      });
      const saved = decodeTable(
        (await admin.upsertProduct({ body: draftBody(draft('KZT')) })).body,
        (bb) => fb.ProductRecord.getRootAsProductRecord(bb),
        readRecord,
      );
      expect(saved.prices).toEqual([['provider', 50_000n, 'KZT']]);
    } finally {
      await h.stop();
    }
    const split = await startHarness({ BACKEND_YOOKASSA_SHOPS: 'direct:a:key-one:test:RUB,vk:b:key-two:live:KZT' });
    try {
      const err = await split
        .client(backendApi.CatalogAdminService)
        .upsertProduct({ body: draftBody({ title: 'T', atoms: [['hints', 1n]], prices: [['provider', 100n, 'RUB']] }) })
        .catch((e: unknown) => e);
      expect((err as ConnectError).metadata.get('x-error-code')).toBe('invalid_currency');
      expect((err as ConnectError).rawMessage).toMatch(/settle different currencies/);
    } finally {
      await split.stop();
    }
  });
});
