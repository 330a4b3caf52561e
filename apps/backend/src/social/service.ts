import type { ServiceImpl } from '@connectrpc/connect';
import { backendApi, decodeTable, encodeTable, fb } from '@wordgame/contracts';
import { deleteAccount, type DeletionDeps } from '../privacy/index.js';
import { writerFrom } from '../rpc/index.js';
import { block, unblock } from './blocks.js';
import { acceptFriendRequest, sendFriendRequest, type FriendshipStatus } from './friends.js';

function targetOf(body: Uint8Array): bigint {
  return decodeTable(
    body,
    (bb) => fb.SocialTarget.getRootAsSocialTarget(bb),
    (t) => t.accountId(),
  );
}

function friendship(accountId: bigint, status: FriendshipStatus): Uint8Array {
  return encodeTable((b) => fb.FriendshipView.createFriendshipView(b, accountId, b.createString(status)));
}

function blockView(accountId: bigint, blocked: boolean): Uint8Array {
  return encodeTable((b) => fb.BlockView.createBlockView(b, accountId, blocked));
}

/**
 * backend.v1.SocialService: friend requests, blocks and the caller's own soft delete. Every method
 * writes, so each needs a trusted session (writerFrom: `untrusted_session` otherwise).
 */
export function socialService(deps: DeletionDeps): ServiceImpl<typeof backendApi.SocialService> {
  return {
    async sendFriendRequest(req, ctx) {
      const caller = writerFrom(ctx.requestHeader);
      const target = targetOf(req.body);
      return { body: friendship(target, await sendFriendRequest(deps, caller.accountId, target)) };
    },
    async acceptFriendRequest(req, ctx) {
      const caller = writerFrom(ctx.requestHeader);
      const target = targetOf(req.body);
      return { body: friendship(target, await acceptFriendRequest(deps, caller.accountId, target)) };
    },
    async block(req, ctx) {
      const caller = writerFrom(ctx.requestHeader);
      const target = targetOf(req.body);
      await block(deps, caller.accountId, target);
      return { body: blockView(target, true) };
    },
    async unblock(req, ctx) {
      const caller = writerFrom(ctx.requestHeader);
      const target = targetOf(req.body);
      await unblock(deps, caller.accountId, target);
      return { body: blockView(target, false) };
    },
    async deleteAccount(req, ctx) {
      const caller = writerFrom(ctx.requestHeader);
      decodeTable(
        req.body,
        (bb) => fb.AccountDeletion.getRootAsAccountDeletion(bb),
        () => undefined,
      );
      const done = await deleteAccount(deps, caller.accountId);
      return { body: encodeTable((b) => fb.AccountDeleted.createAccountDeleted(b, caller.accountId, done.sessionsRevoked)) };
    },
  };
}
