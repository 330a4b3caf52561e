import { sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../db/index.js';
import type { RereadKind } from '../../metrics/index.js';
import { CREDITABLE_STATES } from '../orders/state.js';

type Db = Kysely<DB> | Transaction<DB>;

/** The provider object a notification names, under the shop of the order it was found through (its `provider_rereads` key). */
export interface RereadKey {
  shop: string;
  kind: RereadKind;
  objectId: string;
}

/**
 * Fails a still creditable order whose provider payment was canceled, recording the payment id when
 * none is recorded yet. Answers the order's id and account, or undefined when it was no longer
 * creditable (already settled).
 */
export async function failCanceledOrder(
  db: Db,
  orderId: string,
  reason: string,
  paymentId: string,
): Promise<{ id: string; account_id: bigint } | undefined> {
  return db
    .updateTable('orders')
    .set((eb) => ({
      state: 'failed',
      failure_reason: reason,
      provider_payment_id: eb.fn.coalesce('provider_payment_id', eb.val(paymentId)),
    }))
    .where('id', '=', orderId)
    .where('state', 'in', CREDITABLE_STATES)
    .returning(['id', 'account_id'])
    .executeTakeFirst();
}

/**
 * Claims `key` for a re-read at `now` in one atomic upsert (clearing its failed flag): true when its
 * row was absent or last claimed at or before `before` (on any replica), false when a later claim
 * holds it.
 */
export async function claimReread(db: Db, key: RereadKey, now: Date, before: Date): Promise<boolean> {
  const { rows } = await sql<{ claimed: number }>`
      insert into provider_rereads (shop, kind, object_id, last_reread_at, failed)
      values (${key.shop}, ${key.kind}, ${key.objectId}, ${now}, false)
      on conflict (shop, kind, object_id) do update set last_reread_at = excluded.last_reread_at, failed = false
      where provider_rereads.last_reread_at <= ${before}
      returning 1 as claimed`.execute(db);
  return rows.length === 1;
}

/** True when `key`'s row is marked failed; false when it is not, or there is no row. */
export async function rereadFailed(db: Db, key: RereadKey): Promise<boolean> {
  const { rows } = await sql<{ failed: boolean }>`
      select failed from provider_rereads where shop = ${key.shop} and kind = ${key.kind} and object_id = ${key.objectId}`.execute(db);
  return rows[0]?.failed === true;
}

/** Marks `key`'s row failed when it is still the claim made at `claimedAt`; a later claim's row is left alone. */
export async function markRereadFailed(db: Db, key: RereadKey, claimedAt: Date): Promise<void> {
  await sql`
      update provider_rereads set failed = true
      where shop = ${key.shop} and kind = ${key.kind} and object_id = ${key.objectId} and last_reread_at = ${claimedAt}`.execute(db);
}

/** Deletes up to `limit` re-read rows last claimed before `before`, oldest first; answers how many went. */
export async function deleteRereadsBefore(db: Db, before: Date, limit: number): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    with old as (
      select shop, kind, object_id from provider_rereads where last_reread_at < ${before} order by last_reread_at limit ${limit}
    )
    delete from provider_rereads r using old
    where r.shop = old.shop and r.kind = old.kind and r.object_id = old.object_id
    returning 1 as n`.execute(db);
  return rows.length;
}
