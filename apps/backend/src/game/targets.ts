import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/index.js';
import { DomainError, type DomainErrorCode } from '../rpc/index.js';
import { accountStatus } from './game.store.js';

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
  const status = await accountStatus(db, targetId);
  if (status === undefined) throw new DomainError('unknown_account', 'no such account');
  if (status === 'deleted') throw new DomainError('account_deleted', 'the account is deleted');
}
