import { sql, type Kysely } from 'kysely';

/** E-mail and password sign-in on accounts, e-mail confirmations, and sessions (hashed tokens). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('email', 'text', (c) => c.check(sql`email = lower(email) and length(email) between 3 and 254`))
    .addColumn('email_confirmed_at', 'timestamptz')
    .addColumn('password_hash', 'text')
    .execute();
  await db.schema.createIndex('accounts_email_key').unique().on('accounts').column('email').execute();

  await db.schema
    .createTable('email_confirmations')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('email_confirmations_account_id_idx').on('email_confirmations').column('account_id').execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('account_id', 'bigint', (c) => c.notNull().references('accounts.id'))
    .addColumn('platform_kind', 'text', (c) => c.check(sql`platform_kind in ('telegram', 'vk', 'direct')`))
    .addColumn('platform_subtype', 'text', (c) => c.check(sql`platform_subtype in ('ios', 'android', 'web')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addCheckConstraint('sessions_subtype_needs_kind', sql`platform_kind is not null or platform_subtype is null`)
    .execute();
  await db.schema.createIndex('sessions_account_id_idx').on('sessions').column('account_id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sessions').execute();
  await db.schema.dropTable('email_confirmations').execute();
  await db.schema.dropIndex('accounts_email_key').execute();
  await db.schema.alterTable('accounts').dropColumn('password_hash').dropColumn('email_confirmed_at').dropColumn('email').execute();
}
