import { requireLiveCaller, type GameDeps, requireTarget } from '../game/index.js';
import { DomainError } from '../rpc/index.js';

/**
 * Blocks `targetId`: refused for a deleted target (`account_deleted`), an unknown one or oneself.
 * Ends any friendship or pending request between the two. Idempotent.
 */
export async function block(deps: GameDeps, callerId: bigint, targetId: bigint): Promise<void> {
  const now = deps.now();
  await deps.db.transaction().execute(async (trx) => {
    await requireLiveCaller(trx, callerId);
    await requireTarget(trx, callerId, targetId);
    await trx
      .insertInto('blocks')
      .values({ blocker_id: callerId, blocked_id: targetId, created_at: now })
      .onConflict((oc) => oc.columns(['blocker_id', 'blocked_id']).doNothing())
      .execute();
    await trx
      .deleteFrom('friendships')
      .where((eb) =>
        eb.or([
          eb.and([eb('requester_id', '=', callerId), eb('addressee_id', '=', targetId)]),
          eb.and([eb('requester_id', '=', targetId), eb('addressee_id', '=', callerId)]),
        ]),
      )
      .execute();
  });
}

/** Lifts the caller's block on `targetId` (also on a deleted account, so a list can be cleaned). Idempotent. */
export async function unblock(deps: GameDeps, callerId: bigint, targetId: bigint): Promise<void> {
  if (targetId <= 0n || targetId === callerId) throw new DomainError('invalid_target', 'account_id must be another account');
  await requireLiveCaller(deps.db, callerId);
  const target = await deps.db.selectFrom('accounts').select('id').where('id', '=', targetId).executeTakeFirst();
  if (!target) throw new DomainError('unknown_account', 'no such account');
  await deps.db.deleteFrom('blocks').where('blocker_id', '=', callerId).where('blocked_id', '=', targetId).execute();
}
