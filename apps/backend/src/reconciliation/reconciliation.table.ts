import type { ColumnType, Generated } from 'kysely';

/** What a reconciliation found: the five ways the provider's books and ours can disagree. */
export type MismatchKind = 'taken_not_credited' | 'credited_not_taken' | 'refund_provider_only' | 'refund_ledger_only' | 'amount_mismatch';

/** Every kind, in the order the report and the metrics list them. */
export const MISMATCH_KINDS: readonly MismatchKind[] = [
  'taken_not_credited',
  'credited_not_taken',
  'refund_provider_only',
  'refund_ledger_only',
  'amount_mismatch',
];

/** What an operator can do about a mismatch. */
export type MismatchAction = 'refund' | 'credit' | 'resolve';

export type RunTrigger = 'schedule' | 'cli' | 'console';
/**
 * How a run ended: `incomplete` (migration 0104) when a provider's list could not be read whole
 * within the run's call bound, or changed under the read; such a run stores no mismatches.
 */
export type RunOutcome = 'clean' | 'mismatches' | 'failed' | 'incomplete';

/** One reconciliation run (migration 0080). */
export interface ReconciliationRunsTable {
  id: Generated<bigint>;
  trigger: RunTrigger;
  window_from: Date;
  window_to: Date;
  started_at: Date;
  finished_at: Date;
  outcome: RunOutcome;
  error: string | null;
  /** The rails compared, comma-separated (`card,stars`). */
  rails: ColumnType<string, string | undefined, string>;
}

/** One mismatch of a run, and what an operator did about it. */
export interface ReconciliationMismatchesTable {
  id: Generated<bigint>;
  run_id: bigint;
  kind: MismatchKind;
  rail: 'card' | 'stars';
  provider: string;
  shop: string | null;
  order_id: string | null;
  /** The provider payment id (card) or the platform charge id (stars). */
  payment_ref: string;
  refund_ref: string | null;
  /** Stars: the payer's platform user id (a refund goes back to them). */
  payer_ref: string | null;
  ledger_amount: bigint | null;
  ledger_currency: string | null;
  provider_amount: bigint | null;
  provider_currency: string | null;
  occurred_at: Date | null;
  resolution: string | null;
  resolved_at: Date | null;
  resolved_by: bigint | null;
  /** The action that owns the row (migration 0090): claimed before any provider or platform call. */
  action: ColumnType<MismatchAction | null, MismatchAction | null | undefined, MismatchAction | null>;
  action_by: ColumnType<bigint | null, bigint | null | undefined, bigint | null>;
  action_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** The claimer's call is in flight until then; an attempt without a confirmed outcome ends it early. */
  action_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** Numbers the claims, so a claimer releases only its own. */
  action_attempt: ColumnType<number, number | undefined, number>;
}

/** The one-row lease of the scheduled job. */
export interface ReconciliationLeaseTable {
  id: number;
  holder: string;
  until: Date;
}

declare module '../db/index.js' {
  /** The reconciliation tables: runs, the mismatches they found, and the scheduled job's lease. */
  interface DB {
    reconciliation_runs: ReconciliationRunsTable;
    reconciliation_mismatches: ReconciliationMismatchesTable;
    reconciliation_lease: ReconciliationLeaseTable;
  }
}
