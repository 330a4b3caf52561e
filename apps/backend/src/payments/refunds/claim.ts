import type { PaymentDeps } from '../deps.js';
import { paymentError } from '../errors.js';
import type { OrderRow } from '../orders/repository.js';
import { utcText } from '../../support/index.js';
import { claimOrderRefund, refundClaimOf, releaseOrderRefund } from './store.js';

/** A console refund's hold on its order: the order as claimed, and the claim's time (its token). */
interface RefundClaim {
  order: OrderRow;
  claimedAt: Date;
}

/**
 * Runs one console refund press while holding its order's refund claim, released with the outcome:
 * at most one provider or platform refund call per order is in flight, on any replica. A press
 * that finds the order claimed makes no call: it answers `recorded` with the refund id when the
 * other press's refund was recorded meanwhile, and refund_in_progress otherwise (refundedMeanwhile).
 * `press` gets the order as claimed (its current refund attempt).
 */
export async function underRefundClaim<T>(
  deps: PaymentDeps,
  orderId: string,
  operatorId: bigint | null,
  press: (order: OrderRow) => Promise<T>,
  recorded: (refundId: string) => T,
): Promise<T> {
  const claim = await claimRefund(deps, orderId, operatorId);
  if (!claim) return recorded(await refundedMeanwhile(deps, orderId));
  try {
    return await press(claim.order);
  } finally {
    await releaseRefund(deps, claim);
  }
}

/**
 * Claims a paid, unrefunded order for one console refund press, in one conditional update before
 * any provider or platform call: at most one press per order holds it at a time, on any replica.
 * A claim older than `claimLeaseMs` belonged to a press that died and is taken over. Answers null
 * when another press holds it or the order is no longer refundable.
 */
async function claimRefund(deps: PaymentDeps, orderId: string, operatorId: bigint | null): Promise<RefundClaim | null> {
  const claimedAt = deps.now();
  const lapsed = new Date(claimedAt.getTime() - deps.claimLeaseMs);
  const order = await claimOrderRefund(deps.db, orderId, operatorId, claimedAt, lapsed);
  return order ? { order, claimedAt } : null;
}

/** Ends a claim once its press has its outcome (recorded or not); a claim taken over meanwhile is left alone. */
async function releaseRefund(deps: PaymentDeps, claim: RefundClaim): Promise<void> {
  await releaseOrderRefund(deps.db, claim.order.id, claim.claimedAt);
}

/**
 * What a press that found the order claimed is told, never making a call of its own: the refund
 * id when the other press's refund was recorded meanwhile, otherwise `refund_in_progress` naming
 * who pressed and when.
 */
async function refundedMeanwhile(deps: PaymentDeps, orderId: string): Promise<string> {
  const row = await refundClaimOf(deps.db, orderId);
  if (row?.refund_id) return row.refund_id;
  if (!row?.refund_claimed_at)
    throw paymentError('refund_in_progress', 'another refund of this order was under way just now; press again to see its outcome');
  const who = row.login === null ? '' : ` by ${row.login}`;
  throw paymentError(
    'refund_in_progress',
    `a refund of this order${who} is in progress since ${utcText(row.refund_claimed_at)}; press again shortly to see its outcome (it will not refund twice)`,
  );
}
