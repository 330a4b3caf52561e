import { sql, type Kysely } from 'kysely';

/**
 * Which card payments and refunds carried a 54-FZ receipt (expand only; reversible): the receipt is
 * built from the account's e-mail at call time and sent with the provider call, so without a mark
 * the player's history could not say which payment was receipted.
 * - `orders.receipt_sent`: the payment was created with an itemised receipt;
 * - `orders.refund_receipt_sent`: its refund was asked with one.
 * Existing orders read false: their calls were not recorded with a receipt.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders
    add column receipt_sent boolean not null default false,
    add column refund_receipt_sent boolean not null default false`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders drop column refund_receipt_sent, drop column receipt_sent`.execute(db);
}
