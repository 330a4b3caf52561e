import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/index.js';
import { DomainError, type DomainErrorCode } from '../rpc/index.js';

type Db = Kysely<DB> | Transaction<DB>;

/**
 * Checks the account a social action (or a game invitation) aims at: a positive id other than
 * the caller's (`selfCode` otherwise), an existing account (`unknown_account`), and not deleted
 * (`account_deleted`, HTTP 410 at the edge).
 */
export async function requireTarget(
  db: Db,
  callerId: bigint,
  targetId: bigint,
  selfCode: DomainErrorCode = 'invalid_target',
): Promise<void> {
  if (targetId <= 0n) throw new DomainError(selfCode, 'account_id must be a positive integer');
  if (targetId === callerId) throw new DomainError(selfCode, 'you cannot aim this at yourself');
  const row = await db.selectFrom('accounts').select('status').where('id', '=', targetId).executeTakeFirst();
  if (!row) throw new DomainError('unknown_account', 'no such account');
  if (row.status === 'deleted') throw new DomainError('account_deleted', 'the account is deleted');
}

/** Whether either account blocks the other. */
export async function isBlockedEitherWay(db: Db, a: bigint, b: bigint): Promise<boolean> {
  const row = await db
    .selectFrom('blocks')
    .select('blocker_id')
    .where((eb) =>
      eb.or([eb.and([eb('blocker_id', '=', a), eb('blocked_id', '=', b)]), eb.and([eb('blocker_id', '=', b), eb('blocked_id', '=', a)])]),
    )
    .executeTakeFirst();
  return row !== undefined;
}
