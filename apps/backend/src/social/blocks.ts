import { requireLiveCaller, type GameDeps, requireTarget } from '../game/index.js';
import { DomainError } from '../rpc/index.js';
import { accountExists, deleteBlock, deleteFriendshipPair, insertBlock } from './social.store.js';

/**
 * Blocks `targetId`: refused for a deleted target (`account_deleted`), an unknown one or oneself.
 * Ends any friendship or pending request between the two. Idempotent.
 */
export async function block(deps: GameDeps, callerId: bigint, targetId: bigint): Promise<void> {
  const now = deps.now();
  await deps.db.transaction().execute(async (trx) => {
    await requireLiveCaller(trx, callerId);
    await requireTarget(trx, callerId, targetId);
    await insertBlock(trx, callerId, targetId, now);
    await deleteFriendshipPair(trx, callerId, targetId);
  });
}

/** Lifts the caller's block on `targetId` (also on a deleted account, so a list can be cleaned). Idempotent. */
export async function unblock(deps: GameDeps, callerId: bigint, targetId: bigint): Promise<void> {
  if (targetId <= 0n || targetId === callerId) throw new DomainError('invalid_target', 'account_id must be another account');
  await requireLiveCaller(deps.db, callerId);
  if (!(await accountExists(deps.db, targetId))) throw new DomainError('unknown_account', 'no such account');
  await deleteBlock(deps.db, callerId, targetId);
}
