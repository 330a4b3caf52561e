import type { Transaction } from 'kysely';
import type { Logger } from '@wordgame/logging';
import type { DB } from '../../db/index.js';
import { postRefund } from '../../ledger/index.js';
import { lockSubscriptionOfOrder, refundPeriod } from '../../subscriptions/index.js';
import { orderForUpdate, recordEvent } from '../orders/orders.store.js';
import { closeRefundedUncredited, markOrderRefunded } from './refunds.store.js';

/**
 * What recording a full refund did: `recorded` (a credited order reversed), `closed_uncredited` (a
 * never credited order closed as refunded: nothing to reverse), `already_refunded`, `no_order`.
 */
export type RefundRecord = 'recorded' | 'closed_uncredited' | 'already_refunded' | 'no_order';

/**
 * Records a provider-confirmed full refund of an order's payment exactly once, the one place every
 * refund path (console, reconciliation, notification, reaper) ends in. A never credited order is
 * closed as refunded (state failed, reason `refunded`: nothing to reverse, and nothing can credit it
 * any more). A credited order — also one credited while its refund was pending — has exactly what
 * the pack funded revoked, in the caller's transaction (order row locked first, then its segment, then its
 * benefits: the order crediting and wallet.buy use):
 * - chips: the funded segment is debited by the pack's chips in full; when some were already
 *   spent the balance goes below zero, a debt (nothing is drawn from it; a later credit adds to it);
 * - hints: the origin's hints drop by the pack's hints in full, below zero when some were used;
 * - no-ads days: the term end moves back by exactly the pack's days, also when the term has
 *   already lapsed (no-ads then simply stays off; days are not carried as a debt, a later grant
 *   runs from its own time as usual);
 * - no-ads forever: revoked, unless another unrefunded grant of the same origin still holds it;
 * - a stars subscription's period (the order's `pass_until`): the pass moves back to the latest
 *   period another unrefunded charge paid for (none: no pass), and so does its subscription's
 *   paid_until (its row locked before the wallet, the order a renewal locks in).
 * One `refund` ledger row carries it (the full negative deltas, revoked days/forever as positive
 * markers, negative money snapshot; its note names a debt it created, which is also logged as a
 * warning), so the ledger audit stays exact. Unique (provider, refund_id) and (order_id, kind) make
 * a second record impossible, and the order keeps the refund id.
 */
export async function recordRefund(
  trx: Transaction<DB>,
  logger: Logger,
  orderId: string,
  refundId: string,
  now: Date,
): Promise<RefundRecord> {
  const order = await orderForUpdate(trx, orderId);
  if (!order) return 'no_order';
  if (order.refund_id !== null) return 'already_refunded';
  if (order.state !== 'paid') {
    if (!(await closeRefundedUncredited(trx, order.id, refundId, now))) return 'already_refunded';
    await recordEvent(trx, order.id, 'refunded', refundId);
    logger.info({ orderId: order.id, refundId }, 'refund of a never credited order recorded; nothing to reverse');
    return 'closed_uncredited';
  }

  const period = order.pass_until !== null && (await lockSubscriptionOfOrder(trx, order.id));
  const { balance, benefits, debts } = await postRefund(trx, order, refundId, now);
  if (period) await refundPeriod(trx, order.id, now);
  await markOrderRefunded(trx, order.id, refundId, now);
  await recordEvent(trx, order.id, 'refunded', refundId);
  if (debts.length > 0) {
    logger.warn(
      {
        accountId: String(order.account_id),
        orderId: order.id,
        refundId,
        segment: order.segment,
        balance: balance === null ? undefined : String(balance),
        hints: benefits === null ? undefined : String(benefits.hints),
      },
      'refund left the wallet in debt (already spent)',
    );
  }
  logger.info({ orderId: order.id, refundId, chips: String(order.chips), hints: String(order.hints) }, 'refund recorded');
  return 'recorded';
}
