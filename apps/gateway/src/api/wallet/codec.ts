import { decodeTable, fb } from '@wordgame/contracts';
import { isoFromUnix, readStrings } from '../fbs-read.js';
import { readAtoms, readPrices, type AtomJson, type PriceJson } from '../products.js';

/**
 * The wallet as JSON (amounts are bigints, sent as decimal strings). A balance or hint count below
 * zero is a debt left by a full refund of a pack already spent; `in_debt` says so explicitly, and
 * nothing is spent from it until credits bring it back above zero.
 */
export interface WalletJson {
  segments: { segment: string; balance: bigint; in_debt: boolean }[];
  benefits: { origin: string; no_ads_until: string | null; no_ads_forever: boolean; hints: bigint; in_debt: boolean }[];
  spend_order: string[];
  can_spend: boolean;
  frozen: boolean;
  trusted: boolean;
}

/** The catalog projected for the caller's context. */
export interface CatalogJson {
  /** Title and description in the request's language (Accept-Language; English otherwise). */
  products: { product_id: bigint; title: string; description: string; atoms: AtomJson[]; prices: PriceJson[] }[];
  purchase_methods: string[];
  email_required: boolean;
  notice: string | null;
  frozen: boolean;
  trusted: boolean;
}

/** The result of a chip purchase; `replayed` marks the stored first result of a repeated Idempotency-Key. */
export interface PurchaseJson {
  product_id: bigint;
  price: bigint;
  draws: { segment: string; amount: bigint }[];
  benefit_origin: string;
  wallet: WalletJson | null;
  replayed: boolean;
}

function walletOf(t: InstanceType<typeof fb.WalletView>): WalletJson {
  const segments: WalletJson['segments'] = [];
  for (let i = 0; i < t.segmentsLength(); i++) {
    const s = t.segments(i);
    if (s) segments.push({ segment: s.segment() ?? '', balance: s.balance(), in_debt: s.balance() < 0n });
  }
  const benefits: WalletJson['benefits'] = [];
  for (let i = 0; i < t.benefitsLength(); i++) {
    const x = t.benefits(i);
    if (x)
      benefits.push({
        origin: x.origin() ?? '',
        no_ads_until: isoFromUnix(x.noAdsUntilUnix()),
        no_ads_forever: x.noAdsForever(),
        hints: x.hints(),
        in_debt: x.hints() < 0n,
      });
  }
  return {
    segments,
    benefits,
    spend_order: readStrings(t.spendOrderLength(), (i) => t.spendOrder(i)),
    can_spend: t.canSpend(),
    frozen: t.frozen(),
    trusted: t.trusted(),
  };
}

/** Decodes a WalletView body. */
export function readWallet(body: Uint8Array): WalletJson {
  return decodeTable(body, (bb) => fb.WalletView.getRootAsWalletView(bb), walletOf);
}

/** Decodes a WalletCatalog body. */
export function readCatalog(body: Uint8Array): CatalogJson {
  return decodeTable(
    body,
    (bb) => fb.WalletCatalog.getRootAsWalletCatalog(bb),
    (t) => {
      const products: CatalogJson['products'] = [];
      for (let i = 0; i < t.productsLength(); i++) {
        const p = t.products(i);
        if (p)
          products.push({
            product_id: p.productId(),
            title: p.title() ?? '',
            description: p.description() ?? '',
            atoms: readAtoms(p),
            prices: readPrices(p),
          });
      }
      return {
        products,
        purchase_methods: readStrings(t.purchaseMethodsLength(), (i) => t.purchaseMethods(i)),
        email_required: t.emailRequired(),
        notice: t.notice() || null,
        frozen: t.frozen(),
        trusted: t.trusted(),
      };
    },
  );
}

/** Decodes a WalletPurchase body. */
export function readPurchase(body: Uint8Array): PurchaseJson {
  return decodeTable(
    body,
    (bb) => fb.WalletPurchase.getRootAsWalletPurchase(bb),
    (t) => {
      const draws: PurchaseJson['draws'] = [];
      for (let i = 0; i < t.drawsLength(); i++) {
        const d = t.draws(i);
        if (d) draws.push({ segment: d.segment() ?? '', amount: d.amount() });
      }
      const wallet = t.wallet();
      return {
        product_id: t.productId(),
        price: t.price(),
        draws,
        benefit_origin: t.benefitOrigin() ?? '',
        wallet: wallet ? walletOf(wallet) : null,
        replayed: t.replayed(),
      };
    },
  );
}
