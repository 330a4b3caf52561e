import { sql, type Kysely } from 'kysely';

const SEGMENT = sql`('direct', 'telegram', 'vk')`;

/**
 * Paid orders for chip packs (both rails), their payment events, platform payments that matched no
 * creditable order, and the ledger widened for paid credits and refunds: kinds `purchase` and
 * `refund`, plus the order a row belongs to. Expand only; `down` restores the narrower ledger.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('orders')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('product_id', 'bigint', (c) => c.notNull().references('catalog_products.id'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('rail', 'text', (c) => c.notNull().check(sql`rail in ('stars', 'card')`))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('shop', 'text')
    .addColumn('segment', 'text', (c) => c.notNull().check(sql`segment in ${SEGMENT}`))
    .addColumn('amount', 'bigint', (c) => c.notNull().check(sql`amount > 0`))
    .addColumn('currency', 'text', (c) => c.notNull().check(sql`currency ~ '^[A-Z]{3,5}$'`))
    .addColumn('chips', 'bigint', (c) => c.notNull().check(sql`chips >= 0`))
    .addColumn('hints', 'bigint', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`hints >= 0`),
    )
    .addColumn('no_ads_days', 'bigint', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`no_ads_days >= 0`),
    )
    .addColumn('no_ads_forever', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('state', 'text', (c) =>
      c
        .notNull()
        .defaultTo('pending')
        .check(sql`state in ('pending', 'paid', 'failed', 'expired')`),
    )
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('paid_at', 'timestamptz')
    .addColumn('provider_payment_id', 'text', (c) => c.unique())
    .addColumn('platform_charge_id', 'text', (c) => c.unique())
    .addColumn('invoice_link', 'text')
    .addColumn('confirmation_url', 'text')
    .addColumn('failure_reason', 'text')
    .addColumn('refund_id', 'text')
    .addColumn('refunded_at', 'timestamptz')
    .addColumn('recheck_after', 'timestamptz')
    .addCheckConstraint('orders_paid_has_time', sql`(state = 'paid') = (paid_at is not null)`)
    .addCheckConstraint('orders_refund_needs_payment', sql`refund_id is null or state = 'paid'`)
    .addCheckConstraint('orders_stars_in_xtr', sql`(rail = 'stars') = (currency = 'XTR')`)
    .execute();
  await db.schema.createIndex('orders_account_created_idx').on('orders').columns(['account_id', 'created_at']).execute();
  await sql`create index orders_open_idx on orders (created_at) where state in ('pending', 'expired')`.execute(db);

  await db.schema
    .createTable('payment_events')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('order_id', 'uuid', (c) => c.notNull().references('orders.id'))
    .addColumn('kind', 'text', (c) =>
      c.notNull().check(sql`kind in ('created', 'paid', 'failed', 'expired', 'refunded', 'partial_refund')`),
    )
    .addColumn('detail', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('payment_events_order_idx').on('payment_events').columns(['order_id', 'id']).execute();

  await db.schema
    .createTable('unmatched_payments')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('platform_charge_id', 'text', (c) => c.notNull().unique())
    .addColumn('order_ref', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('platform_user_id', 'bigint', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await sql`alter table ledger_operations drop constraint ledger_operations_kind_check`.execute(db);
  await sql`alter table ledger_operations add constraint ledger_operations_kind_check check (kind in ('grant', 'spend', 'purchase', 'refund'))`.execute(
    db,
  );
  await sql`alter table ledger_operations add column order_id uuid references orders (id)`.execute(db);
  await sql`create unique index ledger_operations_order_kind_key on ledger_operations (order_id, kind) where order_id is not null`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index ledger_operations_order_kind_key`.execute(db);
  await sql`alter table ledger_operations drop column order_id`.execute(db);
  await sql`alter table ledger_operations drop constraint ledger_operations_kind_check`.execute(db);
  await sql`alter table ledger_operations add constraint ledger_operations_kind_check check (kind in ('grant', 'spend'))`.execute(db);
  await db.schema.dropTable('unmatched_payments').execute();
  await db.schema.dropTable('payment_events').execute();
  await db.schema.dropTable('orders').execute();
}
