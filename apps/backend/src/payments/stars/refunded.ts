import { isOrderId } from '../errors.js';
import type { PaymentDeps } from '../deps.js';
import { orderForUpdate, recordEvent } from '../orders/orders.store.js';
import { isCreditable, STARS_PROVIDER } from '../orders/state.js';
import { recordRefund } from '../refunds/reverse.js';
import { closeRefundedUncredited } from '../refunds/refunds.store.js';
import {
  insertRefundedCharge,
  markUnmatchedRefunded,
  orderByChargeForUpdate,
  touchOrder,
  unmatchedByChargeForUpdate,
} from './stars.store.js';

/** A refunded_payment as the bot forwards it: a stars charge the platform returned to its payer outside our refund flow. */
export interface PlatformRefundInput {
  orderId: string;
  platformChargeId: string;
  amount: bigint;
  platformUserId: bigint;
}

/**
 * What a forwarded platform refund did: `reversed` (a credited order's pack revoked now), `returned`
 * (a charge that credited nothing is now on record as refunded), `already` (recorded before: a second
 * delivery, or our own refund of it), `unknown` (a charge of no order of ours, recorded for an operator).
 */
export type PlatformRefundOutcome = 'reversed' | 'returned' | 'already' | 'unknown';

/** unmatched_payments.reason of a refunded charge of no order of ours (an operator looks into it). */
export const REFUNDED_UNKNOWN = 'refunded_unknown';
/** unmatched_payments.reason of a charge the platform refunded before it credited its order. */
export const REFUNDED_BEFORE_CREDIT = 'refunded_before_credit';

/**
 * ForwardRefund: applies a refund the platform made on its own (Telegram support, say), idempotent on
 * the charge id, in one transaction under the named order's row lock (the lock ForwardPayment and
 * the console refund take), so it serialises with every path that credits or refunds that order:
 * - the charge credited an order: the refund is recorded by the one rule of every full refund
 *   (recordRefund under the charge id as refund id: exactly what the pack funded is revoked, debt
 *   allowed). An order already refunded (by us, e.g. a console refund whose hold is still set, or by
 *   an earlier delivery) changes nothing: one refund id per order, never two reversals;
 * - the charge is recorded as unmatched (being returned, or returned): it is marked refunded, once,
 *   and its automatic return stops;
 * - the charge credited nothing yet (its payment still in the bot's outbox): it is recorded as
 *   unmatched and already refunded, so its later ForwardPayment credits nothing, and the still
 *   creditable order is closed as refunded (failed, reason `refunded`), nothing to reverse;
 * - no stars order of ours is named: recorded as unmatched and refunded for an operator, `unknown`.
 * Each case leaves what the stars reconciliation expects of a refund (the order's refund id or the
 * unmatched row's refunded state under the charge id), so it reports nothing for it.
 */
export async function forwardRefund(deps: PaymentDeps, r: PlatformRefundInput): Promise<PlatformRefundOutcome> {
  const now = deps.now();
  type Decided = { kind: PlatformRefundOutcome; orderId?: string; fresh?: boolean };
  const outcome = await deps.db.transaction().execute(async (trx): Promise<Decided> => {
    const named = isOrderId(r.orderId) ? await orderForUpdate(trx, r.orderId) : undefined;
    const credited = await orderByChargeForUpdate(trx, r.platformChargeId);
    if (credited) {
      if (credited.refund_id !== null) return { kind: 'already', orderId: credited.id };
      const recorded = await recordRefund(trx, deps.logger, credited.id, r.platformChargeId, now);
      return { kind: recorded === 'recorded' ? 'reversed' : 'already', orderId: credited.id };
    }
    const unmatched = await unmatchedByChargeForUpdate(trx, r.platformChargeId);
    if (unmatched) {
      const changed = await markUnmatchedRefunded(trx, unmatched.id, now);
      if (unmatched.reason === REFUNDED_UNKNOWN) return { kind: 'unknown' };
      return { kind: changed ? 'returned' : 'already' };
    }
    const ours = named !== undefined && named.rail === 'stars';
    if (ours && isCreditable(named.state)) await touchOrder(trx, named.id);
    const fresh = await insertRefundedCharge(
      trx,
      {
        provider: STARS_PROVIDER,
        platform_charge_id: r.platformChargeId,
        order_id: r.orderId.slice(0, 200),
        amount: r.amount,
        platform_user_id: r.platformUserId,
        reason: ours ? REFUNDED_BEFORE_CREDIT : REFUNDED_UNKNOWN,
      },
      now,
    );
    if (!ours) return { kind: 'unknown', fresh };
    if (
      isCreditable(named.state) &&
      named.refund_hold === null &&
      (await closeRefundedUncredited(trx, named.id, r.platformChargeId, now))
    ) {
      await recordEvent(trx, named.id, 'refunded', r.platformChargeId);
    }
    return { kind: 'returned', orderId: named.id };
  });
  const log = { orderId: outcome.orderId ?? r.orderId.slice(0, 200), platformChargeId: r.platformChargeId, outcome: outcome.kind };
  if (outcome.kind === 'reversed') {
    deps.metrics.refunded('stars');
    deps.logger.info(log, 'stars refund made by the platform recorded; the pack is reversed');
  } else if (outcome.kind === 'returned') {
    deps.logger.info(log, 'stars refund made by the platform recorded on a charge that credited nothing');
  } else if (outcome.kind === 'unknown' && outcome.fresh === true) {
    deps.metrics.unmatched('stars', 'unknown_order');
    deps.logger.warn(log, 'stars refund made by the platform names no order of ours; recorded for an operator');
  }
  return outcome.kind;
}
