import { DomainError } from '../rpc/index.js';
import { PAYMENT_METHODS, type PaymentMethod } from '../gate/index.js';
import type { AtomKind, PurchaseLimitPeriod } from './catalog.table.js';
import {
  ATOM_KINDS,
  PURCHASE_LIMIT_PERIODS,
  type PurchaseLimit,
  STARS_SUBSCRIPTION_PERIOD_SECONDS,
  PRODUCT_LOCALES,
  type ProductAtomView,
  type ProductDraftInput,
  type ProductPriceView,
  type ProductText,
} from './product.js';

/** Characters a title may not hold: one of them breaks a platform's payment-callback signature. */
const FORBIDDEN_IN_TITLE = /[&<>"']/;
const MAX_QUANTITY = 1_000_000_000n;
const MAX_NO_ADS_DAYS = 36_500n;
const MAX_AMOUNT = 1_000_000_000_000n;

/** Raw editor input, as decoded from the wire (strings may be absent). */
export interface RawDraft {
  id: bigint;
  title: string | null;
  active: boolean;
  atoms: Array<{ kind: string | null; quantity: bigint }>;
  prices: Array<{ method: string | null; amount: bigint; currency: string | null }>;
  /** The words per language; empty = `title` is the English title and the only text. */
  texts: Array<{ locale: string | null; title: string | null; description: string | null }>;
  /** Seconds of one subscription period; 0 = one-time. */
  subscriptionPeriod: number;
  /** The offer window in unix seconds; 0 = open on that side. */
  availableFromUnix: bigint;
  availableUntilUnix: bigint;
  /** 0 = no limit (then the period must be empty). */
  purchaseLimit: number;
  purchaseLimitPeriod: string | null;
}

/**
 * Characters that change how a title reads without being seen: C0/C1 controls, the bidi marks,
 * embeddings, overrides and isolates (U+200E/F, U+202A-E, U+2066-9, U+061C) that can reverse the
 * amount or name an invoice shows, and the line and paragraph separators (U+2028/9).
 */
const INVISIBLE_IN_TITLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** A product title: 1-64 characters after trimming, none of & < > " ', no control, bidi or separator characters. */
export function validateTitle(raw: string | null): string {
  const title = (raw ?? '').trim();
  if (title.length === 0 || [...title].length > 64 || FORBIDDEN_IN_TITLE.test(title) || INVISIBLE_IN_TITLE.test(title)) {
    throw new DomainError(
      'invalid_title',
      'a title is 1-64 characters and may not contain & < > " \' or control, bidi or line-separator characters',
    );
  }
  return title;
}

const MAX_DESCRIPTION = 255;

/**
 * A product description: at most 255 characters after trimming (an invoice's limit), none of the
 * control, bidi or separator characters a title may not hold, and not the title again (a line that
 * only repeats the title tells the player nothing; empty is fine, the grants are worded instead).
 */
export function validateDescription(raw: string | null, title: string): string {
  const description = (raw ?? '').trim();
  if ([...description].length > MAX_DESCRIPTION || INVISIBLE_IN_TITLE.test(description)) {
    throw new DomainError(
      'invalid_title',
      `a description is at most ${MAX_DESCRIPTION} characters without control, bidi or line-separator characters`,
    );
  }
  if (description !== '' && description.toLocaleLowerCase() === title.toLocaleLowerCase()) {
    throw new DomainError('invalid_title', 'a description must not repeat the title');
  }
  return description;
}

/** Runs a text check, naming the language and field in its refusal (`ru title: …`) so an editor can point at the field. */
function inLocale<T>(locale: string, field: 'title' | 'description', check: () => T): T {
  try {
    return check();
  } catch (err: unknown) {
    if (err instanceof DomainError) throw new DomainError(err.code, `${locale} ${field}: ${err.message}`);
    throw err;
  }
}

/**
 * The texts of a draft, one per language of PRODUCT_LOCALES (distinct), each title under the title
 * rule and each description under validateDescription. English comes from its text, else from the
 * draft's `title`; a `title` given beside an English text must equal its title. A new product (id
 * 0) and a draft with texts need a title in every language; `<lang> title: missing …` names the
 * first without one. Problems answer `invalid_title` (its message names which).
 */
export function validateTexts(raw: RawDraft): { title: string; texts: ProductText[] } {
  const fail = (why: string) => new DomainError('invalid_title', why);
  const texts: ProductText[] = [];
  for (const t of raw.texts) {
    const locale = PRODUCT_LOCALES.find((l) => l === t.locale);
    if (!locale) throw fail(`unknown text language ${JSON.stringify(t.locale)}: one of ${PRODUCT_LOCALES.join(', ')}`);
    if (texts.some((x) => x.locale === locale)) throw fail(`text language ${locale} repeated`);
    const title = inLocale(locale, 'title', () => validateTitle(t.title));
    texts.push({ locale, title, description: inLocale(locale, 'description', () => validateDescription(t.description, title)) });
  }
  const legacy = (raw.title ?? '').trim();
  const en = texts.find((t) => t.locale === 'en');
  if (en && legacy !== '' && legacy !== en.title) throw fail('title and the English text title differ');
  const title = en ? en.title : validateTitle(raw.title);
  const all: ProductText[] = en ? texts : [{ locale: 'en', title, description: '' }, ...texts];
  // A new product, or one whose words are replaced, has a title in every language (as the console's form
  // asks): a language without one would show its players English. An update without texts keeps the stored words.
  if (raw.id === 0n || raw.texts.length > 0) {
    const missing = PRODUCT_LOCALES.filter((l) => !all.some((t) => t.locale === l));
    const first = missing[0];
    if (first !== undefined)
      throw fail(
        `${first} title: missing; a product needs a title in every language (${PRODUCT_LOCALES.join(', ')}), else ${LANGUAGE_NAMES[first]} players read another language`,
      );
  }
  return { title, texts: all };
}

const LANGUAGE_NAMES: Readonly<Record<(typeof PRODUCT_LOCALES)[number], string>> = { en: 'English-speaking', ru: 'Russian-speaking' };

function validateAtoms(raw: RawDraft['atoms']): ProductAtomView[] {
  const fail = (why: string) => new DomainError('invalid_atoms', why);
  if (raw.length === 0 || raw.length > ATOM_KINDS.length) throw fail('a product needs 1-4 atoms of distinct kinds');
  const seen = new Set<string>();
  return raw.map(({ kind, quantity }) => {
    if (kind === null || !(ATOM_KINDS as readonly string[]).includes(kind)) throw fail(`unknown atom kind ${JSON.stringify(kind)}`);
    if (seen.has(kind)) throw fail(`atom kind ${kind} repeated`);
    seen.add(kind);
    const max = kind === 'no_ads_forever' ? 1n : kind === 'no_ads_days' ? MAX_NO_ADS_DAYS : MAX_QUANTITY;
    if (quantity < 1n || quantity > max) throw fail(`atom ${kind} quantity must be 1-${max}`);
    return { kind: kind as AtomKind, quantity };
  });
}

function validatePrices(raw: RawDraft['prices'], atoms: readonly ProductAtomView[], cardCurrencies: readonly string[]): ProductPriceView[] {
  const fail = (why: string) => new DomainError('invalid_prices', why);
  if (raw.length === 0 || raw.length > PAYMENT_METHODS.length) throw fail('a product needs 1-3 prices of distinct methods');
  const seen = new Set<string>();
  return raw.map(({ method, amount, currency }) => {
    if (method === null || !(PAYMENT_METHODS as readonly string[]).includes(method))
      throw fail(`unknown price method ${JSON.stringify(method)}`);
    if (seen.has(method)) throw fail(`price method ${method} repeated`);
    seen.add(method);
    if (amount < 1n || amount > MAX_AMOUNT) throw fail(`price ${method} amount must be 1-${MAX_AMOUNT}`);
    const m = method as PaymentMethod;
    const fixed = m === 'chips' ? 'CHIPS' : m === 'xtr' ? 'XTR' : null;
    const cur = (currency ?? '').trim().toUpperCase();
    if (fixed !== null) {
      if (cur !== '' && cur !== fixed) throw fail(`price ${method} is in ${fixed}`);
      if (m === 'chips' && atoms.some((a) => a.kind === 'chips')) throw fail('a chip pack cannot be priced in chips');
      return { method: m, amount, currency: fixed };
    }
    if (!/^[A-Z]{3}$/.test(cur)) throw fail('a provider price needs an ISO 4217 currency code');
    if (!cardCurrencies.includes(cur)) throw new DomainError('invalid_currency', unsettledCurrency(cur, cardCurrencies));
    return { method: m, amount, currency: cur };
  });
}

function unsettledCurrency(currency: string, cardCurrencies: readonly string[]): string {
  const accepted =
    cardCurrencies.length === 0
      ? 'the configured card shops settle different currencies, so no card price fits them all'
      : `the card shops settle only ${cardCurrencies.join(', ')}`;
  return `a card price cannot be in ${currency}: ${accepted}`;
}

/** The last second a window edge may name (9999-12-31T23:59:59Z): beyond it a Date cannot round-trip. */
const MAX_UNIX = 253_402_300_799n;
const MAX_PURCHASE_LIMIT = 1_000_000;

/**
 * A subscription's period: 0 (one-time) or Telegram's only period (30 days), sold for stars only:
 * its one price is an xtr price (`invalid_prices` otherwise), since renewals exist only on that rail.
 */
function validateSubscription(period: number, prices: readonly ProductPriceView[]): number | null {
  if (period === 0) return null;
  if (period !== STARS_SUBSCRIPTION_PERIOD_SECONDS)
    throw new DomainError('invalid_offer', `subscription_period must be 0 or ${STARS_SUBSCRIPTION_PERIOD_SECONDS} (30 days)`);
  if (prices.length !== 1 || prices[0]?.method !== 'xtr')
    throw new DomainError('invalid_prices', 'a subscription is sold for stars only: one xtr price, no chips or card price');
  return period;
}

/** The offer window: each edge 0 (open) or a unix second up to year 9999; when both are set, from is before until. */
function validateWindow(fromUnix: bigint, untilUnix: bigint): { availableFrom: Date | null; availableUntil: Date | null } {
  const fail = (why: string) => new DomainError('invalid_offer', why);
  if (fromUnix < 0n || fromUnix > MAX_UNIX) throw fail(`available_from must be 0 (open) or unix seconds up to ${MAX_UNIX}`);
  if (untilUnix < 0n || untilUnix > MAX_UNIX) throw fail(`available_until must be 0 (open) or unix seconds up to ${MAX_UNIX}`);
  if (fromUnix > 0n && untilUnix > 0n && fromUnix >= untilUnix) throw fail('available_from must be before available_until');
  return {
    availableFrom: fromUnix === 0n ? null : new Date(Number(fromUnix) * 1000),
    availableUntil: untilUnix === 0n ? null : new Date(Number(untilUnix) * 1000),
  };
}

/** A purchase limit: 0 with no period (none), or 1-1000000 per day, week, month or ever. */
function validateLimit(count: number, rawPeriod: string | null): PurchaseLimit | null {
  const fail = (why: string) => new DomainError('invalid_offer', why);
  const period = (rawPeriod ?? '').trim();
  if (count === 0) {
    if (period !== '') throw fail('a purchase limit period needs a purchase limit above 0');
    return null;
  }
  if (!Number.isInteger(count) || count < 1 || count > MAX_PURCHASE_LIMIT)
    throw fail(`purchase_limit must be 0 (none) or 1-${MAX_PURCHASE_LIMIT}`);
  if (!(PURCHASE_LIMIT_PERIODS as readonly string[]).includes(period))
    throw fail(`purchase_limit_period must be one of ${PURCHASE_LIMIT_PERIODS.join(', ')}`);
  return { count, period: period as PurchaseLimitPeriod };
}

/**
 * Validates an editor draft into a storable product, or throws the first problem as InvalidArgument.
 * A card (`provider`) price must be in one of `cardCurrencies` (what every configured card shop
 * settles, config/shops.ts cardPriceCurrencies), else `invalid_currency`: a price the rail cannot
 * settle would only fail at order time.
 */
export function validateDraft(raw: RawDraft, cardCurrencies: readonly string[]): ProductDraftInput {
  if (raw.id < 0n) throw new DomainError('invalid_product_id', 'product_id must be 0 (create) or an existing id');
  const { title, texts } = validateTexts(raw);
  const atoms = validateAtoms(raw.atoms);
  const prices = validatePrices(raw.prices, atoms, cardCurrencies);
  const subscriptionPeriodSeconds = validateSubscription(raw.subscriptionPeriod, prices);
  const window = validateWindow(raw.availableFromUnix, raw.availableUntilUnix);
  const purchaseLimit = validateLimit(raw.purchaseLimit, raw.purchaseLimitPeriod);
  // A draft without texts (a client from before them) sets the English title only: see upsertProduct.
  return {
    id: raw.id,
    title,
    active: raw.active,
    atoms,
    prices,
    ...(raw.texts.length > 0 ? { texts } : {}),
    subscriptionPeriodSeconds,
    ...window,
    purchaseLimit,
  };
}
