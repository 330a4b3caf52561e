/**
 * Promo and redeem codes: operators create them in the console (`/_gm/codes`), players redeem them
 * on the wallet page and through REST, each grant a `code_grant` ledger operation to the segment of
 * the context it is redeemed in, reversible by an operator (`reversal`). Owns `promo_codes` and
 * `promo_redemptions`. Its entries: the PromoService, its metrics, and the code helpers tests use.
 */
export { codeHash, displayCode, generateCode, normaliseCode, promoKey, readableCode } from './code.js';
export { createPromoMetrics, type PromoMetrics } from './metrics.js';
export { promoService, type PromoDeps } from './service.js';
export type { PromoCodesTable, PromoHost, PromoRedemptionsTable } from './promos.table.js';
