import type { Builder } from 'flatbuffers';
import { encodeTable, fb } from '@wordgame/contracts';
import { writeAtoms, writePrices } from '../catalog/index.js';
import { stringVector, unixSeconds } from '../rpc/index.js';
import type { CatalogViewData } from './catalog-view.js';
import type { PurchaseResult } from './purchase-record.js';
import type { WalletViewData } from './view.js';

function writeWallet(b: Builder, w: WalletViewData): number {
  const segments = fb.WalletView.createSegmentsVector(
    b,
    w.segments.map((s) => fb.SegmentBalance.createSegmentBalance(b, b.createString(s.segment), s.balance)),
  );
  const benefits = fb.WalletView.createBenefitsVector(
    b,
    w.benefits.map((x) =>
      fb.BenefitBalance.createBenefitBalance(b, b.createString(x.origin), unixSeconds(x.noAdsUntil), x.noAdsForever, x.hints),
    ),
  );
  const order = stringVector(b, w.spendOrder, (bb, d) => fb.WalletView.createSpendOrderVector(bb, d));
  return fb.WalletView.createWalletView(b, segments, benefits, order, w.canSpend, w.frozen, w.trusted);
}

/** FlatBuffers body of a WalletView. */
export function encodeWalletView(w: WalletViewData): Uint8Array {
  return encodeTable((b) => writeWallet(b, w));
}

/** FlatBuffers body of a WalletPurchase. */
export function encodePurchase(p: PurchaseResult & { replayed: boolean }): Uint8Array {
  return encodeTable((b) => {
    const draws = fb.WalletPurchase.createDrawsVector(
      b,
      p.draws.map((d) => fb.SegmentDraw.createSegmentDraw(b, b.createString(d.segment), d.amount)),
    );
    const origin = b.createString(p.benefitOrigin);
    const wallet = writeWallet(b, p.wallet);
    fb.WalletPurchase.startWalletPurchase(b);
    fb.WalletPurchase.addProductId(b, p.productId);
    fb.WalletPurchase.addPrice(b, p.price);
    fb.WalletPurchase.addDraws(b, draws);
    fb.WalletPurchase.addBenefitOrigin(b, origin);
    fb.WalletPurchase.addWallet(b, wallet);
    fb.WalletPurchase.addReplayed(b, p.replayed);
    return fb.WalletPurchase.endWalletPurchase(b);
  });
}

/** FlatBuffers body of a WalletCatalog. */
export function encodeCatalog(c: CatalogViewData): Uint8Array {
  return encodeTable((b) => {
    const items = c.products.map((p) => {
      const title = b.createString(p.title);
      const atoms = fb.WalletCatalogItem.createAtomsVector(b, writeAtoms(b, p.atoms));
      const prices = fb.WalletCatalogItem.createPricesVector(b, writePrices(b, p.prices));
      const description = b.createString(p.description);
      return fb.WalletCatalogItem.createWalletCatalogItem(
        b,
        p.id,
        title,
        atoms,
        prices,
        description,
        unixSeconds(p.availableUntil),
        p.subscriptionPeriodSeconds ?? 0,
      );
    });
    const products = fb.WalletCatalog.createProductsVector(b, items);
    const methods = stringVector(b, c.purchaseMethods, (bb, d) => fb.WalletCatalog.createPurchaseMethodsVector(bb, d));
    const notice = b.createString(c.notice);
    return fb.WalletCatalog.createWalletCatalog(b, products, methods, c.emailRequired, notice, c.frozen, c.trusted, unixSeconds(c.now));
  }, 1024);
}
