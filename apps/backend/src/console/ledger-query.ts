import { sql, type Kysely, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { DB } from '../db/index.js';
import type { LedgerOperationsTable } from '../ledger/index.js';
import { rollUpClosedDays } from '../ledger/index.js';
import { ceilUtcDay, dailyTotalsGroups, floorUtcDay, type TotalsGroup } from './daily-totals.js';
import type { LedgerFilter } from './ledger-filter.js';

/** One ledger row as the console shows it. */
export type ConsoleLedgerRow = Selectable<LedgerOperationsTable> & {
  /** created_at in microseconds since the epoch (exact; the keyset cursor). */
  created_us: bigint;
  /** A refund row exists for this row's order. */
  refunded: boolean;
};

/** Keyset position: the last row of the previous page. */
export interface LedgerCursor {
  createdUs: bigint;
  id: bigint;
}

/** Sum of the matched rows' snapshots in one currency. */
export interface CurrencyTotal {
  currency: string;
  amount: bigint;
  operations: bigint;
}

/** One UTC day's total in one currency. */
export interface DailyTotal {
  dayUnix: bigint;
  currency: string;
  amount: bigint;
}

/** Totals over everything the filter matches. */
export interface LedgerTotals {
  matched: bigint;
  totals: CurrencyTotal[];
  daily: DailyTotal[];
}

/** Chip amounts are totalled under this currency code (chips_delta); money under its own. */
export const CHIPS = 'CHIPS';

type LedgerQb<O> = SelectQueryBuilder<DB, 'ledger_operations', O>;

/** The filter's WHERE clauses, shared by the page, the totals and the export. */
export function whereFilter<O>(qb: LedgerQb<O>, f: LedgerFilter): LedgerQb<O> {
  let q = qb.where('ledger_operations.created_at', '>=', f.from).where('ledger_operations.created_at', '<', f.to);
  const wallet = f.wallet;
  if (wallet !== null)
    q = q.where((eb) => eb.or([eb('ledger_operations.segment', '=', wallet), eb('ledger_operations.benefit_origin', '=', wallet)]));
  // A chip spend has rail null: `rail = x` never matches it, so it drops out of a rail filter.
  if (f.rail !== null) q = q.where('ledger_operations.rail', '=', f.rail);
  if (f.kind !== null) q = q.where('ledger_operations.kind', '=', f.kind);
  if (f.accountId !== null) q = q.where('ledger_operations.account_id', '=', f.accountId);
  return q;
}

/**
 * Up to `limit` rows after `cursor`, newest first by (created_at, id), plus whether more follow.
 * The cursor comparison is a row comparison on the exact microsecond timestamp, so paging never
 * skips or repeats a row even when many share a timestamp.
 */
export async function ledgerPage(
  db: Kysely<DB>,
  f: LedgerFilter,
  cursor: LedgerCursor | null,
  limit: number,
): Promise<{ rows: ConsoleLedgerRow[]; hasMore: boolean }> {
  let q = whereFilter(db.selectFrom('ledger_operations').selectAll('ledger_operations'), f).select([
    sql<bigint>`(extract(epoch from ledger_operations.created_at) * 1000000)::bigint`.as('created_us'),
    sql<boolean>`(ledger_operations.order_id is not null and exists (
      select 1 from ledger_operations r where r.order_id = ledger_operations.order_id and r.kind = 'refund'))`.as('refunded'),
  ]);
  if (cursor !== null) {
    q = q.where(
      sql<boolean>`(ledger_operations.created_at, ledger_operations.id) < (timestamptz 'epoch' + ${cursor.createdUs.toString()}::bigint * interval '1 microsecond', ${cursor.id.toString()}::bigint)`,
    );
  }
  const rows = await q
    .orderBy('ledger_operations.created_at', 'desc')
    .orderBy('ledger_operations.id', 'desc')
    .limit(limit + 1)
    .execute();
  return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
}

/** The filter's (day, currency) groups from the ledger rows themselves, in one grouped scan. */
async function rowGroups(db: Kysely<DB>, f: LedgerFilter): Promise<TotalsGroup[]> {
  return whereFilter(db.selectFrom('ledger_operations'), f)
    .select([
      sql<bigint>`extract(epoch from date_trunc('day', ledger_operations.created_at, 'UTC'))::bigint`.as('day'),
      'ledger_operations.currency',
      sql<bigint>`count(*)`.as('n'),
      sql<bigint>`coalesce(sum(ledger_operations.chips_delta), 0)::bigint`.as('chips'),
      sql<bigint>`count(*) filter (where ledger_operations.chips_delta <> 0)`.as('chips_n'),
      sql<bigint | null>`sum(ledger_operations.money_minor)::bigint`.as('money'),
    ])
    .groupBy(['day', 'ledger_operations.currency'])
    .execute();
}

/**
 * The filter's (day, currency) groups: whole closed UTC days from the per-day rollup
 * (daily-totals.ts, rolled up on demand), the partial first day, today and any other not-yet-closed
 * time from the rows. A filter on one account reads the rows only (its index is selective; the
 * rollup has no account dimension).
 */
async function totalsGroups(db: Kysely<DB>, f: LedgerFilter): Promise<TotalsGroup[]> {
  const firstDay = ceilUtcDay(f.from);
  const lastDay = floorUtcDay(f.to);
  if (f.accountId !== null || firstDay >= lastDay) return rowGroups(db, f);
  const closedEnd = await rollUpClosedDays(db, firstDay, lastDay);
  const summaryEnd = closedEnd < lastDay ? closedEnd : lastDay;
  if (firstDay >= summaryEnd) return rowGroups(db, f);
  const parts = await Promise.all([
    dailyTotalsGroups(db, f, firstDay, summaryEnd),
    f.from < firstDay ? rowGroups(db, { ...f, to: firstDay }) : Promise.resolve([]),
    summaryEnd < f.to ? rowGroups(db, { ...f, from: summaryEnd }) : Promise.resolve([]),
  ]);
  return parts.flat();
}

/**
 * Totals per currency over the whole filter from the rows' snapshots (chips_delta under CHIPS,
 * money_minor under its currency), the matched count, and per-UTC-day totals for the chart.
 */
export async function ledgerTotals(db: Kysely<DB>, f: LedgerFilter): Promise<LedgerTotals> {
  const groups = await totalsGroups(db, f);

  let matched = 0n;
  const totals = new Map<string, CurrencyTotal>();
  const daily = new Map<string, DailyTotal>();
  const add = (day: bigint, currency: string, amount: bigint, operations: bigint) => {
    if (operations === 0n) return;
    const t = totals.get(currency) ?? { currency, amount: 0n, operations: 0n };
    t.amount += amount;
    t.operations += operations;
    totals.set(currency, t);
    const key = `${day}|${currency}`;
    const d = daily.get(key) ?? { dayUnix: day, currency, amount: 0n };
    d.amount += amount;
    daily.set(key, d);
  };
  for (const g of groups) {
    const n = BigInt(g.n);
    matched += n;
    add(BigInt(g.day), CHIPS, BigInt(g.chips), BigInt(g.chips_n));
    if (g.currency !== null && g.money !== null) add(BigInt(g.day), g.currency, BigInt(g.money), n);
  }
  const byCurrency = (a: { currency: string }, b: { currency: string }) =>
    a.currency === b.currency ? 0 : a.currency === CHIPS ? -1 : b.currency === CHIPS ? 1 : a.currency < b.currency ? -1 : 1;
  return {
    matched,
    totals: [...totals.values()].sort(byCurrency),
    daily: [...daily.values()].sort((a, b) => (a.dayUnix === b.dayUnix ? byCurrency(a, b) : a.dayUnix < b.dayUnix ? -1 : 1)),
  };
}

/** Rows per batch of an export. */
export const EXPORT_BATCH = 1_000;
/** The backend's own bound on one export, whatever the caller asks. */
export const EXPORT_HARD_CAP = 1_000_000;

/**
 * The export of a filter, newest first, in keyset batches of EXPORT_BATCH: memory stays flat
 * whatever the size; at most `maxRows` (clamped to 1..EXPORT_HARD_CAP) rows in all.
 */
export async function* exportLedger(db: Kysely<DB>, f: LedgerFilter, maxRows: number): AsyncGenerator<ConsoleLedgerRow[]> {
  let left = Math.min(Math.max(1, maxRows), EXPORT_HARD_CAP);
  let cursor: LedgerCursor | null = null;
  while (left > 0) {
    const { rows, hasMore } = await ledgerPage(db, f, cursor, Math.min(EXPORT_BATCH, left));
    if (rows.length === 0) return;
    yield rows;
    left -= rows.length;
    const last = rows[rows.length - 1];
    if (!hasMore || last === undefined) return;
    cursor = { createdUs: last.created_us, id: last.id };
  }
}
