import type { AtomKind } from '../db/schema.js';
import type { PaymentMethod } from '../gate/context.js';

export const ATOM_KINDS: readonly AtomKind[] = ['chips', 'no_ads_days', 'no_ads_forever', 'hints'];

/** One building block of a product: what it grants. */
export interface ProductAtomView {
  kind: AtomKind;
  quantity: bigint;
}

/** One way to pay for a product; amount in the currency's minor (or whole) units. */
export interface ProductPriceView {
  method: PaymentMethod;
  amount: bigint;
  currency: string;
}

/** A catalog product with its atoms and prices. */
export interface Product {
  id: bigint;
  title: string;
  active: boolean;
  atoms: ProductAtomView[];
  prices: ProductPriceView[];
  updatedAt: Date;
}

/** A product to create (id 0) or replace (id > 0), already validated. */
export interface ProductDraftInput {
  id: bigint;
  title: string;
  active: boolean;
  atoms: ProductAtomView[];
  prices: ProductPriceView[];
}

/** The benefits a product grants (its non-chip atoms). */
export interface BenefitGrant {
  hints: bigint;
  noAdsDays: bigint;
  noAdsForever: boolean;
}

/** What a pack grants: chips and its benefits. */
export interface PackGrant extends BenefitGrant {
  chips: bigint;
}

/**
 * What a pack grants, the one rule: each kind's quantities summed (orders snapshot it; wallet.buy's
 * statement, ledger/postings/buy.ts, sums the same atoms in SQL, and test/pack-grant.test.ts checks
 * the two agree on a product with repeated kinds, which the catalog editor does not make today).
 */
export function packGrant(atoms: readonly ProductAtomView[]): PackGrant {
  const qty = (kind: AtomKind) => atoms.filter((a) => a.kind === kind).reduce((s, a) => s + a.quantity, 0n);
  return { chips: qty('chips'), hints: qty('hints'), noAdsDays: qty('no_ads_days'), noAdsForever: qty('no_ads_forever') > 0n };
}
