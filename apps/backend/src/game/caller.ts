import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/index.js';
import { DomainError } from '../rpc/index.js';
import { accountStatus } from './game.store.js';

/** Fails with `caller_required` unless the caller's account exists and is not deleted. */
export async function requireLiveCaller(db: Kysely<DB> | Transaction<DB>, accountId: bigint): Promise<void> {
  const status = await accountStatus(db, accountId);
  if (status === undefined || status === 'deleted') throw new DomainError('caller_required', 'the caller account does not exist');
}
