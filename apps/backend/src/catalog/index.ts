/**
 * The catalog's one public entry: products and what a pack grants (`packGrant`, the rule the wallet.buy
 * statement sums in SQL), their codecs for the console and wallet, validation of an operator's draft,
 * the repository, the in-memory catalog the payment and wallet paths read (cache.ts, invalidated by
 * the catalog tables' change notifications) and the dev seed. Other features import from here only.
 */
export { encodeProductList, encodeProductRecord, readDraft, writeAtoms, writePrices } from './codec.js';
export {
  type BenefitGrant,
  onOffer,
  packGrant,
  periodStart,
  PURCHASE_LIMIT_PERIODS,
  type Product,
  type ProductPriceView,
  type PurchaseLimit,
  STARS_SUBSCRIPTION_PERIOD_SECONDS,
  textOf,
} from './product.js';
export { listProducts, upsertProduct } from './catalog.store.js';
export {
  CATALOG_LISTENER_APPLICATION_NAME,
  type CatalogCache,
  type CatalogCacheOptions,
  type CatalogCacheState,
  type CatalogReader,
  createCatalogCache,
  type ProductQuery,
  type ProductTitle,
  readThroughCatalog,
} from './cache.js';
export { type CatalogMetrics, type CatalogReadSource, createCatalogMetrics } from './metrics.js';
export { seedDevCatalog } from './seed.js';
export { type RawDraft, validateDraft } from './validate.js';
export type {
  CatalogAtomsTable,
  CatalogPricesTable,
  CatalogProductAtomsTable,
  CatalogProductTextsTable,
  CatalogProductsTable,
} from './catalog.table.js';
