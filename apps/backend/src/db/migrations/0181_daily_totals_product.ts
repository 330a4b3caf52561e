import { sql, type Kysely } from 'kysely';

/**
 * The ledger's daily totals gain the product dimension (the revenue page reads revenue per day,
 * rail, product and currency from them). The rollup key becomes (day, segment, benefit_origin,
 * rail, kind, currency, product_id); every rolled-up day is dropped from `ledger_rollup_days`, so
 * the next query rebuilds it with products through the same path and advisory locks (the late-row
 * trigger of 0040 is unchanged). Reversible: `down` drops the column and rebuilds likewise.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table ledger_daily_totals add column product_id bigint`.execute(db);
  await sql`delete from ledger_rollup_days`.execute(db);
  await sql`delete from ledger_daily_totals`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`delete from ledger_rollup_days`.execute(db);
  await sql`delete from ledger_daily_totals`.execute(db);
  await sql`alter table ledger_daily_totals drop column product_id`.execute(db);
}
