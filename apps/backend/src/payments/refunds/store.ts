import type { Kysely, Selectable, Transaction, Updateable } from 'kysely';
import type { DB } from '../../db/index.js';
import type { OrderRow } from '../orders/repository.js';
import type { UnmatchedPaymentsTable } from '../payments.table.js';

type Db = Kysely<DB> | Transaction<DB>;

/**
 * Claims a paid, unrefunded order for one console refund press at `claimedAt`, in one conditional
 * update: only when no claim holds it or its claim was made at or before `lapsed`. Answers the
 * order as claimed, or undefined when another press holds it or it is no longer refundable.
 */
export async function claimOrderRefund(
  db: Db,
  orderId: string,
  operatorId: bigint | null,
  claimedAt: Date,
  lapsed: Date,
): Promise<OrderRow | undefined> {
  return db
    .updateTable('orders')
    .set({ refund_claimed_at: claimedAt, refund_claimed_by: operatorId })
    .where('id', '=', orderId)
    .where('state', '=', 'paid')
    .where('refund_id', 'is', null)
    .where((w) => w.or([w('refund_claimed_at', 'is', null), w('refund_claimed_at', '<=', lapsed)]))
    .returningAll()
    .executeTakeFirst();
}

/** Clears an order's refund claim when it is still the one made at `claimedAt`; a claim taken over meanwhile is left alone. */
export async function releaseOrderRefund(db: Db, orderId: string, claimedAt: Date): Promise<void> {
  await db
    .updateTable('orders')
    .set({ refund_claimed_at: null, refund_claimed_by: null })
    .where('id', '=', orderId)
    .where('refund_claimed_at', '=', claimedAt)
    .execute();
}

/** An order's refund id and refund claim, with the login of the claiming operator (null when none); undefined when no such order. */
export async function refundClaimOf(
  db: Db,
  orderId: string,
): Promise<{ refund_id: string | null; refund_claimed_at: Date | null; login: string | null } | undefined> {
  return db
    .selectFrom('orders')
    .leftJoin('operators', 'operators.id', 'orders.refund_claimed_by')
    .select(['orders.refund_id', 'orders.refund_claimed_at', 'operators.login'])
    .where('orders.id', '=', orderId)
    .executeTakeFirst();
}

/**
 * Moves an unrefunded order to its next refund attempt after the provider canceled the refund of
 * `attempt`. Conditional on the attempt still being current, so of two presses that both saw the
 * canceled refund only one moves it on: true when it moved, false when the attempt had already moved
 * (or the order is refunded or absent).
 */
export async function advanceRefundAttempt(db: Db, orderId: string, attempt: number): Promise<boolean> {
  const moved = await db
    .updateTable('orders')
    .set({ refund_attempt: attempt + 1 })
    .where('id', '=', orderId)
    .where('refund_attempt', '=', attempt)
    .where('refund_id', 'is', null)
    .executeTakeFirst();
  return moved.numUpdatedRows > 0n;
}

/** The account's e-mail address (confirmed or not, null when none); undefined when no such account. */
export async function accountEmail(db: Db, accountId: bigint): Promise<{ email: string | null } | undefined> {
  return db.selectFrom('accounts').select('email').where('id', '=', accountId).executeTakeFirst();
}

/** Keeps a recorded refund's id and time on its order. */
export async function markOrderRefunded(db: Db, orderId: string, refundId: string, now: Date): Promise<void> {
  await db.updateTable('orders').set({ refund_id: refundId, refunded_at: now }).where('id', '=', orderId).execute();
}

/** An unmatched stars payment as claimed for a refund attempt. */
export type ClaimedStarRefund = Pick<
  Selectable<UnmatchedPaymentsTable>,
  'id' | 'platform_charge_id' | 'platform_user_id' | 'order_id' | 'amount' | 'refund_attempts'
>;

/**
 * Claims up to `limit` unmatched payments whose refund is pending and due by `now` (earliest first,
 * skipping rows another transaction has locked, `FOR UPDATE SKIP LOCKED`): each gets the lease
 * `leaseUntil` as its next time and one more attempt. Answers the claimed rows (none: empty).
 */
export async function claimDueStarRefunds(db: Db, now: Date, leaseUntil: Date, limit: number): Promise<ClaimedStarRefund[]> {
  return db
    .updateTable('unmatched_payments')
    .set((eb) => ({ refund_next_at: leaseUntil, refund_attempts: eb('refund_attempts', '+', 1) }))
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('unmatched_payments')
        .select('id')
        .where('refund_status', '=', 'pending')
        .where('refund_next_at', '<=', now)
        .orderBy('refund_next_at')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .where('refund_status', '=', 'pending')
    .returning(['id', 'platform_charge_id', 'platform_user_id', 'order_id', 'amount', 'refund_attempts'])
    .execute();
}

/** The refund columns of an unmatched payment an attempt's outcome sets. */
export type StarRefundOutcome = Pick<
  Updateable<UnmatchedPaymentsTable>,
  'refund_status' | 'refunded_at' | 'refund_error' | 'refund_next_at'
>;

/** Writes an attempt's outcome on an unmatched payment whose refund is still pending; one no longer pending is left alone. */
export async function updatePendingStarRefund(db: Db, id: bigint, outcome: StarRefundOutcome): Promise<void> {
  await db.updateTable('unmatched_payments').where('id', '=', id).where('refund_status', '=', 'pending').set(outcome).execute();
}
