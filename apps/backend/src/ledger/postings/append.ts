import type { Insertable, Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/index.js';
import type { LedgerOperationsTable } from '../ledger.table.js';
import type { Segment } from '../../gate/index.js';

/** A ledger row to append. */
export type NewLedgerOperation = Insertable<LedgerOperationsTable>;

/** Appends operations to the (append-only) ledger inside the caller's transaction. */
export async function appendOperations(trx: Transaction<DB>, ops: readonly NewLedgerOperation[]): Promise<void> {
  if (ops.length > 0)
    await trx
      .insertInto('ledger_operations')
      .values([...ops])
      .execute();
}

/**
 * Credits chips to one segment with a `grant` ledger operation, in one transaction (dev seeding
 * and tests; paid credits go through orders). Returns the segment's new balance.
 */
export async function grantChips(db: Kysely<DB>, accountId: bigint, segment: Segment, amount: bigint, note = ''): Promise<bigint> {
  if (amount <= 0n) throw new RangeError('a grant is a positive number of chips');
  return db.transaction().execute(async (trx) => {
    const { balance } = await trx
      .insertInto('wallet_segments')
      .values({ account_id: accountId, segment, balance: amount })
      .onConflict((oc) =>
        oc.columns(['account_id', 'segment']).doUpdateSet((eb) => ({ balance: eb('wallet_segments.balance', '+', amount) })),
      )
      .returning('balance')
      .executeTakeFirstOrThrow();
    await appendOperations(trx, [{ account_id: accountId, kind: 'grant', segment, chips_delta: amount, note }]);
    return balance;
  });
}
