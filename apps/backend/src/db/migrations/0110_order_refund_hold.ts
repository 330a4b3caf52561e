import { sql, type Kysely } from 'kysely';

/**
 * A refund in flight is part of the order's money state (expand only; reversible):
 * - `orders.refund_hold`: the idempotence key of a refund of the order's payment that may exist at
 *   the provider or the platform and is not final yet. It is set under the order's row lock before
 *   any provider or platform refund call and cleared only when the refund is recorded (refund_id) or
 *   known not to have happened (canceled, refused). While it is set no credit path credits the order
 *   (the credit statement requires it null), so a refund and a credit of one order never both happen.
 * - `orders.refund_pending_id`: the provider's id of that refund while the provider reports it
 *   pending; the reaper re-reads it until it is final (a lost notification finishes it too).
 * - `orders_refund_needs_payment` also admits a `failed` order with a refund id: a never credited
 *   order whose payment was refunded in full is closed as failed with reason `refunded`, keeping the
 *   refund's id (the reconciliation then finds the refund recorded). `down` forgets those ids.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders add column refund_hold text, add column refund_pending_id text`.execute(db);
  await sql`create index orders_refund_pending on orders (refund_pending_id) where refund_pending_id is not null`.execute(db);
  await sql`alter table orders drop constraint orders_refund_needs_payment,
    add constraint orders_refund_needs_payment check (refund_id is null or state in ('paid', 'failed'))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`update orders set refund_id = null, refunded_at = null where state = 'failed' and refund_id is not null`.execute(db);
  await sql`alter table orders drop constraint orders_refund_needs_payment,
    add constraint orders_refund_needs_payment check (refund_id is null or state = 'paid')`.execute(db);
  await sql`drop index orders_refund_pending`.execute(db);
  await sql`alter table orders drop column refund_pending_id, drop column refund_hold`.execute(db);
}
