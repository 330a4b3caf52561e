import { sql, type Kysely } from 'kysely';

/**
 * Stars subscriptions, a monthly pass (expand only; reversible):
 * - `star_subscriptions`: one per subscription the platform charges, keyed by its first order (the
 *   invoice payload every renewal carries); `paid_until` is the end of its latest unrefunded paid
 *   period, `cancelled_at` set while the player has turned renewals off;
 * - `star_subscription_periods`: one row per charge (first payment or renewal), unique on the
 *   charge id and on its order, with the period it paid for and when it was refunded;
 * - `orders.subscription_period`: seconds of one period when the order is a subscription's;
 *   `orders.pass_until`: the end of the period the order's charge paid for (set by the credit);
 * - `benefits.pass_until` and `ledger_operations.pass_until`: the pass as a benefit of its origin
 *   (no ads until then) and, on each `purchase` and `refund` row of a subscription charge, the
 *   period end it granted or revoked, so the ledger audit replays the pass.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table orders
    add column subscription_period integer check (subscription_period = 2592000),
    add column pass_until timestamptz`.execute(db);
  await sql`alter table benefits add column pass_until timestamptz`.execute(db);
  await sql`alter table ledger_operations add column pass_until timestamptz`.execute(db);
  await sql`create table star_subscriptions (
    id bigserial primary key,
    account_id bigint not null references accounts(id),
    product_id bigint not null,
    first_order_id uuid not null unique references orders(id),
    segment text not null,
    platform_user_id bigint not null,
    amount bigint not null check (amount > 0),
    currency text not null,
    paid_until timestamptz not null,
    last_charge_id text not null,
    cancelled_at timestamptz,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
  )`.execute(db);
  await sql`create index star_subscriptions_account on star_subscriptions (account_id)`.execute(db);
  await sql`create table star_subscription_periods (
    charge_id text primary key,
    subscription_id bigint not null references star_subscriptions(id),
    order_id uuid not null unique references orders(id),
    renewal boolean not null,
    period_start timestamptz not null,
    period_end timestamptz not null,
    refunded_at timestamptz,
    created_at timestamptz not null default now()
  )`.execute(db);
  await sql`create index star_subscription_periods_subscription on star_subscription_periods (subscription_id, period_end)`.execute(db);
  await sql`create index star_subscription_periods_created on star_subscription_periods (created_at)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table star_subscription_periods`.execute(db);
  await sql`drop table star_subscriptions`.execute(db);
  await sql`alter table ledger_operations drop column pass_until`.execute(db);
  await sql`alter table benefits drop column pass_until`.execute(db);
  await sql`alter table orders drop column pass_until, drop column subscription_period`.execute(db);
}
