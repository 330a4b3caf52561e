import { listProducts, upsertProduct } from '../src/catalog/index.js';
import type { Database } from '../src/db/index.js';
import { freshMigratedPostgres } from '../src/testing/index.js';

describe('the catalog read: products with their atoms, prices and texts in one statement', () => {
  let database: Database;
  beforeAll(async () => {
    database = await freshMigratedPostgres();
  });
  afterAll(() => database.close());

  it('reads every int8 exactly (beyond 2^53), each product with only its own parts, newest first, inactive ones only when asked', async () => {
    const now = new Date('2026-12-04T00:00:00Z');
    const big = 2n ** 62n + 7n;
    const first = await upsertProduct(
      database.db,
      {
        id: 0n,
        title: 'Big pack',
        active: true,
        atoms: [
          { kind: 'chips', quantity: big },
          { kind: 'hints', quantity: 3n },
        ],
        prices: [
          { method: 'provider', amount: big + 1n, currency: 'RUB' },
          { method: 'xtr', amount: 50n, currency: 'XTR' },
        ],
        texts: [
          { locale: 'en', title: 'Big pack', description: 'A lot' },
          { locale: 'ru', title: 'Большой набор', description: 'Много' },
        ],
        purchaseLimit: { count: 2, period: 'week' },
      },
      now,
    );
    const second = await upsertProduct(
      database.db,
      {
        id: 0n,
        title: 'Old',
        active: false,
        atoms: [{ kind: 'no_ads_days', quantity: 7n }],
        prices: [{ method: 'chips', amount: 9n, currency: 'CHIPS' }],
      },
      now,
    );
    const active = await listProducts(database.db, { includeInactive: false });
    expect(active.map((p) => p.id)).toEqual([first.id]);
    const [p] = active;
    expect(p?.atoms).toEqual([
      { kind: 'chips', quantity: big },
      { kind: 'hints', quantity: 3n },
    ]);
    expect(p?.prices).toEqual([
      { method: 'provider', amount: big + 1n, currency: 'RUB' },
      { method: 'xtr', amount: 50n, currency: 'XTR' },
    ]);
    expect(p?.texts.map((t) => t.locale)).toEqual(['en', 'ru']);
    expect(p?.purchaseLimit).toEqual({ count: 2, period: 'week' });

    const all = await listProducts(database.db, { includeInactive: true });
    expect(all.map((x) => x.id)).toEqual([second.id, first.id]);
    expect(all[0]?.atoms).toEqual([{ kind: 'no_ads_days', quantity: 7n }]);
    expect((await listProducts(database.db, { includeInactive: true, ids: [first.id] })).map((x) => x.id)).toEqual([first.id]);
    expect(await listProducts(database.db, { includeInactive: true, ids: [] })).toEqual([]);
  });
});
