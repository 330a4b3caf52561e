import { sql, type Kysely } from 'kysely';

const SEGMENT = sql`('direct', 'telegram', 'vk')`;

/**
 * Wallet segments and benefits per origin, the catalog (atoms, products, per-method prices), the
 * append-only ledger (a trigger refuses UPDATE, DELETE and TRUNCATE), and buy idempotency records.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('wallet_segments')
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('segment', 'text', (c) => c.notNull().check(sql`segment in ${SEGMENT}`))
    .addColumn('balance', 'bigint', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`balance >= 0`),
    )
    .addPrimaryKeyConstraint('wallet_segments_pkey', ['account_id', 'segment'])
    .execute();

  await db.schema
    .createTable('benefits')
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('origin', 'text', (c) => c.notNull().check(sql`origin in ${SEGMENT}`))
    .addColumn('no_ads_until', 'timestamptz')
    .addColumn('no_ads_forever', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('hints', 'bigint', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`hints >= 0`),
    )
    .addPrimaryKeyConstraint('benefits_pkey', ['account_id', 'origin'])
    .execute();

  await db.schema
    .createTable('catalog_atoms')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('chips', 'no_ads_days', 'no_ads_forever', 'hints')`))
    .addColumn('quantity', 'bigint', (c) => c.notNull().check(sql`quantity > 0`))
    .addUniqueConstraint('catalog_atoms_kind_quantity_key', ['kind', 'quantity'])
    .addCheckConstraint('catalog_atoms_forever_is_one', sql`kind <> 'no_ads_forever' or quantity = 1`)
    .execute();

  await db.schema
    .createTable('catalog_products')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('title', 'text', (c) => c.notNull().check(sql`title !~ '[&<>"'']' and length(title) between 1 and 64`))
    .addColumn('active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('catalog_product_atoms')
    .addColumn('product_id', 'bigint', (c) => c.notNull().references('catalog_products.id').onDelete('cascade'))
    .addColumn('atom_id', 'bigint', (c) => c.notNull().references('catalog_atoms.id'))
    .addPrimaryKeyConstraint('catalog_product_atoms_pkey', ['product_id', 'atom_id'])
    .execute();

  await db.schema
    .createTable('catalog_prices')
    .addColumn('product_id', 'bigint', (c) => c.notNull().references('catalog_products.id').onDelete('cascade'))
    .addColumn('method', 'text', (c) => c.notNull().check(sql`method in ('chips', 'provider', 'xtr')`))
    .addColumn('amount', 'bigint', (c) => c.notNull().check(sql`amount > 0`))
    .addColumn('currency', 'text', (c) => c.notNull().check(sql`currency ~ '^[A-Z]{3,5}$'`))
    .addPrimaryKeyConstraint('catalog_prices_pkey', ['product_id', 'method'])
    .execute();

  await db.schema
    .createTable('ledger_operations')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('grant', 'spend')`))
    .addColumn('segment', 'text', (c) => c.check(sql`segment in ${SEGMENT}`))
    .addColumn('benefit_origin', 'text', (c) => c.check(sql`benefit_origin in ${SEGMENT}`))
    .addColumn('rail', 'text')
    .addColumn('provider', 'text')
    .addColumn('refund_id', 'text')
    .addColumn('product_id', 'bigint', (c) => c.references('catalog_products.id'))
    .addColumn('chips_delta', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('money_minor', 'bigint')
    .addColumn('currency', 'text')
    .addColumn('hints_delta', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('no_ads_days', 'bigint', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`no_ads_days >= 0`),
    )
    .addColumn('no_ads_forever', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('note', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('ledger_operations_provider_refund_id_key', ['provider', 'refund_id'])
    .addCheckConstraint('ledger_operations_money_has_currency', sql`(money_minor is null) = (currency is null)`)
    .addCheckConstraint('ledger_operations_chips_need_segment', sql`chips_delta = 0 or segment is not null`)
    .addCheckConstraint(
      'ledger_operations_benefits_need_origin',
      sql`(hints_delta = 0 and no_ads_days = 0 and not no_ads_forever) or benefit_origin is not null`,
    )
    .execute();
  await db.schema.createIndex('ledger_operations_account_id_idx').on('ledger_operations').columns(['account_id', 'id']).execute();
  await db.schema.createIndex('ledger_operations_created_at_idx').on('ledger_operations').column('created_at').execute();

  await sql`
    create function ledger_operations_append_only() returns trigger language plpgsql as $$
    begin
      raise exception 'ledger_operations is append-only (% refused)', tg_op using errcode = 'restrict_violation';
    end
    $$
  `.execute(db);
  await sql`
    create trigger ledger_operations_no_change before update or delete on ledger_operations
    for each row execute function ledger_operations_append_only()
  `.execute(db);
  await sql`
    create trigger ledger_operations_no_truncate before truncate on ledger_operations
    for each statement execute function ledger_operations_append_only()
  `.execute(db);

  await db.schema
    .createTable('buy_requests')
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('product_id', 'bigint', (c) => c.notNull())
    .addColumn('result', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('buy_requests_pkey', ['account_id', 'idempotency_key'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('buy_requests').execute();
  await db.schema.dropTable('ledger_operations').execute();
  await sql`drop function ledger_operations_append_only()`.execute(db);
  await db.schema.dropTable('catalog_prices').execute();
  await db.schema.dropTable('catalog_product_atoms').execute();
  await db.schema.dropTable('catalog_products').execute();
  await db.schema.dropTable('catalog_atoms').execute();
  await db.schema.dropTable('benefits').execute();
  await db.schema.dropTable('wallet_segments').execute();
}
