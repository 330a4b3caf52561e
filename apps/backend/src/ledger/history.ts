import { sql, type Kysely, type Selectable } from 'kysely';
import type { DB } from '../db/index.js';
import type { LedgerOperationsTable } from './ledger.table.js';

/** A position in the player's history: Unix microseconds of an entry, its source's rank, its id in that source. */
export interface LedgerHistoryCursor {
  atMicros: bigint;
  rank: number;
  id: string;
}

/**
 * A ledger operation as the player's history shows it: the row, its time in Unix microseconds
 * (exact, for the cursor), and the segment's chips and the origin's hints right after it (running
 * sums of the append-only ledger, which the audit proves equal to the balances).
 */
export type LedgerHistoryRow = Selectable<LedgerOperationsTable> & { at_us: bigint; balance_after: bigint; hints_after: bigint };

/**
 * One page of an account's ledger operations, newest first by (created_at, id), after `cursor` in
 * the history's order (time desc, then source rank desc, then id desc; ledger rows are `rank`).
 * The `purchase` row that credits an order is left out: the order is its own history entry.
 */
export async function ledgerHistory(
  db: Kysely<DB>,
  accountId: bigint,
  rank: number,
  cursor: LedgerHistoryCursor | null,
  limit: number,
): Promise<LedgerHistoryRow[]> {
  let q = db
    .with('running', (w) =>
      w
        .selectFrom('ledger_operations')
        .selectAll()
        .select([
          sql<bigint>`(extract(epoch from created_at) * 1000000)::bigint`.as('at_us'),
          sql<bigint>`coalesce(sum(chips_delta) over (partition by segment order by id), 0)::bigint`.as('balance_after'),
          sql<bigint>`coalesce(sum(hints_delta) over (partition by benefit_origin order by id), 0)::bigint`.as('hints_after'),
        ])
        .where('account_id', '=', accountId),
    )
    .selectFrom('running')
    .selectAll()
    .where((eb) => eb.or([eb('kind', '<>', 'purchase'), eb('order_id', 'is', null)]));
  if (cursor) {
    const c = cursor;
    q =
      rank < c.rank
        ? q.where('at_us', '<=', c.atMicros)
        : rank > c.rank
          ? q.where('at_us', '<', c.atMicros)
          : q.where((eb) => eb.or([eb('at_us', '<', c.atMicros), eb.and([eb('at_us', '=', c.atMicros), eb('id', '<', BigInt(c.id))])]));
  }
  return q.orderBy('at_us', 'desc').orderBy('id', 'desc').limit(limit).execute();
}
