import { isUniqueViolation } from '../accounts/index.js';
import { requireLiveCaller, type GameDeps, isBlockedEitherWay, requireTarget } from '../game/index.js';
import { DomainError } from '../rpc/index.js';
import { acceptFriendship, insertFriendRequest, lockFriendshipPair } from './social.store.js';

/** The friendship between the caller and another account, from the caller's side. */
export type FriendshipStatus = 'pending_outgoing' | 'pending_incoming' | 'friends';

/**
 * Asks `targetId` for friendship. Refused for a deleted target (`account_deleted`), an unknown
 * one, oneself, or when a block stands either way (`blocked`). Idempotent: a pending request of
 * the caller stays pending; when the target had already asked the caller, both become friends.
 */
export async function sendFriendRequest(deps: GameDeps, callerId: bigint, targetId: bigint): Promise<FriendshipStatus> {
  const now = deps.now();
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await deps.db.transaction().execute(async (trx): Promise<FriendshipStatus> => {
        await requireLiveCaller(trx, callerId);
        await requireTarget(trx, callerId, targetId);
        if (await isBlockedEitherWay(trx, callerId, targetId))
          throw new DomainError('blocked', 'a block stands between you and this player');
        const row = await lockFriendshipPair(trx, callerId, targetId);
        if (!row) {
          await insertFriendRequest(trx, callerId, targetId, now);
          return 'pending_outgoing';
        }
        if (row.status === 'accepted') return 'friends';
        if (row.requester_id === callerId) return 'pending_outgoing';
        await acceptFriendship(trx, targetId, callerId, now);
        return 'friends';
      });
    } catch (err: unknown) {
      // Two first requests of one pair raced on the pair key: the loser re-reads the winner's row.
      if (attempt > 0 || !isUniqueViolation(err, 'friendships_pair_key')) throw err;
    }
  }
}

/** Accepts `targetId`'s pending request to the caller; `unknown_friend_request` when there is none. */
export async function acceptFriendRequest(deps: GameDeps, callerId: bigint, targetId: bigint): Promise<FriendshipStatus> {
  const now = deps.now();
  return deps.db.transaction().execute(async (trx): Promise<FriendshipStatus> => {
    await requireLiveCaller(trx, callerId);
    await requireTarget(trx, callerId, targetId);
    const row = await lockFriendshipPair(trx, callerId, targetId);
    if (row?.status === 'accepted') return 'friends';
    if (!row || row.requester_id !== targetId)
      throw new DomainError('unknown_friend_request', 'this account has not asked you for friendship');
    await acceptFriendship(trx, targetId, callerId, now);
    return 'friends';
  });
}
