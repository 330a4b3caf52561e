import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/index.js';

/** One operator action as the append-only audit keeps it. */
export interface AuditEntry {
  operatorId: bigint | null;
  action: string;
  target?: string;
  outcome: string;
  detail?: string;
}

/** Appends one audit row (in the caller's transaction when given one). */
export async function audit(db: Kysely<DB> | Transaction<DB>, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('operator_audit')
    .values({
      operator_id: entry.operatorId,
      action: entry.action,
      target: entry.target ?? '',
      outcome: entry.outcome,
      detail: (entry.detail ?? '').slice(0, 500),
    })
    .execute();
}
