import type { Transaction } from 'kysely';
import type { DB } from '../../db/index.js';
import { SEGMENTS } from '../../gate/index.js';

/** Opens a new account's wallet: its three segments at zero, in the caller's transaction. */
export async function openWallet(trx: Transaction<DB>, accountId: bigint): Promise<void> {
  await trx
    .insertInto('wallet_segments')
    .values(SEGMENTS.map((segment) => ({ account_id: accountId, segment })))
    .execute();
}
