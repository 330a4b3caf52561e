import { sql, type Kysely } from 'kysely';

/**
 * Drops `ledger_operations_created_at_idx` (created_at): `ledger_operations_created_id_idx`
 * (created_at, id) serves every query it could, and each ledger insert (every buy, credit and
 * refund) paid for maintaining both. Reversible.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists ledger_operations_created_at_idx`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`create index if not exists ledger_operations_created_at_idx on ledger_operations (created_at)`.execute(db);
}
