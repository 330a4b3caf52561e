import type { Builder } from 'flatbuffers';
import { encodeTable, fb } from '@wordgame/contracts';
import { unixSeconds } from '../rpc/index.js';
import type { Product, ProductAtomView, ProductPriceView, ProductText } from './product.js';
import type { RawDraft } from './validate.js';

/** Writes ProductAtom tables and returns their offsets. */
export function writeAtoms(b: Builder, atoms: readonly ProductAtomView[]): number[] {
  return atoms.map((a) => fb.ProductAtom.createProductAtom(b, b.createString(a.kind), a.quantity));
}

/** Writes ProductPrice tables and returns their offsets. */
export function writePrices(b: Builder, prices: readonly ProductPriceView[]): number[] {
  return prices.map((p) => {
    const method = b.createString(p.method);
    const currency = b.createString(p.currency);
    return fb.ProductPrice.createProductPrice(b, method, p.amount, currency);
  });
}

/** Writes ProductText tables and returns their offsets. */
export function writeTexts(b: Builder, texts: readonly ProductText[]): number[] {
  return texts.map((t) =>
    fb.ProductText.createProductText(b, b.createString(t.locale), b.createString(t.title), b.createString(t.description)),
  );
}

function writeRecord(b: Builder, p: Product): number {
  const title = b.createString(p.title);
  const atoms = fb.ProductRecord.createAtomsVector(b, writeAtoms(b, p.atoms));
  const prices = fb.ProductRecord.createPricesVector(b, writePrices(b, p.prices));
  const texts = fb.ProductRecord.createTextsVector(b, writeTexts(b, p.texts));
  const limitPeriod = b.createString(p.purchaseLimit?.period ?? '');
  return fb.ProductRecord.createProductRecord(
    b,
    p.id,
    title,
    p.active,
    atoms,
    prices,
    unixSeconds(p.updatedAt),
    texts,
    p.subscriptionPeriodSeconds ?? 0,
    p.availableFrom ? unixSeconds(p.availableFrom) : 0n,
    p.availableUntil ? unixSeconds(p.availableUntil) : 0n,
    p.purchaseLimit?.count ?? 0,
    limitPeriod,
  );
}

export function encodeProductRecord(p: Product): Uint8Array {
  return encodeTable((b) => writeRecord(b, p));
}

export function encodeProductList(products: readonly Product[]): Uint8Array {
  return encodeTable((b) => {
    const records = products.map((p) => writeRecord(b, p));
    return fb.ProductList.createProductList(b, fb.ProductList.createProductsVector(b, records));
  }, 1024);
}

/** Reads a ProductDraft table into raw editor input (validated separately). */
export function readDraft(t: InstanceType<typeof fb.ProductDraft>): RawDraft {
  const atoms: RawDraft['atoms'] = [];
  for (let i = 0; i < t.atomsLength(); i += 1) {
    const a = t.atoms(i);
    if (a) atoms.push({ kind: a.kind(), quantity: a.quantity() });
  }
  const prices: RawDraft['prices'] = [];
  for (let i = 0; i < t.pricesLength(); i += 1) {
    const p = t.prices(i);
    if (p) prices.push({ method: p.method(), amount: p.amount(), currency: p.currency() });
  }
  const texts: RawDraft['texts'] = [];
  for (let i = 0; i < t.textsLength(); i += 1) {
    const x = t.texts(i);
    if (x) texts.push({ locale: x.locale(), title: x.title(), description: x.description() });
  }
  return {
    id: t.productId(),
    title: t.title(),
    active: t.active(),
    atoms,
    prices,
    texts,
    subscriptionPeriod: t.subscriptionPeriod(),
    availableFromUnix: t.availableFromUnix(),
    availableUntilUnix: t.availableUntilUnix(),
    purchaseLimit: t.purchaseLimit(),
    purchaseLimitPeriod: t.purchaseLimitPeriod(),
  };
}
