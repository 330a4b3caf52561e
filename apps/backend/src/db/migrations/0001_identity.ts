import { sql, type Kysely } from 'kysely';

/** Accounts and their chat-platform identities: the root every other table hangs from. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('active')
        .check(sql`status in ('active', 'suspended', 'deleted')`),
    )
    .addColumn('suspended_until', 'timestamptz')
    .addColumn('chat_muted', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('display_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('deleted_at', 'timestamptz')
    .execute();

  await db.schema
    .createTable('platform_identities')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('telegram', 'vk')`))
    .addColumn('external_id', 'text', (c) => c.notNull().check(sql`length(external_id) between 1 and 64`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('platform_identities_kind_external_id_key', ['kind', 'external_id'])
    .execute();

  await db.schema.createIndex('platform_identities_account_id_idx').on('platform_identities').column('account_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('platform_identities').execute();
  await db.schema.dropTable('accounts').execute();
}
