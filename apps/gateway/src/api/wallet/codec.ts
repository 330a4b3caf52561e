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
  products: {
    product_id: bigint;
    title: string;
    description: string;
    atoms: AtomJson[];
    prices: PriceJson[];
    /** When a time-limited offer ends (unix seconds); null: not time-limited. */
    available_until_unix: number | null;
    /** Seconds of one paid period of a monthly pass (a stars subscription); null: a one-time product. */
    subscription_period_seconds: number | null;
  }[];
  purchase_methods: string[];
  email_required: boolean;
  notice: string | null;
  frozen: boolean;
  trusted: boolean;
  /** The server's clock (unix seconds) when it answered: an offer's time left is counted from it. */
  server_now_unix: number;
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
            available_until_unix: p.availableUntilUnix() === 0n ? null : Number(p.availableUntilUnix()),
            subscription_period_seconds: p.subscriptionPeriod() === 0 ? null : p.subscriptionPeriod(),
          });
      }
      return {
        products,
        purchase_methods: readStrings(t.purchaseMethodsLength(), (i) => t.purchaseMethods(i)),
        email_required: t.emailRequired(),
        notice: t.notice() || null,
        frozen: t.frozen(),
        trusted: t.trusted(),
        server_now_unix: Number(t.serverNowUnix()),
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

/**
 * One entry of the caller's history: an order (any state; `refunded` once its refund is recorded),
 * or a ledger operation that is not an order's credit. Money in the currency's minor units (stars
 * whole), chips signed; `balance_after` / `hints_after` are what the segment and origin held right
 * after a ledger operation, and `in_debt` says one of them went below zero.
 */
export interface HistoryEntryJson {
  entry_id: string;
  kind: string;
  at: string | null;
  product_id: bigint | null;
  title: string;
  rail: string | null;
  state: string;
  amount: bigint | null;
  currency: string | null;
  chips: bigint;
  hints: bigint;
  no_ads_days: bigint;
  no_ads_forever: boolean;
  segment: string | null;
  order_id: string | null;
  refunded_at: string | null;
  balance_after: bigint | null;
  hints_after: bigint | null;
  in_debt: boolean;
  receipt: boolean;
  refund_receipt: boolean;
  failure_reason: string | null;
}

/** A page of history, newest first; `next_cursor` fetches the older entries (null: none left). */
export interface HistoryJson {
  entries: HistoryEntryJson[];
  next_cursor: string | null;
}

const isoFromMs = (ms: bigint): string | null => (ms === 0n ? null : new Date(Number(ms)).toISOString());
const orNull = (s: string | null): string | null => (s === null || s === '' ? null : s);

/** Decodes a WalletHistory body. */
export function readHistory(body: Uint8Array): HistoryJson {
  return decodeTable(
    body,
    (bb) => fb.WalletHistory.getRootAsWalletHistory(bb),
    (t) => {
      const entries: HistoryEntryJson[] = [];
      for (let i = 0; i < t.entriesLength(); i++) {
        const e = t.entries(i);
        if (!e) continue;
        const ledger = e.kind() !== 'order';
        const currency = orNull(e.currency());
        entries.push({
          entry_id: e.entryId() ?? '',
          kind: e.kind() ?? '',
          at: isoFromMs(e.atUnixMs()),
          product_id: e.productId() === 0n ? null : e.productId(),
          title: e.title() ?? '',
          rail: orNull(e.rail()),
          state: e.state() ?? '',
          amount: currency === null ? null : e.amount(),
          currency,
          chips: e.chips(),
          hints: e.hints(),
          no_ads_days: e.noAdsDays(),
          no_ads_forever: e.noAdsForever(),
          segment: orNull(e.segment()),
          order_id: orNull(e.orderId()),
          refunded_at: isoFromMs(e.refundedAtUnixMs()),
          balance_after: ledger && e.chips() !== 0n ? e.balanceAfter() : null,
          hints_after: ledger && e.hints() !== 0n ? e.hintsAfter() : null,
          in_debt: ledger && ((e.chips() !== 0n && e.balanceAfter() < 0n) || (e.hints() !== 0n && e.hintsAfter() < 0n)),
          receipt: e.receipt(),
          refund_receipt: e.refundReceipt(),
          failure_reason: orNull(e.failureReason()),
        });
      }
      return { entries, next_cursor: orNull(t.nextCursor()) };
    },
  );
}
