import { sql, type Kysely, type Transaction } from 'kysely';
import type pg from 'pg';
import type { DB } from '../db/index.js';
import { DomainError } from '../rpc/index.js';
import type { PaymentMethod } from '../gate/index.js';
import type { AtomKind, PurchaseLimitPeriod } from './catalog.table.js';
import { draftTexts, PRODUCT_LOCALES, type Product, type ProductDraftInput, type ProductText } from './product.js';

type Db = Kysely<DB> | Transaction<DB>;

interface ProductRow {
  id: bigint;
  title: string;
  active: boolean;
  updated_at: Date;
  subscription_period: number | null;
  available_from: Date | null;
  available_until: Date | null;
  purchase_limit: number | null;
  purchase_limit_period: PurchaseLimitPeriod | null;
  /** JSON arrays built by the statement; int8 values travel as text so no amount passes through a float. */
  atoms: Array<{ kind: AtomKind; quantity: string }>;
  prices: Array<{ method: PaymentMethod; amount: string; currency: string }>;
  texts: Array<{ locale: string; title: string; description: string }>;
}

/**
 * Products (newest first) with atoms, prices and texts; only active ones unless `includeInactive`.
 * One statement (each product's atoms, prices and texts aggregated beside it), where it was four:
 * every order creation, catalog page and console list reads through here.
 */
export async function listProducts(db: Db, options: { includeInactive: boolean; ids?: readonly bigint[] }): Promise<Product[]> {
  if (options.ids?.length === 0) return [];
  const ids = options.ids === undefined ? null : [...options.ids];
  const { rows } = await sql<ProductRow>`
    select p.id, p.title, p.active, p.updated_at, p.subscription_period, p.available_from, p.available_until,
           p.purchase_limit, p.purchase_limit_period,
           coalesce((select json_agg(json_build_object('kind', a.kind, 'quantity', a.quantity::text) order by a.kind)
                       from catalog_product_atoms pa join catalog_atoms a on a.id = pa.atom_id
                      where pa.product_id = p.id), '[]') as atoms,
           coalesce((select json_agg(json_build_object('method', x.method, 'amount', x.amount::text, 'currency', x.currency) order by x.method)
                       from catalog_prices x where x.product_id = p.id), '[]') as prices,
           coalesce((select json_agg(json_build_object('locale', t.locale, 'title', t.title, 'description', t.description) order by t.locale)
                       from catalog_product_texts t where t.product_id = p.id), '[]') as texts
      from catalog_products p
     where (${options.includeInactive} or p.active)
       and (${ids}::bigint[] is null or p.id = any(${ids}::bigint[]))
     order by p.id desc`.execute(db);
  return rows.map((p) => ({
    id: p.id,
    title: p.title,
    active: p.active,
    updatedAt: p.updated_at,
    subscriptionPeriodSeconds: p.subscription_period,
    availableFrom: p.available_from,
    availableUntil: p.available_until,
    purchaseLimit:
      p.purchase_limit !== null && p.purchase_limit_period !== null ? { count: p.purchase_limit, period: p.purchase_limit_period } : null,
    atoms: p.atoms.map(({ kind, quantity }) => ({ kind, quantity: BigInt(quantity) })),
    prices: p.prices.map(({ method, amount, currency }) => ({ method, amount: BigInt(amount), currency })),
    texts: p.texts.flatMap(({ locale, title, description }): ProductText[] => {
      const language = PRODUCT_LOCALES.find((l) => l === locale);
      return language ? [{ locale: language, title, description }] : [];
    }),
  }));
}

function storeFields(draft: ProductDraftInput) {
  return {
    subscription_period: draft.subscriptionPeriodSeconds ?? null,
    available_from: draft.availableFrom ?? null,
    available_until: draft.availableUntil ?? null,
    purchase_limit: draft.purchaseLimit?.count ?? null,
    purchase_limit_period: draft.purchaseLimit?.period ?? null,
  };
}

/** Whether the catalog holds any product at all (active or not). */
export async function hasAnyProduct(db: Db): Promise<boolean> {
  const row = await db.selectFrom('catalog_products').select('id').limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * Creates or replaces a product with its atoms (found or created), prices and texts, in one
 * transaction; `catalog_products.title` is kept equal to the English text's title. A draft without
 * `texts` changes the English title only and keeps the words of the other languages.
 */
export async function upsertProduct(db: Kysely<DB>, draft: ProductDraftInput, now: Date): Promise<Product> {
  const id = await db.transaction().execute(async (trx) => {
    let productId: bigint;
    if (draft.id === 0n) {
      ({ id: productId } = await trx
        .insertInto('catalog_products')
        .values({ title: draft.title, active: draft.active, ...storeFields(draft) })
        .returning('id')
        .executeTakeFirstOrThrow());
    } else {
      const updated = await trx
        .updateTable('catalog_products')
        .set({ title: draft.title, active: draft.active, updated_at: now, ...storeFields(draft) })
        .where('id', '=', draft.id)
        .returning('id')
        .executeTakeFirst();
      if (!updated) throw new DomainError('unknown_product', `no product ${draft.id}`);
      productId = updated.id;
      await trx.deleteFrom('catalog_product_atoms').where('product_id', '=', productId).execute();
      await trx.deleteFrom('catalog_prices').where('product_id', '=', productId).execute();
    }
    if (draft.texts === undefined) {
      // An English title alone (the draft shape from before texts): only the English title changes;
      // the other languages' words, and the English description, stay.
      await trx
        .insertInto('catalog_product_texts')
        .values({ product_id: productId, locale: 'en', title: draft.title })
        .onConflict((oc) => oc.columns(['product_id', 'locale']).doUpdateSet({ title: draft.title }))
        .execute();
    } else {
      await trx.deleteFrom('catalog_product_texts').where('product_id', '=', productId).execute();
      await trx
        .insertInto('catalog_product_texts')
        .values(draftTexts(draft).map((t) => ({ product_id: productId, locale: t.locale, title: t.title, description: t.description })))
        .execute();
    }
    await trx
      .insertInto('catalog_atoms')
      .values(draft.atoms.map((a) => ({ kind: a.kind, quantity: a.quantity })))
      .onConflict((oc) => oc.columns(['kind', 'quantity']).doNothing())
      .execute();
    for (const atom of draft.atoms) {
      const { id: atomId } = await trx
        .selectFrom('catalog_atoms')
        .select('id')
        .where('kind', '=', atom.kind)
        .where('quantity', '=', atom.quantity)
        .executeTakeFirstOrThrow();
      await trx.insertInto('catalog_product_atoms').values({ product_id: productId, atom_id: atomId }).execute();
    }
    await trx
      .insertInto('catalog_prices')
      .values(draft.prices.map((p) => ({ product_id: productId, ...p })))
      .execute();
    return productId;
  });
  const [product] = await listProducts(db, { includeInactive: true, ids: [id] });
  if (!product) throw new Error(`product ${id} vanished after upsert`);
  return product;
}

/** The channel every catalog table's triggers notify at commit (migration 0182_catalog_notify). */
export const CATALOG_CHANGED_CHANNEL = 'catalog_changed';

/**
 * Subscribes `client` to CATALOG_CHANGED_CHANNEL. A dedicated connection, never a pooled one: a
 * LISTEN belongs to its session, and a pool would hand that session to other work or close it.
 */
export async function listenForCatalogChanges(client: pg.Client): Promise<void> {
  await client.query('listen catalog_changed');
}

/** One round trip on the listener's connection: it answers only while the session (and its LISTEN) is alive. */
export async function pingListener(client: pg.Client): Promise<void> {
  await client.query('select 1');
}
