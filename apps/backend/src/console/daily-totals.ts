import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/index.js';
import type { LedgerFilter } from './ledger-filter.js';

const DAY_MS = 86_400_000;

/** One (UTC day, currency) group of matched ledger rows. */
export interface TotalsGroup {
  day: bigint;
  currency: string | null;
  n: bigint;
  chips: bigint;
  chips_n: bigint;
  money: bigint | null;
}

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/** The filter's (day, currency) groups over whole rolled-up days [fromDay, toDay) (no account filter). */
export async function dailyTotalsGroups(db: Kysely<DB>, f: LedgerFilter, fromDay: Date, toDay: Date): Promise<TotalsGroup[]> {
  const wallet = f.wallet === null ? sql`true` : sql`(segment = ${f.wallet} or benefit_origin = ${f.wallet})`;
  const rail = f.rail === null ? sql`true` : sql`rail = ${f.rail}`;
  const kind = f.kind === null ? sql`true` : sql`kind = ${f.kind}`;
  const { rows } = await sql<TotalsGroup>`
    select extract(epoch from day)::bigint as day, currency,
           sum(operations)::bigint as n, sum(chips)::bigint as chips, sum(chips_operations)::bigint as chips_n, sum(money)::bigint as money
    from ledger_daily_totals
    where day >= ${isoDay(fromDay)}::date and day < ${isoDay(toDay)}::date and ${wallet} and ${rail} and ${kind}
    group by day, currency`.execute(db);
  return rows;
}

/** Start of the UTC day of `d`, or of the next day when `d` is not a day start. */
export function ceilUtcDay(d: Date): Date {
  const floor = Math.floor(d.getTime() / DAY_MS) * DAY_MS;
  return new Date(floor === d.getTime() ? floor : floor + DAY_MS);
}

/** Start of the UTC day of `d`. */
export function floorUtcDay(d: Date): Date {
  return new Date(Math.floor(d.getTime() / DAY_MS) * DAY_MS);
}
