import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/index.js';
import type { FriendshipsTable } from './social.table.js';

type Db = Kysely<DB> | Transaction<DB>;

/** Records that `blockerId` blocks `blockedId`; an existing block is left as it is. */
export async function insertBlock(trx: Transaction<DB>, blockerId: bigint, blockedId: bigint, now: Date): Promise<void> {
  await trx
    .insertInto('blocks')
    .values({ blocker_id: blockerId, blocked_id: blockedId, created_at: now })
    .onConflict((oc) => oc.columns(['blocker_id', 'blocked_id']).doNothing())
    .execute();
}

/** Removes `blockerId`'s block on `blockedId`, if there is one. */
export async function deleteBlock(db: Db, blockerId: bigint, blockedId: bigint): Promise<void> {
  await db.deleteFrom('blocks').where('blocker_id', '=', blockerId).where('blocked_id', '=', blockedId).execute();
}

/** Whether an account row with this id exists (deleted or not). */
export async function accountExists(db: Db, accountId: bigint): Promise<boolean> {
  const row = await db.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst();
  return row !== undefined;
}

/** The friendship row between two accounts, whichever asked, row-locked; undefined when there is none. */
export async function lockFriendshipPair(
  trx: Transaction<DB>,
  a: bigint,
  b: bigint,
): Promise<Pick<FriendshipsTable, 'requester_id' | 'status'> | undefined> {
  return trx
    .selectFrom('friendships')
    .select(['requester_id', 'status'])
    .where((eb) =>
      eb.or([
        eb.and([eb('requester_id', '=', a), eb('addressee_id', '=', b)]),
        eb.and([eb('requester_id', '=', b), eb('addressee_id', '=', a)]),
      ]),
    )
    .forUpdate()
    .executeTakeFirst();
}

/** Inserts a pending request from `requesterId` to `addresseeId`; raises `friendships_pair_key` when the pair has a row. */
export async function insertFriendRequest(trx: Transaction<DB>, requesterId: bigint, addresseeId: bigint, now: Date): Promise<void> {
  await trx
    .insertInto('friendships')
    .values({ requester_id: requesterId, addressee_id: addresseeId, status: 'pending', created_at: now })
    .execute();
}

/** Marks `requester`'s request to `addressee` accepted at `now`. */
export async function acceptFriendship(trx: Transaction<DB>, requester: bigint, addressee: bigint, now: Date): Promise<void> {
  await trx
    .updateTable('friendships')
    .set({ status: 'accepted', accepted_at: now })
    .where('requester_id', '=', requester)
    .where('addressee_id', '=', addressee)
    .execute();
}

/** Deletes the friendship or pending request between two accounts, whichever asked. */
export async function deleteFriendshipPair(trx: Transaction<DB>, a: bigint, b: bigint): Promise<void> {
  await trx
    .deleteFrom('friendships')
    .where((eb) =>
      eb.or([
        eb.and([eb('requester_id', '=', a), eb('addressee_id', '=', b)]),
        eb.and([eb('requester_id', '=', b), eb('addressee_id', '=', a)]),
      ]),
    )
    .execute();
}
