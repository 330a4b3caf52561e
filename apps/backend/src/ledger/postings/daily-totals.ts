import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/index.js';

/** Days rolled up per transaction (each holds one advisory lock per day). */
const ROLLUP_CHUNK = 92;

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/**
 * Rolls up every closed UTC day in [fromDay, toDay) not yet in ledger_daily_totals (per segment,
 * origin, rail, kind, currency and product) and returns
 * the exclusive end of the closed days (per the database clock, days that ended at least 10
 * minutes ago; see migration 0040). A day is recomputed under its advisory lock, the lock a
 * back-dated ledger insert takes to invalidate it, so a rollup never misses a committed row.
 */
export async function rollUpClosedDays(db: Kysely<DB>, fromDay: Date, toDay: Date): Promise<Date> {
  const { rows } = await sql<{ closed_end: string; missing: string[] }>`
    with e as (select ((statement_timestamp() - interval '10 minutes') at time zone 'UTC')::date as closed_end)
    select e.closed_end::text as closed_end,
           array(select d::date::text from generate_series(${isoDay(fromDay)}::date, least(${isoDay(toDay)}::date, e.closed_end) - 1, interval '1 day') d
                 where not exists (select 1 from ledger_rollup_days r where r.day = d::date) order by 1) as missing
    from e`.execute(db);
  const row = rows[0];
  if (!row) throw new Error('rollup window query returned no row');
  for (let i = 0; i < row.missing.length; i += ROLLUP_CHUNK) await rollUp(db, row.missing.slice(i, i + ROLLUP_CHUNK));
  return new Date(`${row.closed_end}T00:00:00Z`);
}

async function rollUp(db: Kysely<DB>, days: string[]): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(740520, d - date '2000-01-01') from unnest(${days}::date[]) d order by d`.execute(trx);
    const { rows } = await sql<{ days: string[] }>`
      select array(select d::text from unnest(${days}::date[]) d where not exists (select 1 from ledger_rollup_days r where r.day = d) order by 1) as days`.execute(
      trx,
    );
    const todo = rows[0]?.days ?? [];
    const first = todo[0];
    const last = todo[todo.length - 1];
    if (first === undefined || last === undefined) return;
    await sql`delete from ledger_daily_totals where day = any(${todo}::date[])`.execute(trx);
    await sql`
      insert into ledger_daily_totals (day, segment, benefit_origin, rail, kind, currency, product_id, operations, chips_operations, chips, money)
      select (created_at at time zone 'UTC')::date, segment, benefit_origin, rail, kind, currency, product_id,
             count(*), count(*) filter (where chips_delta <> 0), coalesce(sum(chips_delta), 0), sum(money_minor)
      from ledger_operations
      where created_at >= ${first}::date::timestamp at time zone 'UTC' and created_at < (${last}::date + 1)::timestamp at time zone 'UTC'
        and (created_at at time zone 'UTC')::date = any(${todo}::date[])
      group by 1, 2, 3, 4, 5, 6, 7`.execute(trx);
    await sql`insert into ledger_rollup_days (day) select unnest(${todo}::date[]) on conflict do nothing`.execute(trx);
  });
}
