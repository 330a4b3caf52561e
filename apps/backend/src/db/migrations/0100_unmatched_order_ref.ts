import { sql, type Kysely } from 'kysely';

/**
 * `unmatched_payments (order_ref)`: every stars pre-checkout it approves looks up whether the order
 * already has a charge recorded as unmatched (payments/stars/intake.ts), so that lookup must not read
 * the whole table. Expand only; reversible.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index if not exists unmatched_payments_order_ref_idx on unmatched_payments (order_ref)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists unmatched_payments_order_ref_idx`.execute(db);
}
