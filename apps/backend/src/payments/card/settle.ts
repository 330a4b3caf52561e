import { creditOrder } from '../orders/credit.js';
import { findOrder, recordEvent, type OrderRow } from '../orders/orders.store.js';
import type { PaymentDeps } from '../deps.js';
import { onCredited } from '../credited.js';
import { notifyPaymentFailed } from './notify.js';
import { handled, ignored, type Disposition } from './disposition.js';
import { failCanceledOrder } from './card.store.js';
import type { ProviderPayment, Shop } from './provider/types.js';

/**
 * Acts on a payment as re-read from the provider (never on a notification body), for the order it
 * was found through. Guards first: the payment's metadata must name the order, its test flag must
 * equal the shop's (a test payment never credits real chips), and it must be the order's recorded
 * payment when one is recorded. Then: succeeded with the order's amount and currency -> credit once
 * (never while a refund of the order is in flight: `refund_in_flight`);
 * canceled -> the order fails once (a `failed` event) and the customer is told; anything else is
 * not settled yet.
 */
export async function settleFromProvider(deps: PaymentDeps, order: OrderRow, shop: Shop, payment: ProviderPayment): Promise<Disposition> {
  const log = { orderId: order.id, paymentId: payment.id, status: payment.status };
  if (payment.metadata['order_id'] !== order.id) {
    deps.logger.warn(log, 'provider payment does not name this order; ignored');
    return ignored('metadata_mismatch');
  }
  if (payment.test !== shop.test) {
    deps.logger.warn(
      { ...log, paymentTest: payment.test, shopTest: shop.test },
      'provider payment test flag differs from the shop; ignored',
    );
    return ignored('test_flag_mismatch');
  }
  if (order.provider_payment_id !== null && order.provider_payment_id !== payment.id) {
    deps.logger.warn(log, 'provider payment is not the one recorded on the order; ignored');
    return ignored('payment_mismatch');
  }
  const now = deps.now();
  if (payment.status === 'succeeded') {
    if (payment.amountMinor !== order.amount || payment.currency !== order.currency) {
      deps.logger.error(
        { ...log, amount: String(payment.amountMinor), currency: payment.currency },
        'provider payment amount differs from the order; not credited',
      );
      return ignored('amount_mismatch');
    }
    if (payment.refundedMinor > 0n && order.state !== 'paid') {
      deps.logger.warn(log, 'provider payment was refunded before it was credited; not credited');
      return ignored('refunded_before_credit');
    }
    const paid = await deps.db.transaction().execute((trx) => creditOrder(trx, order.id, { providerPaymentId: payment.id }, now));
    if (paid) {
      deps.logger.info({ ...log, accountId: String(paid.account_id) }, 'card payment credited');
      onCredited(deps, paid);
      return handled('credited');
    }
    const current = await findOrder(deps.db, order.id);
    if (current !== undefined && current.state !== 'paid' && current.refund_hold !== null) {
      deps.logger.info(log, 'card payment not credited: a refund of it is in flight');
      return handled('refund_in_flight');
    }
    return handled('already_settled');
  }
  if (payment.status === 'canceled') {
    const reason = payment.cancellation?.reason ?? 'canceled';
    const failed = await deps.db.transaction().execute(async (trx) => {
      const row = await failCanceledOrder(trx, order.id, reason, payment.id);
      if (row) await recordEvent(trx, order.id, 'failed', `${payment.cancellation?.party ?? 'provider'}:${reason}`);
      return row;
    });
    if (!failed) return handled('already_settled');
    deps.logger.info({ ...log, reason }, 'card payment canceled; order failed');
    void notifyPaymentFailed(deps, { accountId: failed.account_id, orderId: order.id, title: order.title, reason });
    return handled('failed');
  }
  return handled('not_settled');
}
