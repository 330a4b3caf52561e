import type { ColumnType, Generated } from 'kysely';
import type { Timestamp } from '../db/index.js';
import type { PaymentMethod } from '../gate/index.js';

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
