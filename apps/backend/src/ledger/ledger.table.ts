import type { ColumnType, Generated } from 'kysely';
import type { Segment } from '../gate/index.js';

export interface WalletSegmentsTable {
  account_id: bigint;
  segment: Segment;
  /** Chips; below zero is a debt left by a full refund (0062): nothing is drawn from it. */
  balance: ColumnType<bigint, bigint | undefined, bigint>;
}

export interface BenefitsTable {
  account_id: bigint;
  origin: Segment;
  no_ads_until: Date | null;
  no_ads_forever: ColumnType<boolean, boolean | undefined, boolean>;
  /** Below zero is a debt left by a full refund (0062): no hint is taken from it. */
  hints: ColumnType<bigint, bigint | undefined, bigint>;
  /** No ads until then from a stars subscription's paid periods (the latest unrefunded period's end, 0150). */
  pass_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/**
 * What a ledger row records: `grant` (a system or test grant), `spend`, `purchase` and `refund`
 * (an order's credit and its reversal), `code_grant` (a promo code redeemed), `make_good` (an
 * operator's grant with a reason) and `reversal` (an operator taking back a code grant or a make-good).
 */
export type LedgerKind = 'grant' | 'spend' | 'purchase' | 'refund' | 'code_grant' | 'make_good' | 'reversal';

/** Append-only: the database refuses UPDATE, DELETE and TRUNCATE. */
export interface LedgerOperationsTable {
  id: Generated<bigint>;
  account_id: bigint;
  kind: LedgerKind;
  segment: Segment | null;
  benefit_origin: Segment | null;
  /** Settling provider; null for a chip spend. */
  rail: string | null;
  provider: string | null;
  refund_id: string | null;
  product_id: bigint | null;
  chips_delta: ColumnType<bigint, bigint | undefined, never>;
  money_minor: bigint | null;
  currency: string | null;
  hints_delta: ColumnType<bigint, bigint | undefined, never>;
  no_ads_days: ColumnType<bigint, bigint | undefined, never>;
  no_ads_forever: ColumnType<boolean, boolean | undefined, never>;
  note: ColumnType<string, string | undefined, never>;
  created_at: ColumnType<Date, Date | undefined, never>;
  /** The paid order a `purchase` or `refund` row belongs to; null otherwise. */
  order_id: ColumnType<string | null, string | null | undefined, never>;
  /** A subscription charge's `purchase` (granted) or `refund` (revoked) row: the end of the period it paid for (0150). */
  pass_until: ColumnType<Date | null, Date | null | undefined, never>;
}

/**
 * The ledger rolled up per closed UTC day and group (0040): rebuilt by postings/daily-totals.ts for
 * the days missing from ledger_rollup_days; read by the reports instead of scanning the ledger.
 */
export interface LedgerDailyTotalsTable {
  day: ColumnType<string, string, never>;
  segment: Segment | null;
  benefit_origin: Segment | null;
  rail: string | null;
  kind: LedgerKind;
  currency: string | null;
  /** The rows' product (0181); null for rows without one. */
  product_id: bigint | null;
  operations: bigint;
  chips_operations: bigint;
  chips: bigint;
  money: bigint | null;
}

/** The closed UTC days whose totals are current; a late ledger row for a day deletes its row (trigger, 0040). */
export interface LedgerRollupDaysTable {
  day: ColumnType<string, string, never>;
  rolled_up_at: ColumnType<Date, Date | undefined, never>;
}

declare module '../db/index.js' {
  /** The ledger's tables, the money the one writer (postings/) keeps: wallet segments, benefits, the append-only ledger and its daily totals. */
  interface DB {
    wallet_segments: WalletSegmentsTable;
    benefits: BenefitsTable;
    ledger_operations: LedgerOperationsTable;
    ledger_daily_totals: LedgerDailyTotalsTable;
    ledger_rollup_days: LedgerRollupDaysTable;
  }
}
