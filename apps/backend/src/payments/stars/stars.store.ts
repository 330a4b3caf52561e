import { type Insertable, type Kysely, type Selectable, type Transaction } from 'kysely';
import { runPrepared, type DB } from '../../db/index.js';
import { CREDITABLE_STATES } from '../orders/state.js';
import { spenderRow } from '../../ledger/index.js';
import type { UnmatchedPaymentsTable } from '../payments.table.js';

type Db = Kysely<DB> | Transaction<DB>;
type UnmatchedRow = Selectable<UnmatchedPaymentsTable>;

/** What a pre-checkout approval holds: the order, the amount and currency asked, and until when. */
export interface CheckoutHold {
  orderId: string;
  amount: bigint;
  currency: string;
  now: Date;
  holdUntil: Date;
}

/** How a hold attempt went: held, the order's account may not pay (blocked, deleted), or nothing matched. */
export type HoldOutcome = 'held' | 'account' | 'none';

const HOLD_FOR_CHECKOUT = `WITH o AS (SELECT account_id FROM orders WHERE id = $1::uuid),
s AS MATERIALIZED (${spenderRow('(SELECT account_id FROM o)', '$2')}),
h AS (UPDATE orders SET checkout_hold_until = $3::timestamptz
       WHERE id = $1::uuid AND rail = 'stars' AND state = ANY($4::text[]) AND amount = $5::bigint AND currency = $6::text
         AND (checkout_hold_until IS NULL OR checkout_hold_until <= $2::timestamptz)
         AND EXISTS (SELECT 1 FROM s WHERE s.live AND NOT s.suspended)
       RETURNING id)
SELECT (SELECT count(*) FROM o)::int AS found, (SELECT live FROM s) AS live, (SELECT suspended FROM s) AS suspended,
       (SELECT count(*) FROM h)::int AS held`;

/**
 * Holds a creditable stars order of this amount and currency for a pre-checkout approval until
 * `holdUntil`, in ONE statement: it locks the order's account FOR SHARE first (the ledger's
 * spenderRow: a blocked or deleted account's charge is declined, and a block committing meanwhile
 * waits for this hold or is seen by it), then the conditional UPDATE matches only when no hold is
 * live at `now`, so of two approvals racing for one order PostgreSQL re-checks the second on the row
 * the first wrote and it matches nothing. `none`: absent, other rail or price, settled, or held.
 * Its own transaction, as a named prepared statement.
 */
export async function holdForCheckout(db: Kysely<DB>, hold: CheckoutHold): Promise<HoldOutcome> {
  const rows = await runPrepared<{ found: number; live: boolean | null; suspended: boolean | null; held: number }>(
    db,
    'stars_checkout_hold',
    HOLD_FOR_CHECKOUT,
    [hold.orderId, hold.now, hold.holdUntil, [...CREDITABLE_STATES], hold.amount, hold.currency],
  );
  const row = rows[0];
  if (!row || row.found === 0) return 'none';
  if (row.live !== true || row.suspended !== false) return 'account';
  return row.held > 0 ? 'held' : 'none';
}

/**
 * Takes back the hold `holdForCheckout` set until `holdUntil` (only that one: a later approval's
 * hold stays), for an approval declined after it held the order.
 */
export async function releaseCheckoutHold(db: Db, orderId: string, holdUntil: Date): Promise<void> {
  await db
    .updateTable('orders')
    .set({ checkout_hold_until: null })
    .where('id', '=', orderId)
    .where('checkout_hold_until', '=', holdUntil)
    .execute();
}

/** True when an unmatched payment names `orderId` as its order (a named prepared statement). */
export async function unmatchedForOrder(db: Kysely<DB>, orderId: string): Promise<boolean> {
  const query = db.selectFrom('unmatched_payments').select('id').where('order_id', '=', orderId).limit(1).compile();
  return (await runPrepared(db, 'stars_unmatched_for_order', query.sql, query.parameters)).length > 0;
}

/** True when an order was credited by the platform charge `platformChargeId`. */
export async function chargeCredited(db: Db, platformChargeId: string): Promise<boolean> {
  const credited = await db.selectFrom('orders').select('id').where('platform_charge_id', '=', platformChargeId).executeTakeFirst();
  return credited !== undefined;
}

/** True when the platform charge `platformChargeId` is recorded as an unmatched payment. */
export async function chargeUnmatched(db: Db, platformChargeId: string): Promise<boolean> {
  const unmatched = await db
    .selectFrom('unmatched_payments')
    .select('id')
    .where('platform_charge_id', '=', platformChargeId)
    .executeTakeFirst();
  return unmatched !== undefined;
}

/** Writes a new row version of the order without changing it (`state = state`), under the caller's row lock. */
export async function touchOrder(db: Db, orderId: string): Promise<void> {
  await db
    .updateTable('orders')
    .set((eb) => ({ state: eb.ref('state') }))
    .where('id', '=', orderId)
    .execute();
}

/** Records a payment that matched no creditable order; a charge already recorded (unique charge id) is left as it is. */
export async function insertUnmatchedPayment(db: Db, payment: Insertable<UnmatchedPaymentsTable>): Promise<void> {
  await db
    .insertInto('unmatched_payments')
    .values(payment)
    .onConflict((oc) => oc.column('platform_charge_id').doNothing())
    .execute();
}

/** An unmatched payment's refund columns by charge id; undefined when the charge is not recorded as unmatched. */
export async function unmatchedByCharge(
  db: Db,
  platformChargeId: string,
): Promise<Pick<UnmatchedRow, 'id' | 'refund_status' | 'refund_error'> | undefined> {
  return db
    .selectFrom('unmatched_payments')
    .select(['id', 'refund_status', 'refund_error'])
    .where('platform_charge_id', '=', platformChargeId)
    .executeTakeFirst();
}

/**
 * Records a charge that is to be returned to its payer (as unmatched, claimed by the caller until
 * `leaseUntil` with its first attempt counted); answers the row as claimed, or undefined when the
 * charge was already recorded (unique charge id).
 */
export async function insertChargeToReturn(
  db: Db,
  payment: Insertable<UnmatchedPaymentsTable>,
  leaseUntil: Date,
): Promise<Pick<UnmatchedRow, 'id' | 'platform_charge_id' | 'platform_user_id' | 'order_id' | 'amount' | 'refund_attempts'> | undefined> {
  return db
    .insertInto('unmatched_payments')
    .values({ ...payment, refund_next_at: leaseUntil, refund_attempts: 1 })
    .onConflict((oc) => oc.column('platform_charge_id').doNothing())
    .returning(['id', 'platform_charge_id', 'platform_user_id', 'order_id', 'amount', 'refund_attempts'])
    .executeTakeFirst();
}

/** The order a platform charge credited, row-locked until the transaction ends; undefined when none was. */
export async function orderByChargeForUpdate(
  trx: Transaction<DB>,
  platformChargeId: string,
): Promise<Selectable<DB['orders']> | undefined> {
  return trx.selectFrom('orders').selectAll().where('platform_charge_id', '=', platformChargeId).forUpdate().executeTakeFirst();
}

/** An unmatched payment by charge id with its reason and refund state, row-locked; undefined when the charge is not recorded there. */
export async function unmatchedByChargeForUpdate(
  trx: Transaction<DB>,
  platformChargeId: string,
): Promise<Pick<UnmatchedRow, 'id' | 'reason' | 'refund_status'> | undefined> {
  return trx
    .selectFrom('unmatched_payments')
    .select(['id', 'reason', 'refund_status'])
    .where('platform_charge_id', '=', platformChargeId)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * Marks an unmatched payment as returned to its payer by the platform itself (a refund made outside
 * our refund flow): its automatic return stops. Answers whether it changed (false: already refunded).
 */
export async function markUnmatchedRefunded(db: Db, id: bigint, now: Date): Promise<boolean> {
  const done = await db
    .updateTable('unmatched_payments')
    .set({ refund_status: 'refunded', refunded_at: now, refund_error: null })
    .where('id', '=', id)
    .where('refund_status', '<>', 'refunded')
    .executeTakeFirst();
  return done.numUpdatedRows > 0n;
}

/**
 * Records a charge the platform refunded before it credited anything: unmatched, already refunded
 * (nothing for the automatic return to send), so a ForwardPayment of it arriving later credits
 * nothing. A charge already recorded (unique charge id) is left as it is; answers whether it was new.
 */
export async function insertRefundedCharge(db: Db, payment: Insertable<UnmatchedPaymentsTable>, now: Date): Promise<boolean> {
  const row = await db
    .insertInto('unmatched_payments')
    .values({ ...payment, refund_status: 'refunded', refunded_at: now })
    .onConflict((oc) => oc.column('platform_charge_id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}
