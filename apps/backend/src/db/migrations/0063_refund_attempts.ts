import { sql, type Kysely } from 'kysely';

/**
 * Console refund attempts per order (expand only; reversible). The provider idempotence key of a
 * console refund is derived from `refund_attempt`; the attempt moves on only after the provider
 * reported the current attempt's refund canceled, so pressing refund again then starts a new
 * refund instead of replaying the canceled one. Existing orders start at attempt 0, whose key is
 * the old `refund-<order id>`, so refunds already in flight keep their key.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders add column refund_attempt integer not null default 0 check (refund_attempt >= 0)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders drop column refund_attempt`.execute(db);
}
