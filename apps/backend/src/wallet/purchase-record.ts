import { isSegment, type Segment } from '../gate/index.js';
import type { Draw } from './draw.js';
import type { WalletViewData } from './view.js';

/** The result of a chip purchase; stored as the first result of an idempotency key. */
export interface PurchaseResult {
  productId: bigint;
  price: bigint;
  draws: Draw[];
  benefitOrigin: Segment;
  wallet: WalletViewData;
}

/** JSON for the buy_requests.result column (bigints and dates as strings). */
export function serializePurchase(p: PurchaseResult): string {
  return JSON.stringify(p, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

function segment(v: unknown): Segment {
  if (typeof v !== 'string' || !isSegment(v)) throw new Error(`stored purchase names unknown segment ${String(v)}`);
  return v;
}
const big = (v: unknown): bigint => {
  if (typeof v !== 'string' && typeof v !== 'number') throw new Error(`stored purchase holds a non-integer ${typeof v}`);
  return BigInt(v);
};

/** Reads a stored purchase back (jsonb arrives parsed on both dialects; text is parsed here). */
export function deserializePurchase(stored: unknown): PurchaseResult {
  const p = (typeof stored === 'string' ? JSON.parse(stored) : stored) as Record<string, unknown>;
  const w = p['wallet'] as Record<string, unknown>;
  const list = (v: unknown) => v as Array<Record<string, unknown>>;
  return {
    productId: big(p['productId']),
    price: big(p['price']),
    draws: list(p['draws']).map((d) => ({ segment: segment(d['segment']), amount: big(d['amount']) })),
    benefitOrigin: segment(p['benefitOrigin']),
    wallet: {
      segments: list(w['segments']).map((s) => ({ segment: segment(s['segment']), balance: big(s['balance']) })),
      benefits: list(w['benefits']).map((b) => ({
        origin: segment(b['origin']),
        noAdsUntil: typeof b['noAdsUntil'] === 'string' ? new Date(b['noAdsUntil']) : null,
        noAdsForever: b['noAdsForever'] === true,
        hints: big(b['hints']),
      })),
      spendOrder: (w['spendOrder'] as unknown[]).map(segment),
      canSpend: w['canSpend'] === true,
      frozen: w['frozen'] === true,
      trusted: w['trusted'] === true,
    },
  };
}
