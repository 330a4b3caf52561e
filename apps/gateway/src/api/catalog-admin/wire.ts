import { z } from 'zod';
import { atomWire, priceWire } from '../wallet/wire.js';
import { bigintString, isoTime, type Wire } from '../wire.js';
import type { AtomJson, PriceJson } from '../products.js';

/** A product's words in one language. */
export const productTextWire = z.object({ title: z.string(), description: z.string() }).strict().meta({ title: 'ProductText' });

/** A product's words per language (libs/i18n's); English is always there. */
export const productTextsWire = z
  .object({ en: productTextWire, ru: productTextWire.optional() })
  .strict()
  .meta({ title: 'ProductTexts' }) satisfies z.ZodType<ProductJson['texts']>;

/** The periods a purchase limit counts over (UTC calendar day, ISO week, calendar month, all time). */
export const LIMIT_PERIODS = ['day', 'week', 'month', 'ever'] as const;

/** At most `count` paid or pending purchases of the product per player in each `period`. */
export const purchaseLimitWire = z
  .object({ count: z.number().int().min(1).max(1_000_000), period: z.enum(LIMIT_PERIODS) })
  .strict()
  .meta({ title: 'PurchaseLimit' });

/** A catalog product as the editor sees it; `title` is the English title (`texts.en.title`). */
export const productWire = z
  .object({
    product_id: bigintString,
    title: z.string(),
    active: z.boolean(),
    atoms: z.array(atomWire),
    prices: z.array(priceWire),
    updated_at: isoTime,
    texts: productTextsWire,
    subscription_period_seconds: z
      .number()
      .int()
      .nullable()
      .describe('seconds one paid period of a stars subscription lasts (2592000); null: a one-time product'),
    available_from: isoTime.describe('when the offer starts; null: open'),
    available_until: isoTime.describe('when the offer ends (exclusive); null: open'),
    purchase_limit: purchaseLimitWire.nullable().describe('null: no limit'),
  })
  .strict()
  .meta({ title: 'Product' }) satisfies z.ZodType<Wire<ProductJson>>;

/** Every product (inactive ones too unless asked otherwise). */
export const productListWire = z
  .object({ products: z.array(productWire) })
  .strict()
  .meta({ title: 'ProductList' });

/** A product's words in one language. */
export interface ProductTextJson {
  title: string;
  description: string;
}

/** A catalog product as the editor sees it; `title` is the English title. */
export interface ProductJson {
  product_id: bigint;
  title: string;
  active: boolean;
  atoms: AtomJson[];
  prices: PriceJson[];
  updated_at: string | null;
  texts: { en: ProductTextJson; ru?: ProductTextJson };
  subscription_period_seconds: number | null;
  available_from: string | null;
  available_until: string | null;
  purchase_limit: { count: number; period: (typeof LIMIT_PERIODS)[number] } | null;
}
