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
}
