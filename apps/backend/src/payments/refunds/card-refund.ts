import type { PaymentDeps } from '../deps.js';
import type { OrderRow } from '../orders/orders.store.js';
import { ProviderError, type CreateRefundInput, type PaymentProvider, type ProviderRefund, type Shop } from '../card/provider/types.js';
import { recordRefund, type RefundRecord } from './reverse.js';
import { clearCanceledHold } from './refunds.store.js';

/** One provider refund call's answer: the refund (its status current), or why there is none. */
export type RefundAsked = { refund: ProviderRefund } | { failure: 'unavailable' | 'refused'; error: ProviderError };

/**
 * Asks the provider for a refund under `key` and answers its current status: a replayed key
 * returns the first answer, so a pending answer is re-read once. `unavailable` means no answer (the
 * refund may exist: the hold stays); `refused` means the provider refused it (nothing moved).
 * Errors other than the provider's propagate.
 */
export async function askRefund(provider: PaymentProvider, shop: Shop, request: CreateRefundInput, key: string): Promise<RefundAsked> {
  try {
    let refund = await provider.createRefund(shop, request, key);
    if (refund.status === 'pending') refund = await provider.getRefund(shop, refund.id);
    return { refund };
  } catch (err: unknown) {
    if (!(err instanceof ProviderError)) throw err;
    return { failure: err.failure === 'unavailable' ? 'unavailable' : 'refused', error: err };
  }
}

/** What a provider refund, as re-read, did to its order (applyCardRefund). */
export type RefundApplied = RefundRecord | 'pending' | 'canceled' | 'partial' | 'mismatch';

/**
 * Acts on a card refund as re-read from the provider for the order it was found through (a
 * notification, a reaper re-read of a held pending refund): the one place those paths move the
 * order's money. A refund of another payment is a mismatch; pending changes nothing (the hold, if
 * any, stays); canceled frees the order of the hold that refund had; a partial refund records nothing
 * (an operator decides); a full succeeded refund is recorded once (recordRefund: a credited order is
 * reversed, a never credited one closed as refunded).
 */
export async function applyCardRefund(deps: PaymentDeps, order: OrderRow, refund: ProviderRefund): Promise<RefundApplied> {
  const log = { orderId: order.id, refundId: refund.id, paymentId: refund.paymentId };
  if (refund.paymentId !== order.provider_payment_id) {
    deps.logger.warn(log, 'refund does not belong to the order it was named with; ignored');
    return 'mismatch';
  }
  if (refund.status === 'pending') return 'pending';
  if (refund.status === 'canceled') {
    if (await clearCanceledHold(deps.db, order.id, refund.id))
      deps.logger.info(log, 'held refund canceled by the provider; order free again');
    return 'canceled';
  }
  if (refund.amountMinor !== order.amount || refund.currency !== order.currency) {
    deps.logger.warn(
      { ...log, amount: String(refund.amountMinor), orderAmount: String(order.amount) },
      'partial refund: nothing recorded; an operator decides',
    );
    return 'partial';
  }
  return recordCardRefund(deps, order, refund.id);
}

/** Records a full succeeded card refund of `order` (recordRefund) and counts a reversal. */
export async function recordCardRefund(deps: PaymentDeps, order: OrderRow, refundId: string): Promise<RefundRecord> {
  const recorded = await deps.db.transaction().execute((trx) => recordRefund(trx, deps.logger, order.id, refundId, deps.now()));
  if (recorded === 'recorded') deps.metrics.refunded(order.rail);
  return recorded;
}
