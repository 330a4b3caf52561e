import { z } from 'zod';
import { atomWire, priceWire } from '../wallet/wire.js';
import { bigintString, isoTime, type Wire } from '../wire.js';
import type { AtomJson, PriceJson } from '../products.js';

/** A catalog product as the editor sees it. */
export const productWire = z
  .object({
    product_id: bigintString,
    title: z.string(),
    active: z.boolean(),
    atoms: z.array(atomWire),
    prices: z.array(priceWire),
    updated_at: isoTime,
  })
  .strict()
  .meta({ title: 'Product' }) satisfies z.ZodType<Wire<ProductJson>>;

/** Every product (inactive ones too unless asked otherwise). */
export const productListWire = z
  .object({ products: z.array(productWire) })
  .strict()
  .meta({ title: 'ProductList' });

/** A catalog product as the editor sees it. */
export interface ProductJson {
  product_id: bigint;
  title: string;
  active: boolean;
  atoms: AtomJson[];
  prices: PriceJson[];
  updated_at: string | null;
}
