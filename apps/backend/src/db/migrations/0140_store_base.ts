import { sql, type Kysely } from 'kysely';

/**
 * What a studio runs its store with (expand only; reversible):
 * - `catalog_products.subscription_period`: seconds of one paid period of a stars subscription
 *   (2592000, the only period Telegram allows); null for a one-time product;
 * - `available_from` / `available_until`: a time-limited offer's window, null = open on that side;
 * - `purchase_limit` / `purchase_limit_period`: at most so many paid or pending orders per player
 *   per day, week, month or ever; both null or both set;
 * - ledger kinds `code_grant` (a promo code redeemed), `make_good` (an operator's grant) and
 *   `reversal` (an operator taking one of those back).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table catalog_products
    add column subscription_period integer check (subscription_period = 2592000),
    add column available_from timestamptz,
    add column available_until timestamptz,
    add column purchase_limit integer check (purchase_limit between 1 and 1000),
    add column purchase_limit_period text check (purchase_limit_period in ('day', 'week', 'month', 'ever')),
    add constraint catalog_products_window_check check (available_from is null or available_until is null or available_from < available_until),
    add constraint catalog_products_limit_check check ((purchase_limit is null) = (purchase_limit_period is null))`.execute(db);
  await sql`alter table ledger_operations drop constraint ledger_operations_kind_check`.execute(db);
  await sql`alter table ledger_operations add constraint ledger_operations_kind_check
    check (kind in ('grant', 'spend', 'purchase', 'refund', 'code_grant', 'make_good', 'reversal'))`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table ledger_operations drop constraint ledger_operations_kind_check`.execute(db);
  await sql`alter table ledger_operations add constraint ledger_operations_kind_check check (kind in ('grant', 'spend', 'purchase', 'refund'))`.execute(
    db,
  );
  await sql`alter table catalog_products
    drop constraint catalog_products_limit_check, drop constraint catalog_products_window_check,
    drop column purchase_limit_period, drop column purchase_limit, drop column available_until,
    drop column available_from, drop column subscription_period`.execute(db);
}
