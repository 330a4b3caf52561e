import type { Transaction } from 'kysely';
import type { DB } from '../../db/index.js';
import { onOffer, periodStart, type Product, type PurchaseLimit } from '../../catalog/index.js';
import { DomainError } from '../../rpc/index.js';
import type { PaymentDeps } from '../deps.js';
import { lockPurchaseLimit, paidPurchasesBetween, purchasesSince, type OrderRow } from './orders.store.js';

/**
 * Refuses an order for a product outside its offer window at `now` (`offer_not_available`). Only
 * order creation checks it: an order opened inside the window stays payable for its lifetime,
 * so crediting never looks at the window.
 */
export function requireOnOffer(deps: PaymentDeps, product: Product, now: Date): void {
  if (onOffer(product, now)) return;
  deps.metrics.offerRefused('offer_not_available', 'order');
  throw new DomainError('offer_not_available', 'this offer is not available now');
}

/**
 * Inside the order insert's transaction: for a product with a purchase limit, takes the
 * (account, product) advisory lock, then counts the player's paid and live pending orders and chips
 * purchases of it in the limit period holding `now`, refusing at the limit (`purchase_limit_reached`).
 * The lock is held to commit, so a racing order counts this one. A product without a limit costs nothing.
 */
export async function requireUnderLimit(
  trx: Transaction<DB>,
  deps: PaymentDeps,
  accountId: bigint,
  product: Pick<Product, 'id' | 'purchaseLimit'>,
  now: Date,
): Promise<void> {
  const limit = product.purchaseLimit;
  if (limit === null) return;
  await lockPurchaseLimit(trx, accountId, product.id);
  if ((await purchasesSince(trx, accountId, product.id, periodStart(limit.period, now), now)) < limit.count) return;
  deps.metrics.offerRefused('purchase_limit_reached', 'order');
  throw new DomainError('purchase_limit_reached', limitMessage(limit));
}

/** Where the period starting at `start` ends (the next one's start); far future for `ever`. */
function periodEnd(period: PurchaseLimit['period'], start: Date | null): Date {
  if (start === null) return new Date(8_640_000_000_000_000);
  const y = start.getUTCFullYear();
  const m = start.getUTCMonth();
  const d = start.getUTCDate();
  if (period === 'day') return new Date(Date.UTC(y, m, d + 1));
  if (period === 'week') return new Date(Date.UTC(y, m, d + 7));
  return new Date(Date.UTC(y, m + 1, 1));
}

function limitMessage(limit: PurchaseLimit): string {
  const per = limit.period === 'ever' ? '' : ` per ${limit.period}`;
  return `this product may be bought ${limit.count} time${limit.count === 1 ? '' : 's'}${per}; the limit is reached`;
}

/**
 * After a credit has committed: when the order's product has a purchase limit and the player's paid
 * purchases of it in the order's period (up to and including this order) now exceed it, counts the
 * breach and logs it with the order id. The order stays credited (money is conserved): it was opened
 * before the limit was lowered, or its charge arrived anyway. Never throws (logged).
 */
export async function reportLimitBreach(deps: PaymentDeps, paid: OrderRow): Promise<void> {
  try {
    const limit = await deps.catalog.purchaseLimit(paid.product_id);
    if (limit === null) return;
    const since = periodStart(limit.period, paid.created_at);
    const until = periodEnd(limit.period, since);
    const count = await paidPurchasesBetween(deps.db, paid.account_id, paid.product_id, since, until);
    if (count <= limit.count) return;
    deps.metrics.limitBreached(paid.rail);
    deps.logger.warn(
      { orderId: paid.id, productId: String(paid.product_id), limit: limit.count, period: limit.period, purchases: count },
      'credited an order beyond the product purchase limit',
    );
  } catch (err: unknown) {
    deps.logger.error({ err, orderId: paid.id }, 'purchase limit check after a credit failed');
  }
}
