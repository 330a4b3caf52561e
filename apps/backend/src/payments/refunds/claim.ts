import type { DomainError } from '../../rpc/index.js';
import type { PaymentDeps } from '../deps.js';
import { paymentError } from '../errors.js';
import type { OrderRow } from '../orders/orders.store.js';
import { utcText } from '../../support/index.js';
import { endRefundClaim, refundClaimOf, type HoldAfterCall, type RefundClaimInput } from './refunds.store.js';

/** How a refund press's call ended: what it leaves on the order (HoldAfterCall) and its answer, or the refusal it throws. */
export interface PressOutcome<T> {
  after: HoldAfterCall;
  answer: T | DomainError;
}

/** A claim statement: the order as claimed, or undefined when it could not be claimed. */
export type ClaimStatement = (db: PaymentDeps['db'], claim: RefundClaimInput) => Promise<OrderRow | undefined>;

/**
 * Runs one refund press while holding its order's refund claim and hold: at most one refund call
 * per order is in flight, on any replica, and from the claim on no credit path credits the order
 * (refund_hold = `key`, set in the same conditional update, before any provider or platform call).
 * The press's outcome says what its call leaves: a hold cleared (nothing moved), kept pending at the
 * provider, or kept because the outcome is unknown (a later press with the same key learns it). A
 * press that finds the order claimed makes no call (`busy` says what it is told). An unexpected
 * failure of the press keeps the hold: the refund may have been made.
 */
export async function underRefundClaim<T>(
  deps: PaymentDeps,
  orderId: string,
  operatorId: bigint | null,
  key: string,
  claim: ClaimStatement,
  press: (order: OrderRow) => Promise<PressOutcome<T>>,
  busy: () => Promise<T>,
): Promise<T> {
  const claimedAt = deps.now();
  const order = await claim(deps.db, {
    orderId,
    operatorId,
    claimedAt,
    lapsed: new Date(claimedAt.getTime() - deps.claimLeaseMs),
    key,
  });
  if (!order) return busy();
  let outcome: PressOutcome<T>;
  try {
    outcome = await press(order);
  } catch (err: unknown) {
    await endRefundClaim(deps.db, orderId, claimedAt, key, { kind: 'keep' });
    throw err;
  }
  await endRefundClaim(deps.db, orderId, claimedAt, key, outcome.after);
  if (outcome.answer instanceof Error) throw outcome.answer;
  return outcome.answer;
}

/**
 * What a console press that could not claim a paid order is told, never making a call of its own:
 * the refund id when a refund was recorded meanwhile, otherwise `refund_in_progress` naming who
 * pressed and when.
 */
export async function refundedMeanwhile(deps: PaymentDeps, orderId: string): Promise<string> {
  const row = await refundClaimOf(deps.db, orderId);
  if (row?.refund_id) return row.refund_id;
  if (!row?.refund_claimed_at) {
    if (row?.state !== 'paid') throw paymentError('order_not_paid', 'only a paid order can be refunded');
    throw paymentError('refund_in_progress', 'another refund of this order was under way just now; press again to see its outcome');
  }
  const who = row.login === null ? '' : ` by ${row.login}`;
  throw paymentError(
    'refund_in_progress',
    `a refund of this order${who} is in progress since ${utcText(row.refund_claimed_at)}; press again shortly to see its outcome (it will not refund twice)`,
  );
}
