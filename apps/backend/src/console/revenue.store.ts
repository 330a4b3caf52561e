import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/index.js';

/** One (day, rail, product, currency, kind) group of purchase or refund money. */
export interface RevenueGroup {
  day: bigint;
  rail: string | null;
  product_id: bigint | null;
  currency: string;
  kind: 'purchase' | 'refund';
  n: bigint;
  money: bigint;
}

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/** Purchase and refund money of the whole rolled-up days [fromDay, toDay), from ledger_daily_totals. */
export async function rolledUpRevenue(db: Kysely<DB>, fromDay: Date, toDay: Date): Promise<RevenueGroup[]> {
  const { rows } = await sql<RevenueGroup>`
    select extract(epoch from day)::bigint as day, rail, product_id, currency, kind,
           sum(operations)::bigint as n, sum(money)::bigint as money
    from ledger_daily_totals
    where day >= ${isoDay(fromDay)}::date and day < ${isoDay(toDay)}::date
      and kind in ('purchase', 'refund') and currency is not null and money is not null
    group by day, rail, product_id, currency, kind`.execute(db);
  return rows;
}

/** Purchase and refund money of the ledger rows in [from, to) (the days not rolled up yet: today's open day). */
export async function rowRevenue(db: Kysely<DB>, from: Date, to: Date): Promise<RevenueGroup[]> {
  const { rows } = await sql<RevenueGroup>`
    select extract(epoch from date_trunc('day', created_at, 'UTC'))::bigint as day, rail, product_id, currency, kind,
           count(*)::bigint as n, sum(money_minor)::bigint as money
    from ledger_operations
    where created_at >= ${from} and created_at < ${to}
      and kind in ('purchase', 'refund') and currency is not null and money_minor is not null
    group by 1, rail, product_id, currency, kind`.execute(db);
  return rows;
}
