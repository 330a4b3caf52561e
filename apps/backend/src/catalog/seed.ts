import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.js';
import type { ProductDraftInput } from './product.js';
import { upsertProduct } from './repository.js';

/** The small dev catalog: two chip packs (money, stars) and three value products (chips). */
export const DEV_CATALOG: readonly ProductDraftInput[] = [
  {
    id: 0n,
    title: 'Hints x10',
    active: true,
    atoms: [{ kind: 'hints', quantity: 10n }],
    prices: [{ method: 'chips', amount: 50n, currency: 'CHIPS' }],
  },
  {
    id: 0n,
    title: 'No ads for 30 days',
    active: true,
    atoms: [{ kind: 'no_ads_days', quantity: 30n }],
    prices: [{ method: 'chips', amount: 150n, currency: 'CHIPS' }],
  },
  {
    id: 0n,
    title: 'No ads forever',
    active: true,
    atoms: [{ kind: 'no_ads_forever', quantity: 1n }],
    prices: [{ method: 'chips', amount: 1_000n, currency: 'CHIPS' }],
  },
  {
    id: 0n,
    title: '100 chips',
    active: true,
    atoms: [{ kind: 'chips', quantity: 100n }],
    prices: [
      { method: 'provider', amount: 9_900n, currency: 'RUB' },
      { method: 'xtr', amount: 50n, currency: 'XTR' },
    ],
  },
  {
    id: 0n,
    title: '500 chips',
    active: true,
    atoms: [{ kind: 'chips', quantity: 500n }],
    prices: [
      { method: 'provider', amount: 39_900n, currency: 'RUB' },
      { method: 'xtr', amount: 200n, currency: 'XTR' },
    ],
  },
];

/** Inserts DEV_CATALOG when the catalog is empty; returns how many products it added. */
export async function seedDevCatalog(db: Kysely<DB>, now: Date): Promise<number> {
  const any = await db.selectFrom('catalog_products').select('id').limit(1).executeTakeFirst();
  if (any) return 0;
  for (const product of DEV_CATALOG) await upsertProduct(db, product, now);
  return DEV_CATALOG.length;
}
