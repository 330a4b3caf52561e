import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from '../db/index.js';
import type { PaymentMethod } from '../gate/index.js';

/** The period a per-player purchase limit counts over (UTC calendar day, ISO week, calendar month, or all time). */
export type PurchaseLimitPeriod = 'day' | 'week' | 'month' | 'ever';

export type AtomKind = 'chips' | 'no_ads_days' | 'no_ads_forever' | 'hints';

export interface CatalogAtomsTable {
  id: Generated<bigint>;
  kind: AtomKind;
  quantity: bigint;
}

export interface CatalogProductsTable {
  id: Generated<bigint>;
  title: string;
  active: ColumnType<boolean, boolean | undefined, boolean>;
  /** Seconds one paid period lasts for a stars subscription (2592000, Telegram's only period); null: a one-time product (0140). */
  subscription_period: ColumnType<number | null, number | null | undefined, number | null>;
  /** The offer window (0140): outside [available_from, available_until) the shop hides it and orders refuse it; null = open on that side. */
  available_from: ColumnType<Date | null, Date | null | undefined, Date | null>;
  available_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Per-player purchase limit (0140): at most purchase_limit paid or pending orders per purchase_limit_period; null = none. */
  purchase_limit: ColumnType<number | null, number | null | undefined, number | null>;
  purchase_limit_period: ColumnType<PurchaseLimitPeriod | null, PurchaseLimitPeriod | null | undefined, PurchaseLimitPeriod | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A product's words in one language (libs/i18n's); the English row's title equals catalog_products.title. */
export interface CatalogProductTextsTable {
  product_id: bigint;
  locale: string;
  title: string;
  description: ColumnType<string, string | undefined, string>;
}

export interface CatalogProductAtomsTable {
  product_id: bigint;
  atom_id: bigint;
}

export interface CatalogPricesTable {
  product_id: bigint;
  method: PaymentMethod;
  amount: bigint;
  currency: string;
}

declare module '../db/index.js' {
  /** The catalog tables: atoms, products, their texts, what each grants and its prices. */
  interface DB {
    catalog_atoms: CatalogAtomsTable;
    catalog_products: CatalogProductsTable;
    catalog_product_texts: CatalogProductTextsTable;
    catalog_product_atoms: CatalogProductAtomsTable;
    catalog_prices: CatalogPricesTable;
  }
}
