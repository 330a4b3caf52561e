import type { Kysely } from 'kysely';
import type { DB } from '../db/index.js';
import { rollUpClosedDays } from '../ledger/index.js';
import { ceilUtcDay, floorUtcDay } from './daily-totals.js';
import type { LedgerFilter } from './ledger-filter.js';
import { dailyTotalsGroups, ledgerRows, rowGroups, type ConsoleLedgerRow, type LedgerCursor, type TotalsGroup } from './console.store.js';

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

/**
 * Up to `limit` rows after `cursor`, newest first by (created_at, id), plus whether more follow
 * (one statement: it reads one row more than it answers).
 */
export async function ledgerPage(
  db: Kysely<DB>,
  f: LedgerFilter,
  cursor: LedgerCursor | null,
  limit: number,
): Promise<{ rows: ConsoleLedgerRow[]; hasMore: boolean }> {
  const rows = await ledgerRows(db, f, cursor, limit + 1);
  return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
}

/**
 * The filter's (day, currency) groups: whole closed UTC days from the per-day rollup
 * (ledger_daily_totals, rolled up on demand), the partial first day, today and any other not-yet-closed
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
