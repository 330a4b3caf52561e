import type { Kysely } from 'kysely';
import type { DB } from '../db/index.js';
import type { ProductDraftInput } from './product.js';
import { hasAnyProduct, upsertProduct } from './catalog.store.js';

/**
 * The small dev catalog: two chip packs (money, stars) and three value products (chips), each worded
 * in English and Russian. A title names the product; its description says something the title does
 * not (what it is for), never the title again (catalog/validate.ts refuses that for editor drafts).
 */
export const DEV_CATALOG: readonly ProductDraftInput[] = [
  {
    id: 0n,
    title: 'Hints x10',
    active: true,
    atoms: [{ kind: 'hints', quantity: 10n }],
    prices: [{ method: 'chips', amount: 50n, currency: 'CHIPS' }],
    texts: [
      { locale: 'en', title: 'Hints x10', description: 'Ten hints for when a word will not come.' },
      { locale: 'ru', title: 'Подсказки x10', description: 'Десять подсказок, когда слово не идёт.' },
    ],
  },
  {
    id: 0n,
    title: 'No ads for 30 days',
    active: true,
    atoms: [{ kind: 'no_ads_days', quantity: 30n }],
    prices: [{ method: 'chips', amount: 150n, currency: 'CHIPS' }],
    texts: [
      { locale: 'en', title: 'No ads for 30 days', description: 'A month of games without a single advert.' },
      { locale: 'ru', title: 'Без рекламы на 30 дней', description: 'Месяц игр без единой рекламы.' },
    ],
  },
  {
    id: 0n,
    title: 'No ads forever',
    active: true,
    atoms: [{ kind: 'no_ads_forever', quantity: 1n }],
    prices: [{ method: 'chips', amount: 1_000n, currency: 'CHIPS' }],
    texts: [
      { locale: 'en', title: 'No ads forever', description: 'Adverts are gone for good on this account.' },
      { locale: 'ru', title: 'Без рекламы навсегда', description: 'Реклама пропадает с этого аккаунта насовсем.' },
    ],
  },
  {
    id: 0n,
    title: 'Handful of chips',
    active: true,
    atoms: [{ kind: 'chips', quantity: 100n }],
    prices: [
      { method: 'provider', amount: 9_900n, currency: 'RUB' },
      { method: 'xtr', amount: 50n, currency: 'XTR' },
    ],
    texts: [
      { locale: 'en', title: 'Handful of chips', description: '100 chips to spend on hints and ad-free days.' },
      { locale: 'ru', title: 'Горсть фишек', description: '100 фишек на подсказки и дни без рекламы.' },
    ],
  },
  {
    id: 0n,
    title: 'Bag of chips',
    active: true,
    atoms: [{ kind: 'chips', quantity: 500n }],
    prices: [
      { method: 'provider', amount: 39_900n, currency: 'RUB' },
      { method: 'xtr', amount: 200n, currency: 'XTR' },
    ],
    texts: [
      { locale: 'en', title: 'Bag of chips', description: '500 chips: the better deal for regular players.' },
      { locale: 'ru', title: 'Мешок фишек', description: '500 фишек: выгоднее для тех, кто играет часто.' },
    ],
  },
];

/** Inserts DEV_CATALOG when the catalog is empty; returns how many products it added. */
export async function seedDevCatalog(db: Kysely<DB>, now: Date): Promise<number> {
  if (await hasAnyProduct(db)) return 0;
  for (const product of DEV_CATALOG) await upsertProduct(db, product, now);
  return DEV_CATALOG.length;
}
