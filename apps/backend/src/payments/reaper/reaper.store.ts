import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/index.js';
import type { OrderRow } from '../orders/orders.store.js';
import { CREDITABLE_STATES } from '../orders/state.js';

type Db = Kysely<DB> | Transaction<DB>;

/**
 * Moves up to `limit` pending orders whose lifetime ended by `now` to `expired`, earliest first,
 * skipping rows another transaction has locked; answers the ids it expired (none: empty).
 */
export async function expirePendingOrders(db: Db, now: Date, limit: number): Promise<string[]> {
  const rows = await db
    .updateTable('orders')
    .set({ state: 'expired' })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('orders')
        .select('id')
        .where('state', '=', 'pending')
        .where('expires_at', '<=', now)
        .orderBy('expires_at')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .where('state', '=', 'pending')
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/** Which card orders a re-check claim may pick, and the lease it gives them. */
export interface RecheckClaim {
  provider: string;
  shopIds: string[];
  /** Only orders created at or before this. */
  createdUpTo: Date;
  /** Leases that ran out by this time are taken. */
  now: Date;
  /** The lease the claimed orders get. */
  leaseUntil: Date;
  limit: number;
}

/**
 * What the reaper re-reads: `payment` — creditable card orders older than `createdUpTo` that carry a
 * provider payment id and have no refund in flight (a held order cannot be credited); `refund` —
 * card orders whose held refund the provider last reported pending (`refund_pending_id`) and that no
 * press holds.
 */
export type RecheckKind = 'payment' | 'refund';

/**
 * Leases up to `limit` card orders of the provider's shops due for a re-read of `kind` whose lease
 * ran out (never leased first, then least recently leased, then oldest), in one UPDATE over a
 * `FOR UPDATE SKIP LOCKED` pick; answers the claimed orders (none: empty).
 */
export async function claimRechecks(db: Db, kind: RecheckKind, claim: RecheckClaim): Promise<OrderRow[]> {
  return db
    .updateTable('orders')
    .set({ recheck_after: claim.leaseUntil })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('orders')
        .select('id')
        .$if(kind === 'payment', (q) =>
          q
            .where('state', 'in', CREDITABLE_STATES)
            .where('provider_payment_id', 'is not', null)
            .where('refund_hold', 'is', null)
            .where('created_at', '<=', claim.createdUpTo),
        )
        .$if(kind === 'refund', (q) => q.where('refund_pending_id', 'is not', null).where('refund_claimed_at', 'is', null))
        .where('rail', '=', 'card')
        .where('provider', '=', claim.provider)
        .where('shop', 'in', claim.shopIds)
        .where((w) => w.or([w('recheck_after', 'is', null), w('recheck_after', '<=', claim.now)]))
        .orderBy('recheck_after', (ob) => ob.asc().nullsFirst())
        .orderBy('created_at')
        .limit(claim.limit)
        .forUpdate()
        .skipLocked(),
    )
    .returningAll()
    .execute();
}
