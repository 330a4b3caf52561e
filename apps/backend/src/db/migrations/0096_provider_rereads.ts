import { sql, type Kysely } from 'kysely';

/**
 * When the payment or refund a provider notification named was last re-read from the provider,
 * per shop (expand only; reversible): the row every backend replica claims with one atomic upsert
 * before a re-read, so notifications naming one object cause at most one re-read per window, and
 * whether that re-read failed (then the window's other notifications are asked to come again).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('provider_rereads')
    .addColumn('shop', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('payment', 'refund')`))
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('last_reread_at', 'timestamptz', (c) => c.notNull())
    .addColumn('failed', 'boolean', (c) => c.notNull().defaultTo(false))
    .addPrimaryKeyConstraint('provider_rereads_pkey', ['shop', 'kind', 'object_id'])
    .execute();
  await db.schema.createIndex('provider_rereads_last_idx').on('provider_rereads').column('last_reread_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('provider_rereads').execute();
}
