import type { ColumnType, Generated } from 'kysely';

/** Append-only: the database refuses UPDATE, DELETE and TRUNCATE. */
export interface OperatorAuditTable {
  id: Generated<bigint>;
  /** null when no operator could be identified (e.g. a sign-in with an unknown login). */
  operator_id: bigint | null;
  action: string;
  target: ColumnType<string, string | undefined, never>;
  outcome: string;
  detail: ColumnType<string, string | undefined, never>;
  at: ColumnType<Date, Date | undefined, never>;
}

declare module '../db/index.js' {
  /** The operator audit trail's table. */
  interface DB {
    operator_audit: OperatorAuditTable;
  }
}
