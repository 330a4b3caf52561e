import { sql, type Kysely } from 'kysely';

/**
 * `unmatched_payments.order_id`: the order id the payment named (the bot-link's
 * `ForwardPaymentRequest.order_id`, raw text, perhaps no order's) under the one name the order id
 * has everywhere else; it was `order_ref`. Expand only (docs/operating/upgrades.md): the new column
 * is backfilled and indexed (the pre-checkout lookup, as 0100 indexed `order_ref`), and a trigger
 * fills whichever of the two columns an insert left out, so the previous release (writing and
 * reading `order_ref`) and this one (`order_id`) run side by side on this schema. The contract step
 * of a later release drops the trigger, its function, `order_ref` and its index. Reversible: `down`
 * drops the new column, index, trigger and function; `order_ref` was kept complete throughout.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table unmatched_payments add column if not exists order_id text`.execute(db);
  await sql`update unmatched_payments set order_id = order_ref where order_id is null`.execute(db);
  await sql`alter table unmatched_payments alter column order_id set not null`.execute(db);
  await sql`
    create or replace function unmatched_payments_order_id_both() returns trigger language plpgsql as $$
    begin
      new.order_id := coalesce(new.order_id, new.order_ref);
      new.order_ref := coalesce(new.order_ref, new.order_id);
      return new;
    end $$`.execute(db);
  await sql`drop trigger if exists unmatched_payments_order_id_both on unmatched_payments`.execute(db);
  await sql`
    create trigger unmatched_payments_order_id_both before insert on unmatched_payments
    for each row execute function unmatched_payments_order_id_both()`.execute(db);
  await sql`create index if not exists unmatched_payments_order_id_idx on unmatched_payments (order_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger if exists unmatched_payments_order_id_both on unmatched_payments`.execute(db);
  await sql`drop function if exists unmatched_payments_order_id_both()`.execute(db);
  await sql`drop index if exists unmatched_payments_order_id_idx`.execute(db);
  await sql`alter table unmatched_payments drop column if exists order_id`.execute(db);
}
