/**
 * The console's reads of mismatches beyond the last run: one row with its order and player (what
 * an action's confirmation page shows) and the resolved rows of every run (the history view). Reads
 * only, no locks; the operators, orders and identities joined belong to other modules (read-only
 * reporting, docs/architecture.md#module-rules).
 */

import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/index.js';
import type { MismatchRow, RunRow } from './reconciliation.store.js';

/** A mismatch as the console shows it: the row, its player's account, its order's state and chips, and who resolved it. */
export interface MismatchView extends MismatchRow {
  /** The order's account; for a stars charge without an order, the account linked to the payer's platform id. */
  account_id: bigint | null;
  order_state: string | null;
  order_chips: bigint | null;
  /** The resolving operator's login (null while open, or once the operator row is gone). */
  resolver: string | null;
  /** resolved_at in exact microseconds (the history's page cursor); null while open. */
  resolved_us: bigint | null;
}

/** Where the next page of the history starts: after the row resolved at `resolvedUs` with `id`. */
export interface HistoryCursor {
  resolvedUs: bigint;
  id: bigint;
}

/** The mismatch rows joined to what the console shows with them. */
function views(db: Kysely<DB>) {
  return db
    .selectFrom('reconciliation_mismatches')
    .leftJoin('orders as o', 'o.id', 'reconciliation_mismatches.order_id')
    .leftJoin('operators as r', 'r.id', 'reconciliation_mismatches.resolved_by')
    .leftJoin('platform_identities as p', (j) =>
      j
        .onRef('p.external_id', '=', 'reconciliation_mismatches.payer_ref')
        .on('p.kind', '=', 'telegram')
        .on('reconciliation_mismatches.rail', '=', 'stars'),
    )
    .selectAll('reconciliation_mismatches')
    .select([
      sql<bigint | null>`coalesce(o.account_id, p.account_id)`.as('account_id'),
      'o.state as order_state',
      'o.chips as order_chips',
      'r.login as resolver',
      sql<bigint | null>`(extract(epoch from reconciliation_mismatches.resolved_at) * 1000000)::bigint`.as('resolved_us'),
    ]);
}

/** One mismatch with its order and player; undefined when there is none. */
export async function mismatchView(db: Kysely<DB>, id: bigint): Promise<MismatchView | undefined> {
  return views(db).where('reconciliation_mismatches.id', '=', id).executeTakeFirst();
}

/** The last finished run (failed ones included) with its mismatches as the console shows them; null before the first run. */
export async function lastReportView(db: Kysely<DB>): Promise<{ run: RunRow; mismatches: MismatchView[] } | null> {
  const run = await db.selectFrom('reconciliation_runs').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirst();
  if (!run) return null;
  const mismatches = await views(db)
    .where('reconciliation_mismatches.run_id', '=', run.id)
    .orderBy('reconciliation_mismatches.id')
    .execute();
  return { run, mismatches };
}

/**
 * Up to `count` resolved mismatches of every run after `cursor`, newest resolution first by
 * (resolved_at, id); the cursor is compared on the exact microsecond, so paging neither skips nor
 * repeats a row when several were resolved at one instant.
 */
export async function resolvedMismatches(db: Kysely<DB>, cursor: HistoryCursor | null, count: number): Promise<MismatchView[]> {
  let q = views(db).where('reconciliation_mismatches.resolved_at', 'is not', null);
  if (cursor !== null) {
    q = q.where(
      sql<boolean>`(reconciliation_mismatches.resolved_at, reconciliation_mismatches.id) < (timestamptz 'epoch' + ${cursor.resolvedUs.toString()}::bigint * interval '1 microsecond', ${cursor.id.toString()}::bigint)`,
    );
  }
  return q.orderBy('reconciliation_mismatches.resolved_at', 'desc').orderBy('reconciliation_mismatches.id', 'desc').limit(count).execute();
}
