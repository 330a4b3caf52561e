import { fb } from '@wordgame/contracts';
import type { Builder } from './fbs-read.js';

/** One building block of a product, as JSON: quantity is a bigint (a decimal string on the wire). */
export interface AtomJson {
  kind: string;
  quantity: bigint;
}

/** One way to pay for a product, as JSON: amount in the currency's minor (or whole) units. */
export interface PriceJson {
  method: string;
  amount: bigint;
  currency: string;
}

/** Atom kinds the catalog knows (fbs/catalog.fbs). */
export const ATOM_KINDS = ['chips', 'no_ads_days', 'no_ads_forever', 'hints'] as const;
/** Payment methods the catalog knows (fbs/catalog.fbs). */
export const PRICE_METHODS = ['chips', 'provider', 'xtr'] as const;

interface AtomsAndPrices {
  atomsLength(): number;
  atoms(index: number): InstanceType<typeof fb.ProductAtom> | null;
  pricesLength(): number;
  prices(index: number): InstanceType<typeof fb.ProductPrice> | null;
}

/** Reads a table's atom vector. */
export function readAtoms(t: AtomsAndPrices): AtomJson[] {
  const out: AtomJson[] = [];
  for (let i = 0; i < t.atomsLength(); i++) {
    const a = t.atoms(i);
    if (a) out.push({ kind: a.kind() ?? '', quantity: a.quantity() });
  }
  return out;
}

/** Reads a table's price vector. */
export function readPrices(t: AtomsAndPrices): PriceJson[] {
  const out: PriceJson[] = [];
  for (let i = 0; i < t.pricesLength(); i++) {
    const p = t.prices(i);
    if (p) out.push({ method: p.method() ?? '', amount: p.amount(), currency: p.currency() ?? '' });
  }
  return out;
}

/** Writes atoms as a vector of ProductAtom tables; returns the vector offset. */
export function writeAtoms(b: Builder, atoms: readonly AtomJson[]): number {
  const offsets = atoms.map((a) => fb.ProductAtom.createProductAtom(b, b.createString(a.kind), a.quantity));
  return fb.ProductDraft.createAtomsVector(b, offsets);
}

/** Writes prices as a vector of ProductPrice tables; returns the vector offset. */
export function writePrices(b: Builder, prices: readonly PriceJson[]): number {
  const offsets = prices.map((p) => fb.ProductPrice.createProductPrice(b, b.createString(p.method), p.amount, b.createString(p.currency)));
  return fb.ProductDraft.createPricesVector(b, offsets);
}
