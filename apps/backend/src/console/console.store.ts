import { sql, type Kysely, type Selectable, type SelectQueryBuilder } from 'kysely';
import type { DB } from '../db/index.js';
import type { LedgerOperationsTable } from '../ledger/index.js';
import type { StarRefundStatus, UnmatchedPaymentsTable } from '../payments/index.js';
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

/** One (UTC day, currency) group of matched ledger rows. */
export interface TotalsGroup {
  day: bigint;
  currency: string | null;
  n: bigint;
  chips: bigint;
  chips_n: bigint;
  money: bigint | null;
}

type LedgerQb<O> = SelectQueryBuilder<DB, 'ledger_operations', O>;

/** The filter's WHERE clauses, shared by the page, the totals and the export. */
function whereFilter<O>(qb: LedgerQb<O>, f: LedgerFilter): LedgerQb<O> {
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
 * Up to `count` of the filter's ledger rows after `cursor`, newest first by (created_at, id). The
 * cursor comparison is a row comparison on the exact microsecond timestamp, so paging never skips
 * or repeats a row even when many share a timestamp.
 */
export async function ledgerRows(db: Kysely<DB>, f: LedgerFilter, cursor: LedgerCursor | null, count: number): Promise<ConsoleLedgerRow[]> {
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
  return q.orderBy('ledger_operations.created_at', 'desc').orderBy('ledger_operations.id', 'desc').limit(count).execute();
}

/** The filter's (day, currency) groups from the ledger rows themselves, in one grouped scan. */
export async function rowGroups(db: Kysely<DB>, f: LedgerFilter): Promise<TotalsGroup[]> {
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

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/**
 * The filter's (day, currency) groups over whole rolled-up days [fromDay, toDay) from
 * ledger_daily_totals (no account filter: the rollup has no account dimension).
 */
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

/** Up to `limit` unmatched payments, newest first: of one refund status when given, with ids below `beforeId` when it is > 0. */
export async function unmatchedRows(
  db: Kysely<DB>,
  q: { status: StarRefundStatus | null; beforeId: bigint; limit: number },
): Promise<Selectable<UnmatchedPaymentsTable>[]> {
  let query = db.selectFrom('unmatched_payments').selectAll().orderBy('id', 'desc').limit(q.limit);
  if (q.status !== null) query = query.where('refund_status', '=', q.status);
  if (q.beforeId > 0n) query = query.where('id', '<', q.beforeId);
  return query.execute();
}

/** The number of unmatched payments in each refund status present (a status with none has no row). */
export async function unmatchedStatusCounts(db: Kysely<DB>): Promise<{ refund_status: StarRefundStatus; n: string }[]> {
  return db
    .selectFrom('unmatched_payments')
    .select(['refund_status', sql<string>`count(*)`.as('n')])
    .groupBy('refund_status')
    .execute();
}
