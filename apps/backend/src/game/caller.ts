import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/index.js';
import { DomainError } from '../rpc/index.js';

/** Fails with `caller_required` unless the caller's account exists and is not deleted. */
export async function requireLiveCaller(db: Kysely<DB> | Transaction<DB>, accountId: bigint): Promise<void> {
  const row = await db.selectFrom('accounts').select('status').where('id', '=', accountId).executeTakeFirst();
  if (!row || row.status === 'deleted') throw new DomainError('caller_required', 'the caller account does not exist');
}
