import { LANGUAGES, type Language } from '@wordgame/i18n';
import type { AtomKind, PurchaseLimitPeriod } from './catalog.table.js';
import type { PaymentMethod } from '../gate/index.js';

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

/** A product's words in one language: its title and a short description (may be empty). */
export interface ProductText {
  locale: Language;
  title: string;
  description: string;
}

/** At most `count` orders of the product per player (paid or pending) in each `period`. */
export interface PurchaseLimit {
  count: number;
  period: PurchaseLimitPeriod;
}

/** The periods a purchase limit may count over. */
export const PURCHASE_LIMIT_PERIODS: readonly PurchaseLimitPeriod[] = ['day', 'week', 'month', 'ever'];

/**
 * Where the limit period holding `now` starts (UTC calendar day, ISO week from Monday, calendar
 * month); null for `ever` (all time). Orders and chips purchases at or after it count.
 */
export function periodStart(period: PurchaseLimitPeriod, now: Date): Date | null {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const d = now.getUTCDate();
  switch (period) {
    case 'day':
      return new Date(Date.UTC(y, m, d));
    case 'week':
      return new Date(Date.UTC(y, m, d - ((now.getUTCDay() + 6) % 7)));
    case 'month':
      return new Date(Date.UTC(y, m, 1));
    case 'ever':
      return null;
  }
}

/** Whether the product's offer window holds `now`: [availableFrom, availableUntil), an absent edge open. */
export function onOffer(p: Pick<Product, 'availableFrom' | 'availableUntil'>, now: Date): boolean {
  const t = now.getTime();
  return (p.availableFrom === null || p.availableFrom.getTime() <= t) && (p.availableUntil === null || t < p.availableUntil.getTime());
}

/** The only subscription period Telegram allows (Bot API createInvoiceLink subscription_period): 30 days. */
export const STARS_SUBSCRIPTION_PERIOD_SECONDS = 2_592_000;

/** A catalog product with its atoms, prices and texts; `title` is the English title. */
export interface Product {
  id: bigint;
  title: string;
  active: boolean;
  atoms: ProductAtomView[];
  prices: ProductPriceView[];
  /** One per language the product has words in, English always among them. */
  texts: ProductText[];
  updatedAt: Date;
  /** Seconds of one paid period when the product is a stars subscription (its benefits last one period); null: one-time. */
  subscriptionPeriodSeconds: number | null;
  /** The offer window: sold only in [availableFrom, availableUntil); null = open on that side. */
  availableFrom: Date | null;
  availableUntil: Date | null;
  purchaseLimit: PurchaseLimit | null;
}

/**
 * A product to create (id 0) or replace (id > 0), already validated; `title` is the English title.
 * With `texts`, they replace the stored ones (English from `title` when they have none); without,
 * only the English title is set and the other languages' words are kept (catalog repository).
 */
export interface ProductDraftInput {
  id: bigint;
  title: string;
  active: boolean;
  atoms: ProductAtomView[];
  prices: ProductPriceView[];
  texts?: ProductText[];
  /** Absent = null (one-time product, always available, no limit). */
  subscriptionPeriodSeconds?: number | null;
  availableFrom?: Date | null;
  availableUntil?: Date | null;
  purchaseLimit?: PurchaseLimit | null;
}

/** A draft's texts with the English one always present (from `title` when the draft has none). */
export function draftTexts(draft: Pick<ProductDraftInput, 'title' | 'texts'>): ProductText[] {
  const texts = draft.texts ?? [];
  return texts.some((t) => t.locale === 'en') ? texts : [{ locale: 'en', title: draft.title, description: '' }, ...texts];
}

/** The languages a product's words are kept in (libs/i18n's): the same set the wallet and the bot speak. */
export const PRODUCT_LOCALES: readonly Language[] = LANGUAGES;

/**
 * A product's words in `language`: that language's text, else the English one (a product saved
 * before texts per language, or through the API with English only), else the bare title. One
 * language per screen: the caller words everything else on the screen in the same `language`.
 */
export function textOf(product: Pick<Product, 'title' | 'texts'>, language: Language): ProductText {
  return (
    product.texts.find((t) => t.locale === language) ??
    product.texts.find((t) => t.locale === 'en') ?? { locale: 'en', title: product.title, description: '' }
  );
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
