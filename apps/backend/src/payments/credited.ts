import type { OrderRow } from './orders/orders.store.js';
import { notifyPaymentCredited } from './credit-notice.js';
import type { PaymentDeps } from './deps.js';
import { reportLimitBreach } from './orders/limit.js';

/**
 * What follows a credit, once the credit has committed: count it (by rail, with the time since the
 * order was created) and tell the customer. Call it only with the row a credit statement returned:
 * that statement matches an order once, so a replayed ForwardPayment, a duplicate provider
 * notification or the reaper re-reading a paid order never gets here again, and the customer is
 * told once per credit. The notice, and the check that the credit did not take the player past the
 * product's purchase limit (reported, never refused), run in the background; the caller's answer
 * does not wait for them.
 */
export function onCredited(deps: PaymentDeps, paid: OrderRow): void {
  const paidAt = paid.paid_at ?? deps.now();
  deps.metrics.credited(paid.rail, (paidAt.getTime() - paid.created_at.getTime()) / 1000);
  void reportLimitBreach(deps, paid);
  void notifyPaymentCredited(deps, {
    accountId: paid.account_id,
    orderId: paid.id,
    rail: paid.rail,
    title: paid.title,
    productId: paid.product_id,
    chips: paid.chips,
  });
}
