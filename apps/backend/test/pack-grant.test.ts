import type { Database } from '../src/db/database.js';
import { listProducts, upsertProduct } from '../src/catalog/catalog.store.js';
import { packGrant } from '../src/catalog/product.js';
import { parsePlatformHeader } from '../src/gate/context.js';
import { grantChips } from '../src/ledger/postings/append.js';
import { freshMigratedPostgres } from '../src/testing/databases.js';
import { buy } from '../src/wallet/buy.js';
import { newAccount } from './support/wallet.js';

/**
 * What a pack grants is one rule (catalog/product.ts packGrant: each kind's quantities summed);
 * wallet.buy's one statement reads the atoms in SQL and must grant exactly that. The catalog editor
 * refuses repeated kinds, so the product here gets its second atoms written directly: the case
 * where summing, taking the largest or taking the first would disagree.
 */
describe('what a pack grants: packGrant and the wallet.buy statement agree', () => {
  let pg: Database;
  beforeAll(async () => {
    pg = await freshMigratedPostgres();
  });
  afterAll(() => pg.close());

  it('grants the summed hints and no-ads days of repeated atoms, as packGrant computes', async () => {
    const now = new Date('2030-03-01T12:00:00.000Z');
    const product = await upsertProduct(
      pg.db,
      {
        id: 0n,
        title: 'Repeated kinds',
        active: true,
        atoms: [
          { kind: 'hints', quantity: 3n },
          { kind: 'no_ads_days', quantity: 2n },
        ],
        prices: [{ method: 'chips', amount: 5n, currency: 'CHIPS' }],
      },
      now,
    );
    const extra = await pg.db
      .insertInto('catalog_atoms')
      .values([
        { kind: 'hints', quantity: 4n },
        { kind: 'no_ads_days', quantity: 5n },
      ])
      .returning('id')
      .execute();
    await pg.db
      .insertInto('catalog_product_atoms')
      .values(extra.map((a) => ({ product_id: product.id, atom_id: a.id })))
      .execute();

    const [stored] = await listProducts(pg.db, { includeInactive: true, ids: [product.id] });
    if (!stored) throw new Error('product not stored');
    const grant = packGrant(stored.atoms);
    expect(grant).toEqual({ chips: 0n, hints: 7n, noAdsDays: 7n, noAdsForever: false });

    const account = await newAccount(pg.db);
    await grantChips(pg.db, account, 'direct', 5n);
    const platform = parsePlatformHeader('direct;web');
    if (platform === null) throw new Error('bad platform');
    const bought = await buy(pg.db, { accountId: account, platform }, product.id, 'pack-grant-1', now);
    expect(bought.benefitOrigin).toBe('direct');

    const benefits = await pg.db
      .selectFrom('benefits')
      .select(['hints', 'no_ads_until', 'no_ads_forever'])
      .where('account_id', '=', account)
      .where('origin', '=', 'direct')
      .executeTakeFirstOrThrow();
    expect(benefits.hints).toBe(grant.hints);
    expect(benefits.no_ads_forever).toBe(grant.noAdsForever);
    expect(benefits.no_ads_until?.getTime()).toBe(now.getTime() + Number(grant.noAdsDays) * 86_400_000);
  });
});
