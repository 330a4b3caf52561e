import { sql, type Kysely } from 'kysely';

/**
 * Per-UTC-day totals of the ledger for the console (expand only; reversible). The console reads
 * whole closed days from `ledger_daily_totals` instead of scanning every matching ledger row; a day
 * is there only while `ledger_rollup_days` lists it. The rollup of a day and any insert of a ledger
 * row dated in a past day take the same advisory lock on that day; the insert's trigger then drops
 * the day from `ledger_rollup_days`, so the next console query rolls it up again. Rows dated today
 * or later (every wallet.buy, credit and refund) skip the trigger entirely (its WHEN clause), so the
 * hot write paths pay nothing and never contend on a summary row. A day is rolled up only once it
 * ended ROLLUP_GRACE ago (console/daily-totals.ts), so a transaction that inserted a row before
 * midnight and commits after it is already visible to the rollup.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table ledger_daily_totals (
      day date not null,
      segment text,
      benefit_origin text,
      rail text,
      kind text not null,
      currency text,
      operations bigint not null,
      chips_operations bigint not null,
      chips bigint not null,
      money bigint
    )
  `.execute(db);
  await sql`create index ledger_daily_totals_day_idx on ledger_daily_totals (day)`.execute(db);
  await sql`create table ledger_rollup_days (day date primary key, rolled_up_at timestamptz not null default now())`.execute(db);
  await sql`
    create function ledger_rollup_invalidate() returns trigger language plpgsql as $$
    declare
      d date := (new.created_at at time zone 'UTC')::date;
    begin
      perform pg_advisory_xact_lock(740520, d - date '2000-01-01');
      delete from ledger_rollup_days where day = d;
      return null;
    end
    $$
  `.execute(db);
  await sql`
    create trigger ledger_operations_rollup_invalidate after insert on ledger_operations
    for each row when (new.created_at < date_trunc('day', statement_timestamp(), 'UTC'))
    execute function ledger_rollup_invalidate()
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger ledger_operations_rollup_invalidate on ledger_operations`.execute(db);
  await sql`drop function ledger_rollup_invalidate()`.execute(db);
  await sql`drop table ledger_rollup_days`.execute(db);
  await sql`drop table ledger_daily_totals`.execute(db);
}
