import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/index.js';

/** A forget taken by one loop tick: its row is leased until `next_attempt_at`. */
export interface ClaimedForget {
  id: bigint;
  userId: bigint;
  attempts: number;
}

/** Queues a forget per platform user id in the caller's transaction (the deletion's); one already queued stays as it is. */
export async function queueForgets(trx: Transaction<DB>, userIds: readonly bigint[], now: Date): Promise<void> {
  if (userIds.length === 0) return;
  await trx
    .insertInto('bot_forgets')
    .values(userIds.map((user_id) => ({ user_id, next_attempt_at: now })))
    .onConflict((oc) => oc.column('user_id').doNothing())
    .execute();
}

/**
 * Takes up to `batch` forgets due at `now`, earliest first, and leases them until `leaseUntil` (one
 * statement; rows locked SKIP LOCKED, so replicas never take the same one): a tick that dies
 * mid-send leaves its rows due again when the lease ends.
 */
export async function claimDueForgets(db: Kysely<DB>, now: Date, leaseUntil: Date, batch: number): Promise<ClaimedForget[]> {
  const rows = await db
    .updateTable('bot_forgets')
    .set((eb) => ({ next_attempt_at: leaseUntil, attempts: eb('attempts', '+', 1) }))
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('bot_forgets')
        .select('id')
        .where('next_attempt_at', '<=', now)
        .orderBy('next_attempt_at')
        .limit(batch)
        .forUpdate()
        .skipLocked(),
    )
    .returning(['id', 'user_id', 'attempts'])
    .execute();
  return rows.map((r) => ({ id: r.id, userId: r.user_id, attempts: r.attempts }));
}

/** Drops a forget the bot acked: nothing of the user is left in the queue either. */
export async function forgetDone(db: Kysely<DB>, id: bigint): Promise<void> {
  await db.deleteFrom('bot_forgets').where('id', '=', id).execute();
}

/** Puts a forget the bot did not ack back in the queue, due at `at`, with what went wrong. */
export async function forgetLater(db: Kysely<DB>, id: bigint, at: Date, error: string): Promise<void> {
  await db
    .updateTable('bot_forgets')
    .set({ next_attempt_at: at, last_error: error.slice(0, 500) })
    .where('id', '=', id)
    .execute();
}

/** How many forgets wait for the bot, and since when the oldest waits (null when none does). */
export async function pendingForgets(db: Kysely<DB>): Promise<{ count: number; oldest: Date | null }> {
  const row = await db
    .selectFrom('bot_forgets')
    .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.min('created_at').as('oldest')])
    .executeTakeFirst();
  return { count: Number(row?.n ?? 0), oldest: row?.oldest ?? null };
}

/** Whether an account row with this id exists (deleted or not). */
export async function accountRowExists(db: Kysely<DB> | Transaction<DB>, accountId: bigint): Promise<boolean> {
  return (await db.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst()) !== undefined;
}
