import type { Kysely, Selectable, Transaction, Updateable } from 'kysely';
import type { DB } from '../../db/index.js';
import type { OrderRow } from '../orders/orders.store.js';
import type { UnmatchedPaymentsTable } from '../payments.table.js';
import { CREDITABLE_STATES } from '../orders/state.js';

type Db = Kysely<DB> | Transaction<DB>;

/** One refund press's claim on an order: who, when, the lease's end for other presses, and the refund's idempotence key. */
export interface RefundClaimInput {
  orderId: string;
  operatorId: bigint | null;
  claimedAt: Date;
  /** A claim made at or before this belonged to a press that died: another press may take it over. */
  lapsed: Date;
  /** The idempotence key of the refund the press is about to ask for; it becomes the order's refund_hold. */
  key: string;
}

/**
 * Claims a paid, unrefunded order for one console refund press, in one conditional update before
 * any refund call: only when no live claim holds it and no other refund is held on it. Sets
 * `refund_hold` to the press's key with the claim. Answers the order as claimed, or undefined when
 * another press holds it or it is no longer refundable.
 */
export async function claimOrderRefund(db: Db, c: RefundClaimInput): Promise<OrderRow | undefined> {
  return db
    .updateTable('orders')
    .set({ refund_claimed_at: c.claimedAt, refund_claimed_by: c.operatorId, refund_hold: c.key })
    .where('id', '=', c.orderId)
    .where('state', '=', 'paid')
    .where('refund_id', 'is', null)
    .where((w) => w.or([w('refund_claimed_at', 'is', null), w('refund_claimed_at', '<=', c.lapsed)]))
    .where((w) => w.or([w('refund_hold', 'is', null), w('refund_hold', '=', c.key)]))
    .returningAll()
    .executeTakeFirst();
}

/**
 * Claims a not yet credited card order for the refund of its payment `paymentId` (money taken, not
 * credited), in one conditional update before any refund call: only while the order is still
 * creditable, unrefunded, its recorded payment is this one (or none is recorded yet, which then
 * becomes this one), no live claim holds it and no other refund is held on it. From then on no
 * credit path credits it (refund_hold). Undefined when nothing matched: the caller reads why.
 */
export async function claimUncreditedRefund(db: Db, c: RefundClaimInput & { paymentId: string }): Promise<OrderRow | undefined> {
  return db
    .updateTable('orders')
    .set((eb) => ({
      refund_claimed_at: c.claimedAt,
      refund_claimed_by: c.operatorId,
      refund_hold: c.key,
      provider_payment_id: eb.fn.coalesce('provider_payment_id', eb.val(c.paymentId)),
    }))
    .where('id', '=', c.orderId)
    .where('rail', '=', 'card')
    .where('state', 'in', CREDITABLE_STATES)
    .where('refund_id', 'is', null)
    .where((w) => w.or([w('provider_payment_id', 'is', null), w('provider_payment_id', '=', c.paymentId)]))
    .where((w) => w.or([w('refund_claimed_at', 'is', null), w('refund_claimed_at', '<=', c.lapsed)]))
    .where((w) => w.or([w('refund_hold', 'is', null), w('refund_hold', '=', c.key)]))
    .returningAll()
    .executeTakeFirst();
}

/**
 * What the end of a press's refund call leaves on the order: `clear` (no refund happened: the
 * order is free again, creditable if it was), `pending` (the provider holds the refund pending under
 * `refundId`: the hold stays and the reaper re-reads it), or `keep` (the outcome is unknown: the
 * hold stays until a press learns it).
 */
export type HoldAfterCall = { kind: 'clear' } | { kind: 'pending'; refundId: string } | { kind: 'keep' };

/**
 * Ends a press's claim (when it is still the one made at `claimedAt`; a claim taken over meanwhile
 * is left alone) and sets the order's hold as the call left it, in one statement. A hold other than
 * the press's key is never touched.
 */
export async function endRefundClaim(db: Db, orderId: string, claimedAt: Date, key: string, after: HoldAfterCall): Promise<void> {
  await db
    .updateTable('orders')
    .set({
      refund_claimed_at: null,
      refund_claimed_by: null,
      ...(after.kind === 'clear' ? { refund_hold: null, refund_pending_id: null } : {}),
      ...(after.kind === 'pending' ? { refund_pending_id: after.refundId } : {}),
    })
    .where('id', '=', orderId)
    .where('refund_claimed_at', '=', claimedAt)
    .where('refund_hold', '=', key)
    .execute();
}

/**
 * Clears the hold of the refund the provider reported as `refundId` once a re-read of it says
 * canceled: the order is free again. Answers whether a hold was cleared.
 */
export async function clearCanceledHold(db: Db, orderId: string, refundId: string): Promise<boolean> {
  const cleared = await db
    .updateTable('orders')
    .set({ refund_hold: null, refund_pending_id: null })
    .where('id', '=', orderId)
    .where('refund_pending_id', '=', refundId)
    .where('refund_id', 'is', null)
    .where('refund_claimed_at', 'is', null)
    .executeTakeFirst();
  return cleared.numUpdatedRows > 0n;
}

/** An order's state, refund id and refund claim, with the login of the claiming operator (null when none); undefined when no such order. */
export async function refundClaimOf(
  db: Db,
  orderId: string,
): Promise<{ state: OrderRow['state']; refund_id: string | null; refund_claimed_at: Date | null; login: string | null } | undefined> {
  return db
    .selectFrom('orders')
    .leftJoin('operators', 'operators.id', 'orders.refund_claimed_by')
    .select(['orders.state', 'orders.refund_id', 'orders.refund_claimed_at', 'operators.login'])
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

/** Keeps a recorded refund's id and time on its order; the refund is final, so its hold and any claim end. */
export async function markOrderRefunded(db: Db, orderId: string, refundId: string, now: Date): Promise<void> {
  await db
    .updateTable('orders')
    .set({
      refund_id: refundId,
      refunded_at: now,
      refund_hold: null,
      refund_pending_id: null,
      refund_claimed_at: null,
      refund_claimed_by: null,
    })
    .where('id', '=', orderId)
    .execute();
}

/**
 * Closes a never credited order whose payment was refunded in full: state `failed` with reason
 * `refunded`, the refund id and time kept, its hold and any claim ended. Only a still unrefunded
 * order that was not credited is closed; answers whether it was.
 */
export async function closeRefundedUncredited(db: Db, orderId: string, refundId: string, now: Date): Promise<boolean> {
  const closed = await db
    .updateTable('orders')
    .set({
      state: 'failed',
      failure_reason: 'refunded',
      refund_id: refundId,
      refunded_at: now,
      refund_hold: null,
      refund_pending_id: null,
      refund_claimed_at: null,
      refund_claimed_by: null,
    })
    .where('id', '=', orderId)
    .where('state', '<>', 'paid')
    .where('refund_id', 'is', null)
    .executeTakeFirst();
  return closed.numUpdatedRows > 0n;
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
