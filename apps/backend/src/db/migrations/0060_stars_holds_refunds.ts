import { sql, type Kysely } from 'kysely';

/**
 * Stars rail (expand only; reversible):
 * - `orders.checkout_hold_until`: an approved pre-checkout reserves the order until then, so a
 *   concurrent or later pre-checkout inside the platform's answer window is declined;
 * - `orders.platform_user_id`: the payer of the charge that credited a stars order (the console
 *   refund returns the stars to that user, who may not be the account's own identity);
 * - `unmatched_payments.refund_*`: the automatic return of a stars payment that credited nothing.
 *   `refund_status` is `pending` (to send; due at `refund_next_at`), `refunded` (the platform took it
 *   back, now or earlier) or `failed` (the platform refused; `refund_error` holds its answer).
 *   Existing rows start `pending`: their stars were kept until now.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders add column checkout_hold_until timestamptz`.execute(db);
  await sql`alter table orders add column platform_user_id bigint`.execute(db);
  await sql`alter table unmatched_payments add column refund_status text not null default 'pending'
    constraint unmatched_payments_refund_status_check check (refund_status in ('pending', 'refunded', 'failed'))`.execute(db);
  await sql`alter table unmatched_payments add column refund_attempts integer not null default 0`.execute(db);
  await sql`alter table unmatched_payments add column refund_next_at timestamptz not null default now()`.execute(db);
  await sql`alter table unmatched_payments add column refund_error text`.execute(db);
  await sql`alter table unmatched_payments add column refunded_at timestamptz`.execute(db);
  await sql`create index unmatched_payments_refund_due_idx on unmatched_payments (refund_next_at) where refund_status = 'pending'`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists unmatched_payments_refund_due_idx`.execute(db);
  for (const column of ['refunded_at', 'refund_error', 'refund_next_at', 'refund_attempts', 'refund_status']) {
    await sql`alter table unmatched_payments drop column ${sql.ref(column)}`.execute(db);
  }
  await sql`alter table orders drop column platform_user_id`.execute(db);
  await sql`alter table orders drop column checkout_hold_until`.execute(db);
}
